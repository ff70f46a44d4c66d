// Before any rank issues a collective, the ranks show each other the calls
// they are about to make (through the rendezvous store) and compare them per
// process group: the same collectives in the same order, with the same sizes
// where the collective needs equal sizes. Traces of different runs, or ranks
// given the wrong files, then fail at once with the first difference named,
// instead of deadlocking in the first call that does not match.
#pragma once

#include <string>
#include <vector>

#include "replay/replayer.h"

namespace mimic::replay {

struct CallSignature {
    std::string pg_name;
    std::string collective;  // all_reduce, send...
    uint64_t input_bytes = 0;
    uint64_t node_id = 0;
};

// The planned calls of a replay, in order (waits left out: they move nothing).
std::vector<CallSignature> call_signatures(const Trace& trace, const Replayer& replayer);

// "" when every pair of ranks agrees on every group both belong to; else the
// first difference, naming both ranks, the group, the call's position and node.
std::string compare_call_sequences(const std::vector<std::vector<CallSignature>>& per_rank,
                                   const std::map<std::string, ReplayGroup>& groups);

// Publishes this rank's calls, reads everyone's and compares. Throws
// mimic::Error with the difference (every rank reaches the same verdict).
void check_calls_match(ProcessGroups& groups, const std::vector<CallSignature>& mine);

}  // namespace mimic::replay

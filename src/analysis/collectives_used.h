// The collectives a job runs, summed over its ranks' traces: which kinds,
// how many calls, the range of their sizes, and the world size the traces
// name. `mimic calibrate --collectives TRACE...` times and fits only these:
// one network (a latency and a bandwidth) cannot follow every Gloo
// collective at every size at once, and a fit over all of them gives up the
// ones the job runs for those it does not (docs/findings.md, 2026-12-07).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace mimic::analysis {

struct CollectiveUse {
    uint64_t calls = 0;
    uint64_t sized_calls = 0;  // calls whose message size the trace gives (and is not 0)
    uint64_t min_bytes = 0;    // over the sized calls
    uint64_t max_bytes = 0;
};

struct CollectivesUsed {
    std::map<std::string, CollectiveUse> by_collective;  // Chakra spelling: "all_reduce", "all_to_all"...
    int64_t world_size = -1;                             // the largest any trace names; -1 when none does
    size_t traces = 0;
};

// Adds one rank's trace (find_collectives' calls, one per collective call).
void add_collectives_used(CollectivesUsed& used, const Trace& trace);

}  // namespace mimic::analysis

// Finds the collective calls of one rank's trace and what each moved:
//  - PyTorch 2.x: record_param_comms (not its "wait" calls), with
//    collective_name / in_msg_nelems / dtype / pg_name attrs from schema 1.1.0,
//    else its inputs [tensors, seq, pg, rank, coll_name, ...];
//  - PyTorch 1.13 with Gloo: c10d:: dispatcher ops with nothing recorded
//    below them (the process group is an opaque object there, so the call is
//    put on the default group);
//  - Chakra: COMM_COLL / COMM_SEND / COMM_RECV nodes with comm_type and comm_size;
//  - as a last resort, nccl:* / gloo:* labels when nothing above named them.
// One call is counted once: a c10d:: op and the record_param_comms and
// nccl:* label under it are one collective.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/categories.h"
#include "analysis/node_times.h"
#include "analysis/op_nesting.h"
#include "trace/trace.h"

namespace mimic::analysis {

struct CollectiveCall {
    NodeIndex node;
    std::string collective;  // Chakra spelling: "all_reduce", "all_gather", "broadcast"...
    std::string pg_name;
    std::string pg_desc;
    uint64_t bytes = 0;        // the message this rank put in: its input tensors
    bool bytes_known = false;
    double duration_us = 0;    // inclusive, when timed
};

std::vector<CollectiveCall> find_collectives(const Trace& trace, const std::vector<NodeClass>& classes,
                                             const OpNesting& nesting, const NodeTimes& times);

// Calls of one collective on one process group, on one rank.
struct CollectiveStats {
    std::string pg_name;
    std::string pg_desc;
    std::string collective;
    int64_t rank = -1;  // -1 when the trace does not say
    uint64_t count = 0;
    uint64_t total_bytes = 0;
    uint64_t max_bytes = 0;
    uint64_t unknown_size = 0;  // calls whose message size the trace does not give
    double total_us = 0;
};

// Groups calls by (process group, collective), sorted by group then collective.
std::vector<CollectiveStats> summarize_collectives(const std::vector<CollectiveCall>& calls, int64_t rank);

}  // namespace mimic::analysis

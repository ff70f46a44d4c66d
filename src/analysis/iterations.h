// Finds the training iterations in a trace: ProfilerStep#N labels when the
// profiler's schedule wrote them, else a user record_function label that
// repeats at the top of a thread (the "## step ##" a training loop wraps each
// step in). Each iteration spans the node ids of its label's subtree.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/categories.h"
#include "analysis/node_times.h"
#include "trace/trace.h"

namespace mimic::analysis {

struct Iteration {
    std::string name;         // the label, e.g. "ProfilerStep#6"
    int64_t rank = -1;        // the trace's rank, for reports over several ranks
    uint64_t node_id = 0;     // the label node's id
    uint64_t first_node_id = 0;  // smallest and largest node id in the label's subtree
    uint64_t last_node_id = 0;
    uint64_t nodes = 0;       // nodes in the subtree, the label included
    bool timed = false;       // the label node was linked to a profile
    double duration_us = 0;   // inclusive, when timed
};

struct IterationScan {
    // "profiler_step", "repeated_label" or "none".
    std::string method = "none";
    std::string marker;  // "ProfilerStep#" or the repeating label's name
    std::vector<Iteration> iterations;  // in execution order
};

IterationScan find_iterations(const Trace& trace, const std::vector<NodeClass>& classes, const NodeTimes& times);

}  // namespace mimic::analysis

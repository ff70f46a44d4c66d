// Host time between operators. A C++ replay calls op after op; the original
// paid Python, autograd and framework time between them. With a linked
// profile, that time is the gap between one replayed op's end and the next
// one's start in the traced iteration.
//
// Recording inflates those gaps: the ET observer and the profiler run code
// at the start and end of every node, and nodes between two top-level ops
// (labels, autograd wrappers, skipped ops' children) pay it inside the gap.
// Model: each node of the iteration costs the same `per_event_us`, calibrated
// from meta.json as (traced - untraced iteration time) / nodes in the
// iteration; a gap loses per_event_us for every node that starts in it (and
// for the op that ends it). Without meta.json the gaps are taken as recorded.
#pragma once

#include <optional>
#include <vector>

#include "trace/trace.h"

namespace mimic::replay {

struct HostGapModel {
    std::vector<double> gap_us;  // before each replayed op, corrected
    double per_event_us = 0;     // calibrated instrumentation cost per node
    double recorded_total_us = 0;
    double corrected_total_us = 0;
    bool calibrated = false;     // meta.json gave traced and untraced times
};

// Nodes of the subtree rooted at each node (the node included), by position.
std::vector<uint32_t> subtree_sizes(const Trace& trace);

// Per-event instrumentation cost, or 0 when the times are unknown.
double per_event_overhead_us(std::optional<double> traced_ms, std::optional<double> untraced_ms, uint64_t nodes);

// `ops`: the replayed nodes in order. Needs trace.timing; ops not linked get no gap.
HostGapModel host_gaps(const Trace& trace, const std::vector<NodeIndex>& ops, double per_event_us);

}  // namespace mimic::replay

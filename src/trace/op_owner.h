// Which top-level operator each node of an ET runs under, with the one
// correction every consumer needs: PyTorch 1.13's observer misfiles ops around
// an asynchronous Gloo collective. The gloo:* label opens when the work is
// queued and closes on Gloo's worker thread, so the observer's stack of open
// ops goes out of step and the caller's next ops (even a later DDP bucket's
// c10d::allreduce_) land below an op that has already ended. Analysis and
// convert both ask "whose work is this node"; they must agree with each other
// and with what a multi-rank replay issues, or ranks disagree on collectives.
#pragma once

#include <functional>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace mimic {

// Every node once, parents before children (depth first from the nodes with
// no parent), whatever order the file wrote them in.
std::vector<NodeIndex> parents_first_order(const Trace& trace);

// gloo:all_reduce and friends: a backend's label with no schema. What the ET
// files below it is never its work.
bool is_async_backend_label(const Trace& trace, const Node& node);

// A c10d:: dispatcher op: its own work is only its communication records.
bool is_c10d_operator(const Trace& trace, const Node& node);

struct OwnerRules {
    // The nodes that can own work (a profiler's "ops"); the caller decides.
    std::function<bool(NodeIndex)> is_operator;
    // Communication records (record_param_comms, gloo:*/nccl:* labels) stay
    // with the c10d op above them even though they are labels.
    std::function<bool(NodeIndex)> is_communication;
};

// Per node: the outermost operator above it whose work it is (itself when it
// is an operator with no such owner), or kNoNode for labels no operator owns.
// `order` is parents_first_order(trace).
std::vector<NodeIndex> top_level_owners(const Trace& trace, const std::vector<NodeIndex>& order,
                                        const OwnerRules& rules);

}  // namespace mimic

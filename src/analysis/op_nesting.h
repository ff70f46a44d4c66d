// Which operator each node runs under. A trace nests ops (aten::linear runs
// aten::addmm, c10d::allreduce_ runs record_param_comms), so a breakdown that
// added up every node's inclusive time would count the same time twice. We
// charge each node to its top-level operator instead: the outermost operator
// above it, or itself when no operator is above it. Chakra nodes are flat.
#pragma once

#include <vector>

#include "analysis/categories.h"
#include "trace/op_owner.h"
#include "trace/trace.h"

namespace mimic::analysis {

using mimic::parents_first_order;

struct OpNesting {
    // Per node: the top-level operator it runs under (itself if it is one), or
    // kNoNode for labels with no operator above them.
    std::vector<NodeIndex> top_level_owner;
    std::vector<NodeIndex> order;  // parents_first_order(), kept for later passes
};

OpNesting compute_op_nesting(const Trace& trace, const std::vector<NodeClass>& classes);

inline bool is_top_level_operator(const OpNesting& nesting, NodeIndex n) {
    return nesting.top_level_owner[n.value] == n;
}

}  // namespace mimic::analysis

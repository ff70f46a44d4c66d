#include "analysis/op_nesting.h"

namespace mimic::analysis {

OpNesting compute_op_nesting(const Trace& trace, const std::vector<NodeClass>& classes) {
    OpNesting out;
    out.order = parents_first_order(trace);
    // A Chakra node's ctrl_deps are ordering edges (the previous op on the
    // thread, the launch before a kernel), not "runs inside": its nodes are flat
    // and each duration is the node's own.
    if (trace.format == TraceFormat::Chakra) {
        out.top_level_owner.assign(trace.nodes.size(), kNoNode);
        for (NodeIndex i : out.order)
            if (classes[i.value].is_host_operator()) out.top_level_owner[i.value] = i;
        return out;
    }
    OwnerRules rules;
    rules.is_operator = [&](NodeIndex i) { return classes[i.value].is_host_operator(); };
    rules.is_communication = [&](NodeIndex i) { return classes[i.value].category == OpCategory::Communication; };
    out.top_level_owner = top_level_owners(trace, out.order, rules);
    return out;
}

}  // namespace mimic::analysis

#include "analysis/op_nesting.h"

namespace mimic::analysis {

std::vector<NodeIndex> parents_first_order(const Trace& trace) {
    const uint32_t n = static_cast<uint32_t>(trace.nodes.size());
    std::vector<NodeIndex> order;
    order.reserve(n);
    std::vector<NodeIndex> stack;
    // Trace::finalize cut parent cycles, so every node hangs below exactly one
    // node without a parent and this walk reaches each node once.
    for (NodeIndex start : trace.execution_order()) {
        if (trace.parent_of(start) != kNoNode) continue;
        stack.push_back(start);
        while (!stack.empty()) {
            NodeIndex cur = stack.back();
            stack.pop_back();
            order.push_back(cur);
            // Push children in reverse so they come out in execution order.
            for (const NodeIndex* c = trace.children_end(cur); c != trace.children_begin(cur);) stack.push_back(*--c);
        }
    }
    return order;
}

OpNesting compute_op_nesting(const Trace& trace, const std::vector<NodeClass>& classes) {
    OpNesting out;
    out.order = parents_first_order(trace);
    out.top_level_owner.assign(trace.nodes.size(), kNoNode);
    std::vector<uint8_t> under_gloo(trace.nodes.size(), 0);  // a gloo:* label is among the ancestors
    // A Chakra node's ctrl_deps are ordering edges (the previous op on the
    // thread, the launch before a kernel), not "runs inside": its nodes are flat
    // and each duration is the node's own.
    const bool flat = trace.format == TraceFormat::Chakra;
    for (NodeIndex i : out.order) {
        if (flat) {
            if (classes[i.value].is_host_operator()) out.top_level_owner[i.value] = i;
            continue;
        }
        const NodeIndex parent = trace.parent_of(i);
        NodeIndex inherited = parent == kNoNode ? kNoNode : out.top_level_owner[parent.value];
        // What the ET files under an async gloo:*/nccl:* label is not its work
        // (see NodeClass::async_label).
        if (parent != kNoNode && classes[parent.value].async_label) inherited = kNoNode;
        // A label or autograd wrapper below a c10d op, or below an op under a
        // gloo:* label, was misfiled there by 1.13's observer (see
        // replay/op_selection), and so is everything below it.
        under_gloo[i.value] = parent != kNoNode && (under_gloo[parent.value] || classes[parent.value].async_label);
        const NodeKind kind = trace.nodes[i.value].kind;
        if (inherited != kNoNode && (kind == NodeKind::Label || kind == NodeKind::Autograd) &&
            classes[i.value].category != OpCategory::Communication &&
            (classes[inherited.value].c10d_op || under_gloo[inherited.value]))
            inherited = kNoNode;
        // A c10d op filed straight below an ATen op or another c10d op, no
        // label between, was misfiled the same way: no ATen op calls a
        // collective, and no c10d op another.
        if (inherited != kNoNode && classes[i.value].c10d_op &&
            (classes[inherited.value].c10d_op || trace.name(trace.nodes[inherited.value]).rfind("aten::", 0) == 0))
            inherited = kNoNode;
        if (inherited != kNoNode)
            out.top_level_owner[i.value] = inherited;
        else if (classes[i.value].is_host_operator())
            out.top_level_owner[i.value] = i;
    }
    return out;
}

}  // namespace mimic::analysis

#include "trace/op_owner.h"

#include "support/text.h"

namespace mimic {

std::vector<NodeIndex> parents_first_order(const Trace& trace) {
    std::vector<NodeIndex> order;
    order.reserve(trace.nodes.size());
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

bool is_async_backend_label(const Trace& trace, const Node& node) {
    return node.op_schema.value == 0 && starts_with(trace.name(node), "gloo:");
}

bool is_c10d_operator(const Trace& trace, const Node& node) {
    return node.kind == NodeKind::Operator && starts_with(trace.name(node), "c10d::");
}

std::vector<NodeIndex> top_level_owners(const Trace& trace, const std::vector<NodeIndex>& order,
                                        const OwnerRules& rules) {
    std::vector<NodeIndex> owner(trace.nodes.size(), kNoNode);
    std::vector<uint8_t> under_gloo(trace.nodes.size(), 0);  // a gloo:* label is among the ancestors
    for (NodeIndex i : order) {
        const Node& node = trace.nodes[i.value];
        const NodeIndex parent = trace.parent_of(i);
        const bool parent_async = parent != kNoNode && is_async_backend_label(trace, trace.nodes[parent.value]);
        NodeIndex inherited = parent == kNoNode || parent_async ? kNoNode : owner[parent.value];
        under_gloo[i.value] = parent != kNoNode && (under_gloo[parent.value] || parent_async);
        if (inherited != kNoNode) {
            const Node& up = trace.nodes[inherited.value];
            // A label or autograd wrapper below a c10d op, or below an op under
            // a gloo:* label, was misfiled there, and so is everything below
            // it. Elsewhere a label below an operator is real (2.x records
            // "detach" inside aten::detach).
            if ((node.kind == NodeKind::Label || node.kind == NodeKind::Autograd) && !rules.is_communication(i) &&
                (is_c10d_operator(trace, up) || under_gloo[inherited.value]))
                inherited = kNoNode;
            // A c10d op filed straight below an ATen op or another c10d op was
            // misfiled the same way: no ATen op calls a collective, and no
            // c10d op another.
            else if (is_c10d_operator(trace, node) &&
                     (is_c10d_operator(trace, up) || starts_with(trace.name(up), "aten::")))
                inherited = kNoNode;
        }
        if (inherited != kNoNode)
            owner[i.value] = inherited;
        else if (rules.is_operator(i))
            owner[i.value] = i;
    }
    return owner;
}

}  // namespace mimic

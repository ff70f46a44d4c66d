#include "analysis/autograd_counter.h"

#include <unordered_map>

#include "support/text.h"

namespace mimic::analysis {

std::vector<MadeNode> made_autograd_nodes(const Trace& trace) {
    const std::vector<NodeIndex>& order = trace.execution_order();
    const size_t n = order.size();
    std::vector<MadeNode> made(trace.nodes.size(), MadeNode::Unknown);
    const std::vector<uint32_t> size = subtree_sizes(trace);
    // The backward's labels carry the numbers of the nodes they run, not the
    // counter's: they and what runs under them say nothing of it.
    std::vector<char> in_backward(trace.nodes.size(), 0);
    for (NodeIndex k : order) {
        const Node& node = trace.nodes[k.value];
        const NodeIndex p = trace.parent_of(k);
        in_backward[k.value] = (p != kNoNode && in_backward[p.value]) || node.scope == kBackwardFunctionScope ||
                               starts_with(trace.name(node), "autograd::engine::evaluate_function");
    }
    // Ask at the position just past each numbered node's subtree; answered
    // by a scan from the end that keeps, per thread, the number of the
    // nearest numbered call at or after the position.
    std::vector<std::vector<NodeIndex>> asked_at(n + 1);
    for (size_t k = 0; k < n; ++k) {
        const Node& node = trace.nodes[order[k].value];
        if (node.seq_id < 0 || in_backward[order[k].value]) continue;
        asked_at[std::min(n, k + size[order[k].value])].push_back(order[k]);
    }
    std::unordered_map<uint64_t, int64_t> next_seq;  // thread -> number
    for (size_t pos = n + 1; pos-- > 0;) {
        for (NodeIndex q : asked_at[pos]) {
            const Node& node = trace.nodes[q.value];
            const auto it = next_seq.find(node.tid);
            if (it != next_seq.end()) made[q.value] = it->second > node.seq_id ? MadeNode::Yes : MadeNode::No;
        }
        if (pos == 0) break;
        const Node& before = trace.nodes[order[pos - 1].value];
        if (before.seq_id >= 0 && !in_backward[order[pos - 1].value]) next_seq[before.tid] = before.seq_id;
    }
    return made;
}

}  // namespace mimic::analysis

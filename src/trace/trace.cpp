#include "trace/trace.h"

#include <algorithm>

#include "support/error.h"

namespace mimic {

NodeKind classify_node(std::string_view name, std::string_view op_schema, int32_t scope) {
    if (name.size() > 2 && name.front() == '[' && name.find("[pytorch|profiler|execution_") == 0) {
        if (name.find("|thread]") != std::string_view::npos) return NodeKind::Thread;
        if (name.find("|process]") != std::string_view::npos) return NodeKind::Root;
    }
    if (name == "## process_group:init ##") return NodeKind::ProcessGroupInit;
    if (!op_schema.empty()) return NodeKind::Operator;
    if (name.find("autograd::") != std::string_view::npos || name.find("Backward") != std::string_view::npos ||
        name == "torch::autograd::AccumulateGrad")
        return NodeKind::Autograd;
    (void)scope;
    return NodeKind::Label;
}

NodeIndex Trace::find(NodeId id) const {
    auto it = index_of_id_.find(id.value);
    return it == index_of_id_.end() ? kNoNode : NodeIndex(it->second);
}

const Attr* Trace::find_attr(const Node& n, std::string_view attr_name) const {
    StrId key = strings.find(attr_name);
    if (key.value == 0 && !attr_name.empty()) return nullptr;
    for (uint32_t i = 0; i < n.attrs.count; ++i) {
        const Attr& a = attrs[n.attrs.begin + i];
        if (a.name == key) return &a;
    }
    return nullptr;
}

void Trace::finalize() {
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    index_of_id_.clear();
    index_of_id_.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        auto [it, fresh] = index_of_id_.emplace(nodes[i].id.value, i);
        if (!fresh) warn("duplicate node id " + std::to_string(nodes[i].id.value) + "; later node ignored in lookups");
    }
    order_.resize(n);
    for (uint32_t i = 0; i < n; ++i) order_[i] = NodeIndex(i);
    std::stable_sort(order_.begin(), order_.end(),
                     [&](NodeIndex a, NodeIndex b) { return nodes[a.value].id < nodes[b.value].id; });

    parent_index_.assign(n, kNoNode);
    child_offsets_.assign(n + 1, 0);
    size_t dangling = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const Node& node = nodes[i];
        if (node.parent == node.id || node.parent.value == 0) continue;
        NodeIndex p = find(node.parent);
        if (p == kNoNode) {
            if (dangling++ < 5)
                warn("node " + std::to_string(node.id.value) + ": parent " + std::to_string(node.parent.value) +
                     " is not in the trace");
            continue;
        }
        parent_index_[i] = p;
        ++child_offsets_[p.value + 1];
    }
    if (dangling > 5) warn(std::to_string(dangling) + " nodes in all have a parent that is not in the trace");
    // Cycles in parent links (a node its own ancestor) would make every walk
    // up the tree spin; cut them here, once, so later queries need not check.
    std::vector<uint8_t> state(n, 0);  // 0 unseen, 1 on current path, 2 done
    std::vector<uint32_t> path;
    for (uint32_t start = 0; start < n; ++start) {
        path.clear();
        uint32_t cur = start;
        while (cur != UINT32_MAX && state[cur] == 0) {
            state[cur] = 1;
            path.push_back(cur);
            cur = parent_index_[cur].value;
        }
        if (cur != UINT32_MAX && state[cur] == 1) {
            // cur is on this path: the link out of it closes a cycle.
            warn("node " + std::to_string(nodes[cur].id.value) + ": parent chain forms a cycle; link to parent " +
                 std::to_string(nodes[cur].parent.value) + " ignored");
            --child_offsets_[parent_index_[cur].value + 1];
            parent_index_[cur] = kNoNode;
        }
        for (uint32_t p : path) state[p] = 2;
    }
    for (uint32_t i = 0; i < n; ++i) child_offsets_[i + 1] += child_offsets_[i];
    child_list_.assign(child_offsets_[n], kNoNode);
    std::vector<uint32_t> fill(child_offsets_.begin(), child_offsets_.end() - 1);
    for (NodeIndex i : order_) {
        NodeIndex p = parent_index_[i.value];
        if (p != kNoNode) child_list_[fill[p.value]++] = i;
    }
}

}  // namespace mimic

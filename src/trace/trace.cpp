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

namespace {

// "5 -> 6 -> 7 -> 5", the ids of a parent cycle from its first node; a long one is cut.
std::string describe_cycle(const Column<Node>& nodes, const std::vector<NodeIndex>& parent_index,
                           uint32_t first) {
    constexpr size_t kShown = 8;
    std::string out = std::to_string(nodes[first].id.value);
    size_t length = 1;
    for (uint32_t cur = parent_index[first].value; cur != first; cur = parent_index[cur].value) {
        if (length++ < kShown) out += " -> " + std::to_string(nodes[cur].id.value);
    }
    if (length > kShown) out += " -> ...";
    out += " -> " + std::to_string(nodes[first].id.value);
    if (length > kShown) out += " (" + std::to_string(length) + " nodes)";
    return out;
}

}  // namespace

void Trace::finalize(ParentLinks bad_links, const char* parent_field) {
    const bool strict = bad_links == ParentLinks::Fail;
    auto fail_at = [&](const Node& node, const std::string& message) {
        fail({source_path, static_cast<int64_t>(node.id.value), -1, parent_field}, message);
    };
    const uint32_t n = static_cast<uint32_t>(nodes.size());
    index_of_id_.clear();
    index_of_id_.reserve(n);
    for (uint32_t i = 0; i < n; ++i) {
        auto [it, fresh] = index_of_id_.emplace(nodes[i].id.value, i);
        if (!fresh) warn("duplicate node id " + std::to_string(nodes[i].id.value) + "; later node ignored in lookups");
    }
    order_.resize(n);
    for (uint32_t i = 0; i < n; ++i) order_[i] = NodeIndex(i);
    // Chakra traces (and merged ones) are mostly written in id order already.
    bool sorted = true;
    for (uint32_t i = 1; i < n && sorted; ++i) sorted = !(nodes[i].id < nodes[i - 1].id);
    if (!sorted)
        std::stable_sort(order_.begin(), order_.end(),
                         [&](NodeIndex a, NodeIndex b) { return nodes[a.value].id < nodes[b.value].id; });

    parent_index_.assign(n, kNoNode);
    child_offsets_.assign(n + 1, 0);
    size_t dangling = 0;
    for (uint32_t i = 0; i < n; ++i) {
        const Node& node = nodes[i];
        if (node.parent.value == 0) continue;
        if (node.parent == node.id) {
            // The observer writes the root as its own parent; any other node so is a one-node cycle.
            if (strict && node.kind != NodeKind::Root)
                fail_at(node, "node is its own parent (a parent cycle; only the root may be)");
            continue;
        }
        NodeIndex p = find(node.parent);
        if (p == kNoNode) {
            if (strict) fail_at(node, "parent " + std::to_string(node.parent.value) + " is not in the trace");
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
            if (strict) {
                uint32_t first = cur;  // the cycle's node that comes first in the file
                for (uint32_t c = parent_index_[cur].value; c != cur; c = parent_index_[c].value) first = std::min(first, c);
                fail_at(nodes[first], "parent links form a cycle: " + describe_cycle(nodes, parent_index_, first));
            }
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

void set_strides(Trace& trace, TensorMeta& t, const int64_t* strides) {
    const uint32_t begin = static_cast<uint32_t>(trace.dims.size());
    for (uint16_t d = 0; d < t.rank; ++d) {
        const int64_t size = trace.dims[t.dims_begin + d];  // read before push_back may move the storage
        trace.dims.push_back(size);
    }
    for (uint16_t d = 0; d < t.rank; ++d) trace.dims.push_back(strides[d]);
    t.dims_begin = begin;
    t.has_strides = true;
}

std::vector<uint32_t> subtree_sizes(const Trace& trace) {
    std::vector<uint32_t> size(trace.nodes.size(), 1);
    // Children have larger ids than parents: add each node into its parent, latest first.
    const auto& order = trace.execution_order();
    for (auto it = order.rbegin(); it != order.rend(); ++it) {
        NodeIndex p = trace.parent_of(*it);
        if (p != kNoNode) size[p.value] += size[it->value];
    }
    return size;
}

}  // namespace mimic

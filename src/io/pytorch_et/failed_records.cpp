#include "io/pytorch_et/failed_records.h"

#include <algorithm>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace mimic {
namespace {

bool is_structural(const Node& n) { return n.kind == NodeKind::Root || n.kind == NodeKind::Thread; }

}  // namespace

void place_failed_records(Trace& trace) {
    auto& nodes = trace.nodes;
    std::unordered_set<uint64_t> ids;
    std::vector<uint32_t> id_zero;
    uint64_t max_id = 0;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].id.value == 0 && !is_structural(nodes[i])) id_zero.push_back(i);
        else ids.insert(nodes[i].id.value);
        max_id = std::max(max_id, nodes[i].id.value);
    }
    if (id_zero.empty()) return;

    // Per missing parent: its thread and where its last child was written.
    struct Missing {
        uint64_t tid = 0;
        uint32_t last_child = 0;
        NodeId parent;  // where its children go
    };
    std::unordered_map<uint64_t, Missing> missing;
    size_t orphans = 0;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        const Node& n = nodes[i];
        const uint64_t p = n.parent.value;
        if (is_structural(n) || n.id.value == 0 || p == 0 || p == n.id.value || ids.count(p)) continue;
        ++orphans;
        Missing& m = missing[p];
        m.tid = n.tid;
        m.last_child = i;
    }
    for (auto& [id, m] : missing) {
        for (uint32_t j = m.last_child + 1; j < nodes.size() && m.parent.value == 0; ++j) {
            const Node& later = nodes[j];
            if (!is_structural(later) && later.tid == m.tid && later.id.value != 0 && later.id.value < id) m.parent = later.id;
        }
        if (m.parent.value != 0) continue;
        // No op encloses it: the thread's node that opened last before it, else the root.
        uint64_t best = 0;
        for (const Node& n : nodes) {
            if (n.kind == NodeKind::Thread && n.tid == m.tid && n.id.value < id) best = std::max(best, n.id.value);
            if (n.kind == NodeKind::Root && best == 0) m.parent = n.id;
        }
        if (best != 0) m.parent = NodeId(best);
    }
    for (Node& n : nodes) {
        auto it = missing.find(n.parent.value);
        if (it == missing.end() || is_structural(n) || n.id.value == 0 || it->second.parent.value == 0) continue;
        n.parent = it->second.parent;
    }
    std::string names;
    for (size_t k = 0; k < id_zero.size(); ++k) {
        Node& n = nodes[id_zero[k]];
        if (k < 3) names += (names.empty() ? "" : ", ") + std::string(trace.name(n));
        n.id = NodeId(++max_id);
        n.parent = NodeId(0);
    }
    trace.warn("PyTorch's observer failed to record some ops (as 1.13 does for ops on nested tensors): " +
               std::to_string(id_zero.size()) + " written with id 0 and no parent come after the rest (" + names +
               (id_zero.size() > 3 ? ", ..." : "") + ")" +
               (missing.empty() ? std::string()
                                : "; " + std::to_string(missing.size()) + " not written at all, whose " + std::to_string(orphans) +
                                      " calls are attached to the op that called them"));
}

}  // namespace mimic

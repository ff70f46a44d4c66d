#include "io/pytorch_et/failed_records.h"

#include <algorithm>
#include <unordered_map>
#include <unordered_set>

namespace mimic {

namespace {

// A parent the file does not hold: its thread, where its last call was
// written, and where its calls go.
struct Missing {
    uint64_t tid = 0;
    uint32_t last_child = 0;
    uint64_t parent = 0;
};

// Ops still running when the observer stopped (a ProfilerStep label that
// prof.step() opened, a record_function around et.stop()) are numbered, as
// they started, but never written, as they had not ended: the calls they
// had finished name them. Such ops are the last to have started on their
// thread, so every op written there with a higher id is inside one of them:
// its parent is one of them or itself numbered after the first of them; and
// each is numbered before its calls. A missing parent anywhere else means a
// broken file.
bool open_when_stopped(const std::vector<RecordView>& nodes, const std::unordered_set<uint64_t>& ids,
                       const std::unordered_map<uint64_t, Missing>& missing) {
    std::unordered_map<uint64_t, uint64_t> first_open;  // thread -> lowest missing id on it
    for (const auto& [id, m] : missing) {
        auto [it, fresh] = first_open.emplace(m.tid, id);
        if (!fresh) it->second = std::min(it->second, id);
    }
    for (const RecordView& n : nodes) {
        if (n.is_root || n.is_thread) continue;
        if (missing.count(n.parent) && n.parent >= n.id) return false;  // a caller starts before its calls
        auto it = first_open.find(n.tid);
        if (it == first_open.end() || n.id <= it->second) continue;
        const bool inside = missing.count(n.parent) || (ids.count(n.parent) && n.parent > it->second);
        if (!inside) return false;
    }
    return true;
}

}  // namespace

FailedRecordRepair plan_failed_record_repair(const std::vector<RecordView>& nodes) {
    FailedRecordRepair plan;
    const auto structural = [](const RecordView& n) { return n.is_root || n.is_thread; };
    std::unordered_set<uint64_t> ids;
    std::vector<uint32_t> id_zero;
    uint64_t max_id = 0;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        if (nodes[i].id == 0 && !structural(nodes[i])) id_zero.push_back(i);
        else ids.insert(nodes[i].id);
        max_id = std::max(max_id, nodes[i].id);
    }
    plan.id_zero = id_zero.size();

    std::unordered_map<uint64_t, Missing> missing;
    size_t orphans = 0;
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        const RecordView& n = nodes[i];
        if (structural(n) || n.id == 0 || n.parent == 0 || n.parent == n.id || ids.count(n.parent)) continue;
        ++orphans;
        Missing& m = missing[n.parent];
        m.tid = n.tid;
        m.last_child = i;
    }
    if (id_zero.empty()) {
        if (missing.empty() || !open_when_stopped(nodes, ids, missing)) return plan;
        plan.open_at_stop = missing.size();
    }
    plan.orphans = orphans;
    plan.missing = missing.size();
    for (auto& [id, m] : missing) {
        for (uint32_t j = m.last_child + 1; j < nodes.size() && m.parent == 0; ++j) {
            const RecordView& later = nodes[j];
            if (!structural(later) && later.tid == m.tid && later.id != 0 && later.id < id) m.parent = later.id;
        }
        if (m.parent != 0) continue;
        // No op encloses it: the thread's node that opened last before it, else the root.
        uint64_t thread = 0, root = 0;
        for (const RecordView& n : nodes) {
            if (n.is_thread && n.tid == m.tid && n.id < id) thread = std::max(thread, n.id);
            if (n.is_root && root == 0) root = n.id;
        }
        m.parent = thread != 0 ? thread : root;
    }
    for (uint32_t i = 0; i < nodes.size(); ++i) {
        const RecordView& n = nodes[i];
        auto it = missing.find(n.parent);
        if (it == missing.end() || structural(n) || n.id == 0 || it->second.parent == 0) continue;
        plan.new_parents.emplace_back(i, it->second.parent);
    }
    for (uint32_t i : id_zero) {
        plan.new_ids.emplace_back(i, ++max_id);
        plan.new_parents.emplace_back(i, 0);
    }
    return plan;
}

std::string FailedRecordRepair::warning(const std::vector<std::string>& id_zero_names) const {
    if (open_at_stop > 0)
        return std::to_string(open_at_stop) + (open_at_stop == 1 ? " op was" : " ops were") +
               " still running when the observer stopped (a ProfilerStep or record_function label open "
               "around its stop) and not in the trace; " +
               (orphans == 1 ? std::string("the call it had finished is placed")
                             : "the " + std::to_string(orphans) + " calls " + (open_at_stop == 1 ? "it" : "they") +
                                   " had finished are placed") +
               (open_at_stop == 1 ? " where it ran" : " where they ran");
    std::string names;
    for (size_t k = 0; k < id_zero_names.size() && k < 3; ++k) names += (k ? ", " : "") + id_zero_names[k];
    return "PyTorch's observer failed to record some ops (as 1.13 does for ops on nested tensors): " +
           std::to_string(id_zero) + " written with id 0 and no parent come after the rest (" + names +
           (id_zero > 3 ? ", ..." : "") + ")" +
           (missing == 0 ? std::string()
                         : "; " + std::to_string(missing) + " not written at all, whose " + std::to_string(orphans) +
                               " calls are attached to the op that called them");
}

void place_failed_records(Trace& trace) {
    std::vector<RecordView> views(trace.nodes.size());
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& n = trace.nodes[i];
        views[i] = {n.id.value, n.parent.value, n.tid, n.kind == NodeKind::Root, n.kind == NodeKind::Thread};
    }
    const FailedRecordRepair plan = plan_failed_record_repair(views);
    if (plan.empty()) return;
    std::vector<std::string> names;
    for (const auto& [i, id] : plan.new_ids) {
        names.emplace_back(trace.name(trace.nodes[i]));
        trace.nodes[i].id = NodeId(id);
    }
    for (const auto& [i, parent] : plan.new_parents) trace.nodes[i].parent = NodeId(parent);
    trace.warn(plan.warning(names));
}

}  // namespace mimic

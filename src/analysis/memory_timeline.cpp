#include "analysis/memory_timeline.h"

#include <algorithm>
#include <map>
#include <unordered_map>

namespace mimic::analysis {
namespace {

struct StorageLife {
    uint64_t bytes = 0;    // the furthest byte any use reaches
    size_t first = 0;      // position among the top-level ops
    size_t last = 0;
    bool resident = false;  // read before anything wrote it
};

struct StorageKey {
    uint64_t storage_id;
    uint32_t device;  // StrId value
    bool operator==(const StorageKey& o) const { return storage_id == o.storage_id && device == o.device; }
};
struct StorageKeyHash {
    size_t operator()(const StorageKey& k) const { return std::hash<uint64_t>()(k.storage_id * 31 + k.device); }
};

using Lives = std::unordered_map<StorageKey, StorageLife, StorageKeyHash>;

void note_uses(const Trace& trace, ValueRange range, size_t position, bool written, Lives& lives) {
    for_each_tensor_index(trace, range, [&](uint32_t index) {
        const TensorMeta& t = trace.tensors[index];
        if (t.undefined || t.itemsize == 0 || t.storage_id == 0) return;
        const uint64_t bytes = (t.offset + t.numel) * t.itemsize;
        auto [it, fresh] = lives.try_emplace(StorageKey{t.storage_id, t.device.value}, StorageLife{});
        StorageLife& life = it->second;
        if (fresh) {
            life.first = position;
            life.resident = !written;
        }
        life.last = position;
        life.bytes = std::max(life.bytes, bytes);
    });
}

}  // namespace

std::vector<MemoryTimeline> memory_timeline(const Trace& trace, const OpNesting& nesting) {
    std::vector<NodeIndex> ops;
    for (NodeIndex n : trace.execution_order())
        if (is_top_level_operator(nesting, n)) ops.push_back(n);

    Lives lives;
    for (size_t i = 0; i < ops.size(); ++i) {
        const Node& node = trace.nodes[ops[i].value];
        note_uses(trace, node.inputs, i, false, lives);
        note_uses(trace, node.outputs, i, true, lives);
    }

    // Per device, a difference array over op positions: +bytes where a life
    // starts, -bytes after it ends.
    std::map<uint32_t, std::vector<int64_t>> deltas;
    std::map<uint32_t, MemoryTimeline> curves;
    for (const auto& [key, life] : lives) {
        std::vector<int64_t>& d = deltas[key.device];
        if (d.empty()) d.assign(ops.size() + 1, 0);
        MemoryTimeline& curve = curves[key.device];
        ++curve.storages;
        const size_t start = life.resident ? 0 : life.first;
        if (life.resident) curve.resident_bytes += life.bytes;
        d[start] += static_cast<int64_t>(life.bytes);
        d[life.last + 1] -= static_cast<int64_t>(life.bytes);
    }

    std::vector<MemoryTimeline> out;
    for (auto& [device, curve] : curves) {
        curve.device = std::string(trace.str(StrId{device}));
        curve.rank = trace.rank;
        const std::vector<int64_t>& d = deltas[device];
        int64_t live = 0;
        curve.points.reserve(ops.size());
        for (size_t i = 0; i < ops.size(); ++i) {
            live += d[i];
            const uint64_t id = trace.nodes[ops[i].value].id.value;
            curve.points.push_back({id, static_cast<uint64_t>(live)});
            if (static_cast<uint64_t>(live) > curve.peak_bytes) {
                curve.peak_bytes = static_cast<uint64_t>(live);
                curve.peak_node_id = id;
            }
        }
        out.push_back(std::move(curve));
    }
    std::sort(out.begin(), out.end(),
              [](const MemoryTimeline& a, const MemoryTimeline& b) { return a.peak_bytes > b.peak_bytes; });
    return out;
}

MemoryNeed memory_need(const std::vector<MemoryTimeline>& curves) {
    MemoryNeed need;
    if (curves.empty()) return need;
    const size_t ops = curves.front().points.size();  // one point per top-level op on every device
    for (const MemoryTimeline& c : curves) need.resident_bytes += c.resident_bytes;
    for (size_t i = 0; i < ops; ++i) {
        uint64_t live = 0;
        for (const MemoryTimeline& c : curves)
            if (i < c.points.size()) live += c.points[i].live_bytes;
        if (live > need.peak_bytes) {
            need.peak_bytes = live;
            need.peak_node_id = curves.front().points[i].node_id;
        }
    }
    return need;
}

MemoryNeed memory_need(const Trace& trace) {
    return memory_need(memory_timeline(trace, compute_op_nesting(trace, classify_nodes(trace))));
}

}  // namespace mimic::analysis

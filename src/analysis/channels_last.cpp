#include "analysis/channels_last.h"

#include <algorithm>
#include <set>
#include <string_view>
#include <utility>
#include <vector>

namespace mimic::analysis {
namespace {

// c10::MemoryFormat's values as the observer writes them.
constexpr int64_t kChannelsLast = 2;
constexpr int64_t kChannelsLast3d = 3;

// Ops whose memory_format argument is their last.
bool converts_layout(std::string_view name) {
    return name == "aten::contiguous" || name == "aten::clone" || name == "aten::to" || name == "aten::_to_copy" ||
           name == "aten::empty_like";
}

}  // namespace

std::optional<ChannelsLastEvidence> channels_last_evidence(const Trace& trace) {
    ChannelsLastEvidence by_format[2];
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        if (node.inputs.count == 0 || !converts_layout(trace.name(node))) continue;
        const Value& last = *trace.value_ptr(node.inputs, node.inputs.count - 1);
        if (last.kind != ValueKind::Int || (last.payload.i != kChannelsLast && last.payload.i != kChannelsLast3d)) continue;
        ChannelsLastEvidence& e = by_format[last.payload.i == kChannelsLast3d ? 1 : 0];
        if (e.ops++ == 0) {
            e.node = n;
            e.format = last.payload.i;
        }
    }
    const ChannelsLastEvidence& best = by_format[1].ops > by_format[0].ops ? by_format[1] : by_format[0];
    if (best.ops == 0) return std::nullopt;
    return best;
}

size_t assume_channels_last_sources(Trace& trace, int64_t format) {
    const uint16_t rank = format == kChannelsLast3d ? 5 : 4;
    std::set<std::pair<uint64_t, uint64_t>> written, changed;
    std::vector<uint32_t> inputs;
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        inputs.clear();
        for_each_tensor_index(trace, node.inputs, [&](uint32_t t) { inputs.push_back(t); });
        for (uint32_t index : inputs) {
            TensorMeta& t = trace.tensors[index];
            const std::pair<uint64_t, uint64_t> key{t.tensor_id, t.storage_id};
            if (t.undefined || t.has_strides || t.rank != rank || written.count(key)) continue;
            // Dense channels-last: the channel dimension (1) innermost, then
            // the spatial ones from the last, then the batch.
            const int64_t* shape = trace.shape(t);
            std::vector<int64_t> strides(rank, 1);
            int64_t step = std::max<int64_t>(shape[1], 1);
            for (int d = rank - 1; d >= 2; --d) {
                strides[size_t(d)] = step;
                step *= std::max<int64_t>(shape[d], 1);
            }
            strides[0] = step;
            set_strides(trace, t, strides.data());
            changed.insert(key);
        }
        for_each_tensor_index(trace, node.outputs, [&](uint32_t t) {
            written.insert({trace.tensors[t].tensor_id, trace.tensors[t].storage_id});
        });
    }
    return changed.size();
}

}  // namespace mimic::analysis

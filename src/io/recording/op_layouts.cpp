#include "io/recording/op_layouts.h"

#include <simdjson.h>

#include <algorithm>

#include "io/recording/recording_dir.h"
#include "support/error.h"
#include "support/json_file.h"

namespace mimic {

namespace {

constexpr size_t kMaxRank = 64;

bool read_ints(simdjson::dom::element e, std::vector<int64_t>& out) {
    simdjson::dom::array a;
    if (e.get_array().get(a) != simdjson::SUCCESS || a.size() > kMaxRank) return false;
    out.clear();
    for (simdjson::dom::element x : a) {
        int64_t v = 0;
        if (x.get_int64().get(v) != simdjson::SUCCESS) return false;
        out.push_back(v);
    }
    return true;
}

// [sizes, strides, offset]: as many strides as sizes, none negative.
bool read_layout(simdjson::dom::element e, RecordedLayout& out) {
    simdjson::dom::array a;
    simdjson::dom::element sizes, strides;
    if (e.get_array().get(a) != simdjson::SUCCESS || a.size() != 3 || a.at(0).get(sizes) != simdjson::SUCCESS ||
        a.at(1).get(strides) != simdjson::SUCCESS)
        return false;
    if (!read_ints(sizes, out.sizes) || !read_ints(strides, out.strides)) return false;
    if (a.at(2).get_int64().get(out.offset) != simdjson::SUCCESS || out.offset < 0) return false;
    if (out.sizes.size() != out.strides.size()) return false;
    for (size_t d = 0; d < out.sizes.size(); ++d)
        if (out.sizes[d] < 0 || out.strides[d] < 0) return false;
    return true;
}

}  // namespace

OpLayouts read_op_layouts(const std::string& path) {
    OpLayouts out;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object doc = parse_json_object_file(path, parser, text);
    simdjson::dom::array ops;
    if (doc["layouts"].get_array().get(ops) != simdjson::SUCCESS)
        fail({path, -1, -1, "layouts"}, "expected a list of [node id, [tensor layouts]] pairs");
    size_t i = 0;
    for (simdjson::dom::element e : ops) {
        const std::string field = "layouts[" + std::to_string(i++) + "]";
        simdjson::dom::array pair, tensors;
        uint64_t node = 0;
        if (e.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
            pair.at(0).get_uint64().get(node) != simdjson::SUCCESS ||
            pair.at(1).get_array().get(tensors) != simdjson::SUCCESS)
            fail({path, -1, -1, field}, "expected [node id, [tensor layouts]]");
        auto& entry = out.ops.emplace_back(node, std::vector<std::optional<RecordedLayout>>{});
        size_t k = 0;
        for (simdjson::dom::element t : tensors) {
            if (t.is_null()) {
                entry.second.emplace_back();
            } else {
                RecordedLayout l;
                if (!read_layout(t, l))
                    fail({path, static_cast<int64_t>(node), -1, field + "[1][" + std::to_string(k) + "]"},
                         "expected null or [sizes, strides, storage offset]: as many strides as sizes (at most 64), "
                         "none negative");
                entry.second.emplace_back(std::move(l));
            }
            ++k;
        }
    }
    return out;
}

std::optional<OpLayouts> read_op_layouts_beside(const std::string& meta_path) {
    const std::optional<std::string> path = recording_file_beside(meta_path, "op_layouts.json");
    if (!path) return std::nullopt;
    return read_op_layouts(*path);
}

LayoutsApplied apply_op_layouts(Trace& trace, const OpLayouts& layouts) {
    LayoutsApplied applied;
    std::vector<uint32_t> tensors;
    for (const auto& [node_id, recorded] : layouts.ops) {
        const NodeIndex n = trace.find(NodeId(node_id));
        if (n == kNoNode) {
            ++applied.mismatched_ops;
            continue;
        }
        tensors.clear();
        for_each_tensor_index(trace, trace.nodes[n.value].inputs, [&](uint32_t t) { tensors.push_back(t); });
        bool match = tensors.size() == recorded.size();
        for (size_t k = 0; match && k < tensors.size(); ++k) {
            const TensorMeta& t = trace.tensors[tensors[k]];
            const std::optional<RecordedLayout>& r = recorded[k];
            if (!r) {
                match = t.undefined;
                continue;
            }
            match = !t.undefined && r->sizes.size() == t.rank &&
                    std::equal(r->sizes.begin(), r->sizes.end(), trace.shape(t));
        }
        if (!match) {
            ++applied.mismatched_ops;
            continue;
        }
        ++applied.ops;
        for (size_t k = 0; k < tensors.size(); ++k) {
            TensorMeta& t = trace.tensors[tensors[k]];
            if (!recorded[k] || t.has_strides) continue;
            set_strides(trace, t, recorded[k]->strides.data());
            ++applied.tensors;
        }
    }
    return applied;
}

}  // namespace mimic

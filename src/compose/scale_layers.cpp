#include "compose/scale_layers.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "compose/layer_analysis.h"
#include "support/error.h"

namespace mimic::compose {
namespace {

class LayerTrimmer {
public:
    LayerTrimmer(EtDocument& doc, int64_t keep) : a_(doc, "--keep-layers"), keep_(keep) {
        if (keep_ > static_cast<int64_t>(a_.count()))
            fail({doc.path(), static_cast<int64_t>(a_.first_layer_node()), -1, "--keep-layers"},
                 "the trace has " + std::to_string(a_.count()) + " repeated layers; cannot keep " + std::to_string(keep_));
        a_.require_alike(static_cast<size_t>(keep_ - 1), a_.count() - 1);
    }

    LayerStats run() {
        stats_.layers_before = static_cast<int64_t>(a_.count());
        stats_.layers_after = keep_;
        stats_.units_per_layer = static_cast<int64_t>(a_.period());
        stats_.first_layer_node = a_.first_layer_node();
        stats_.layer_ops = a_.layer_ops();
        rewire();
        for (const LayerUnit& unit : a_.units())
            if (unit.all_layers)
                for (size_t i : unit.subtree) {
                    trim_lists(a_.doc().inputs(a_.nodes()[i]));
                    trim_lists(a_.doc().outputs(a_.nodes()[i]));
                }
        remove();
        return stats_;
    }

private:
    bool removed(size_t node) const { return a_.block_of(node) >= keep_; }
    bool made_by_removed(const Producer& p) const { return p.first != SIZE_MAX && removed(p.first); }

    // What a kept op read from a dropped one: the head reads the last kept
    // layer's output where it read the last layer's; the last kept layer's
    // backward reads the gradient the last layer's backward read.
    void rewire() {
        const int64_t dropped = static_cast<int64_t>(a_.count()) - keep_;
        // Replacements are read from the original values, before any rewrite.
        std::vector<std::pair<JsonValue*, JsonValue>> rewrites;
        for (size_t i : a_.order()) {
            if (removed(i) || a_.place(i).unit == SIZE_MAX) continue;
            const LayerUnit& unit = a_.units()[a_.place(i).unit];
            if (unit.all_layers) continue;  // its dropped layers' elements are taken out instead
            const std::vector<JsonValue*> inputs = a_.tensors_of(i, false);
            for (size_t q = 0; q < inputs.size(); ++q) {
                const Producer source = a_.made_by(i)[q];
                // A scalar's producer is not followed (is_scalar_tensor).
                if (!made_by_removed(source) || is_scalar_tensor(*inputs[q])) continue;
                const JsonValue* replacement = nullptr;
                if (unit.block >= 0) {
                    const size_t twin = a_.counterpart(i, unit.block + dropped);
                    if (twin != SIZE_MAX) {
                        const std::vector<JsonValue*> theirs = a_.tensors_of(twin, false);
                        if (q < theirs.size() && !made_by_removed(a_.made_by(twin)[q])) replacement = theirs[q];
                    }
                } else {
                    const int64_t b = a_.block_of(source.first) - dropped;
                    const size_t twin = b >= 0 ? a_.counterpart(source.first, b) : SIZE_MAX;
                    if (twin != SIZE_MAX) {
                        const std::vector<JsonValue*> outs = a_.tensors_of(twin, true);
                        if (source.second < outs.size()) replacement = outs[source.second];
                    }
                }
                if (replacement) {
                    rewrites.emplace_back(inputs[q], *replacement);
                    ++stats_.inputs_rewired;
                } else {
                    ++stats_.inputs_left;
                }
            }
        }
        for (auto& [target, value] : rewrites) *target = std::move(value);
    }

    void remove() {
        std::vector<JsonValue>& nodes = a_.nodes();
        std::vector<JsonValue> kept;
        kept.reserve(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i) {
            if (removed(i))
                ++stats_.nodes_removed;
            else
                kept.push_back(std::move(nodes[i]));
        }
        nodes = std::move(kept);
    }

    // Drops the dropped layers' tensors from a side's tensor lists.
    void trim_lists(const EtValues& side) {
        if (!side.values || !side.values->is_array()) return;
        for (size_t v = 0; v < side.values->items().size(); ++v) {
            const std::vector<JsonValue>& list = side.values->items()[v].items();
            std::vector<size_t> kept;
            for (size_t e = 0; e < list.size(); ++e) {
                auto it = is_tensor_value(list[e]) ? a_.persistent_block().find(list[e].items()[1].as_int())
                                                   : a_.persistent_block().end();
                if (it == a_.persistent_block().end() || it->second < keep_) kept.push_back(e);
            }
            if (kept.size() == list.size()) continue;
            stats_.list_elements_removed += list.size() - kept.size();
            std::vector<JsonValue> values;
            for (size_t e : kept) values.push_back(list[e]);
            rebuild_tensor_list(side, v, kept, std::move(values));
        }
    }

    LayerAnalysis a_;
    int64_t keep_;
    LayerStats stats_;
};

}  // namespace

LayerStats keep_layers(EtDocument& doc, int64_t keep) {
    if (keep < 1) fail({doc.path(), -1, -1, "--keep-layers"}, "keep at least one layer");
    return LayerTrimmer(doc, keep).run();
}

}  // namespace mimic::compose

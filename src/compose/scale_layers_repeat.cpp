// `mimic scale --repeat-layers K`: the step with K layers, the layers past
// the recorded N copies of the last one (compose/scale_layers.h).
#include <algorithm>
#include <map>
#include <tuple>
#include <utility>
#include <vector>

#include "compose/layer_analysis.h"
#include "compose/scale_layers.h"
#include "support/error.h"

namespace mimic::compose {
namespace {

// Where a node goes in the new step: originals at their own id; copies just
// after (or before) an original, in layer order, keeping their source's order.
using SortKey = std::tuple<int64_t, int64_t, int64_t>;

JsonValue same_kind(const JsonValue& like, int64_t value) {
    if (like.is_string()) return JsonValue::of_string(std::to_string(value));
    return value < 0 ? JsonValue::of_int(value) : JsonValue::of_uint(static_cast<uint64_t>(value));
}

class LayerRepeater {
public:
    LayerRepeater(EtDocument& doc, int64_t layers) : a_(doc, "--repeat-layers"), layers_(layers) {
        const int64_t n = static_cast<int64_t>(a_.count());
        if (layers_ <= n)
            fail({doc.path(), static_cast<int64_t>(a_.first_layer_node()), -1, "--repeat-layers"},
                 "the trace has " + std::to_string(n) + " repeated layers; --repeat-layers " + std::to_string(layers_) +
                     " must be more (--keep-layers trims)");
        last_ = n - 1;
        prev_ = n - 2;
        a_.require_alike(static_cast<size_t>(prev_), static_cast<size_t>(last_));
        // Fresh ids above every node, tensor and storage id, and sequence numbers above every one.
        for (size_t i = 0; i < a_.nodes().size(); ++i) {
            const JsonValue& node = a_.nodes()[i];
            next_id_ = std::max(next_id_, EtDocument::id(node));
            for (bool outputs : {false, true})
                for (const JsonValue* t : a_.tensors_of(i, outputs))
                    next_id_ = std::max({next_id_, t->items()[0].as_int(), t->items()[1].as_int()});
            if (const JsonValue* s = EtDocument::field(node, "seq_id"); s && s->is_integer()) next_seq_ = std::max(next_seq_, s->as_int());
        }
        ++next_id_;
        ++next_seq_;
    }

    LayerStats run() {
        LayerStats stats;
        stats.layers_before = static_cast<int64_t>(a_.count());
        stats.layers_after = layers_;
        stats.units_per_layer = static_cast<int64_t>(a_.period());
        stats.first_layer_node = a_.first_layer_node();
        stats.layer_ops = a_.layer_ops();
        plan_places();
        // Per copied layer, its nodes in execution order, then the rewiring of
        // the originals that now meet the copies.
        for (int64_t l = last_ + 1; l < layers_; ++l) copy_layer(l, stats);
        rewire_originals(stats);
        for (const LayerUnit& u : a_.units())
            if (u.all_layers)
                for (size_t i : u.subtree) {
                    lengthen_lists(a_.doc().inputs(a_.nodes()[i]), stats);
                    lengthen_lists(a_.doc().outputs(a_.nodes()[i]), stats);
                }
        renumber();
        return stats;
    }

private:
    int64_t fresh() { return next_id_++; }

    // A tensor of copied layer l: fresh ids for what layer `last_` made or
    // holds (its activations, parameters, gradients, optimizer state).
    JsonValue mapped(int64_t l, const JsonValue& t) {
        if (l == last_) return t;
        JsonValue out = t;
        auto& tensors = tensor_map_[l];
        auto& storages = storage_map_[l];
        const int64_t tid = t.items()[0].as_int(), sid = t.items()[1].as_int();
        auto ti = tensors.find(tid);
        if (ti == tensors.end()) ti = tensors.emplace(tid, fresh()).first;
        auto si = storages.find(sid);
        if (si == storages.end()) si = storages.emplace(sid, fresh()).first;
        out.items()[0] = same_kind(t.items()[0], ti->second);
        out.items()[1] = same_kind(t.items()[1], si->second);
        return out;
    }

    // What the node at `node` (of layer last_) reads at input q in layer l.
    JsonValue input_in_layer(int64_t l, size_t node, size_t q, const JsonValue& value) {
        const Producer p = a_.made_by(node)[q];
        const int64_t from = p.first == SIZE_MAX ? -1 : a_.block_of(p.first);
        if (is_scalar_tensor(value)) return value;
        if (from == last_) return mapped(l, value);
        if (from == prev_ && p.first != SIZE_MAX) {
            // The previous layer's output: layer l-1's version of it.
            const size_t twin = a_.counterpart(p.first, last_);
            if (twin != SIZE_MAX) {
                const std::vector<JsonValue*> outs = a_.tensors_of(twin, true);
                if (p.second < outs.size()) return mapped(l - 1, *outs[p.second]);
            }
            return value;
        }
        if (from < 0 && p.first != SIZE_MAX && a_.units()[a_.place(node).unit].kind == UnitKind::Backward)
            return gradient_from_next(l, node, q, value);
        if (p.first == SIZE_MAX) {
            auto pb = a_.persistent_block().find(value.items()[1].as_int());
            if (pb != a_.persistent_block().end() && pb->second == last_) return mapped(l, value);
        }
        return value;
    }

    // Layer l's backward reads the gradient the layer after it made; the
    // last layer's (l = layers_-1) reads what the recorded last layer read.
    // The recorded last layer (l = last_) reads the first copy's.
    JsonValue gradient_from_next(int64_t l, size_t node, size_t q, const JsonValue& value) {
        if (l == layers_ - 1) return value;
        const size_t twin = a_.counterpart(node, prev_);
        if (twin == SIZE_MAX) return value;
        const std::vector<JsonValue*> theirs = a_.tensors_of(twin, false);
        if (q >= theirs.size()) return value;
        const Producer tp = a_.made_by(twin)[q];
        if (tp.first == SIZE_MAX || a_.block_of(tp.first) != last_) return value;
        return mapped(l + 1, *theirs[q]);
    }

    // Where each of layer last_'s units is copied to: after its group of
    // units (zero_grad, forward, optimizer), or before it in backward,
    // which runs from the last layer down.
    void plan_places() {
        const auto& units = a_.units();
        size_t first_backward = SIZE_MAX, last_backward = 0;
        for (size_t u = 0; u < units.size(); ++u)
            if (units[u].kind == UnitKind::Backward) {
                first_backward = std::min(first_backward, u);
                last_backward = std::max(last_backward, u);
            }
        auto region = [&](size_t u) {
            if (units[u].kind == UnitKind::Forward) return 1;
            if (u < first_backward) return 0;
            return u <= last_backward ? 2 : 3;
        };
        std::map<int, std::pair<size_t, size_t>> span;  // region -> first and last unit of layer last_
        for (size_t u = 0; u < units.size(); ++u) {
            if (units[u].block != last_) continue;
            auto [it, fresh] = span.emplace(region(u), std::make_pair(u, u));
            if (!fresh) it->second.second = u;
        }
        for (size_t u = 0; u < units.size(); ++u) {
            if (units[u].block != last_) continue;
            const int r = region(u);
            const auto [first, last] = span[r];
            int64_t anchor;
            if (r == 2) {
                anchor = EtDocument::id(a_.nodes()[units[first].node]) - 1;
            } else {
                anchor = 0;
                for (size_t i : units[last].subtree) anchor = std::max(anchor, EtDocument::id(a_.nodes()[i]));
            }
            unit_anchor_[u] = {anchor, r == 2};
        }
    }

    void copy_layer(int64_t l, LayerStats& stats) {
        std::map<int64_t, int64_t> seq_map;
        std::map<int64_t, size_t> copy_by_id;           // source node id -> index in copies_
        std::vector<std::pair<size_t, size_t>> made;    // (source node, index in copies_)
        for (size_t i : a_.order()) {
            if (a_.block_of(i) != last_) continue;
            const size_t u = a_.place(i).unit;
            const auto [anchor, backward] = unit_anchor_.at(u);
            // Backward copies go last layer first: layers_-1 nearest the head.
            const int64_t rank = backward ? layers_ - l : l - last_;
            JsonValue node = a_.nodes()[i];
            Copy c;
            c.key = {anchor, rank, EtDocument::id(a_.nodes()[i])};
            // Inputs, then outputs (an output that is an input's storage keeps
            // that input's replacement: views and in-place ops).
            std::map<int64_t, JsonValue> by_storage;
            const std::vector<JsonValue*> ins = tensor_values(a_.doc(), node, false);
            const std::vector<JsonValue*> source_ins = a_.tensors_of(i, false);
            for (size_t q = 0; q < ins.size() && q < source_ins.size(); ++q) {
                JsonValue replaced = input_in_layer(l, i, q, *source_ins[q]);
                by_storage.emplace(source_ins[q]->items()[1].as_int(), replaced);
                *ins[q] = std::move(replaced);
            }
            for (JsonValue* out : tensor_values(a_.doc(), node, true)) {
                const int64_t sid = out->items()[1].as_int();
                auto same = by_storage.find(sid);
                if (is_scalar_tensor(*out)) continue;
                // A view or an in-place result lives in its input's storage,
                // whichever layer's that is.
                if (same != by_storage.end()) storage_map_[l][sid] = same->second.items()[1].as_int();
                *out = mapped(l, *out);
            }
            if (JsonValue* s = EtDocument::field(node, "seq_id"); s && s->is_integer() && s->as_int() >= 0) {
                auto it = seq_map.find(s->as_int());
                if (it == seq_map.end()) it = seq_map.emplace(s->as_int(), next_seq_++).first;
                *s = same_kind(*s, it->second);
            }
            c.node = std::move(node);
            copy_by_id[EtDocument::id(a_.nodes()[i])] = copies_.size();
            made.emplace_back(i, copies_.size());
            copies_.push_back(std::move(c));
            ++stats.nodes_added;
        }
        // Parents: below a unit's own node, the parent's copy; the unit's
        // node keeps the original's parent (a label or the thread root).
        for (const auto& [source, index] : made) {
            if (source == a_.units()[a_.place(source).unit].node) continue;
            auto p = copy_by_id.find(a_.doc().parent(a_.nodes()[source]));
            if (p != copy_by_id.end()) copies_[index].parent_copy = p->second;
        }
    }

    // The recorded last layer's backward now reads the gradient of the first
    // copy's backward; the head and what follows the layers read the last
    // copy's outputs.
    void rewire_originals(LayerStats& stats) {
        std::vector<std::pair<JsonValue*, JsonValue>> rewrites;
        for (size_t i : a_.order()) {
            const int64_t block = a_.block_of(i);
            // A foreach op keeps the last layer's tensors and gets the copies' beside them.
            if (a_.place(i).unit != SIZE_MAX && a_.units()[a_.place(i).unit].all_layers) continue;
            const std::vector<JsonValue*> inputs = a_.tensors_of(i, false);
            for (size_t q = 0; q < inputs.size(); ++q) {
                if (is_scalar_tensor(*inputs[q])) continue;
                const Producer p = a_.made_by(i)[q];
                if (p.first == SIZE_MAX) continue;
                const int64_t from = a_.block_of(p.first);
                if (block == last_ && from < 0 && a_.units()[a_.place(i).unit].kind == UnitKind::Backward) {
                    // As a copy's backward reads the next copy's gradient (gradient_from_next).
                    JsonValue next = gradient_from_next(last_, i, q, *inputs[q]);
                    if (next.items()[0].as_int() == inputs[q]->items()[0].as_int() &&
                        next.items()[1].as_int() == inputs[q]->items()[1].as_int())
                        continue;
                    rewrites.emplace_back(inputs[q], std::move(next));
                    ++stats.inputs_rewired;
                } else if (block < 0 && from == last_) {
                    rewrites.emplace_back(inputs[q], mapped(layers_ - 1, *inputs[q]));
                    ++stats.inputs_rewired;
                }
            }
        }
        for (auto& [target, value] : rewrites) *target = std::move(value);
    }

    // A foreach op's lists (PyTorch 2.x's optimizer) get the copies'
    // tensors after the last layer's, layer by layer.
    void lengthen_lists(const EtValues& side, LayerStats& stats) {
        if (!side.values || !side.values->is_array()) return;
        for (size_t v = 0; v < side.values->items().size(); ++v) {
            const std::vector<JsonValue>& list = side.values->items()[v].items();
            std::vector<size_t> mine;
            for (size_t e = 0; e < list.size(); ++e) {
                if (!is_tensor_value(list[e])) continue;
                auto it = a_.persistent_block().find(list[e].items()[1].as_int());
                if (it != a_.persistent_block().end() && it->second == last_) mine.push_back(e);
            }
            if (mine.empty()) continue;
            std::vector<size_t> picks;
            std::vector<JsonValue> values;
            for (size_t e = 0; e <= mine.back(); ++e) picks.push_back(e), values.push_back(list[e]);
            for (int64_t l = last_ + 1; l < layers_; ++l)
                for (size_t e : mine) picks.push_back(e), values.push_back(mapped(l, list[e]));
            for (size_t e = mine.back() + 1; e < list.size(); ++e) picks.push_back(e), values.push_back(list[e]);
            stats.list_elements_added += values.size() - list.size();
            rebuild_tensor_list(side, v, picks, std::move(values));
        }
    }

    // Every node in its new place, ids renumbered in execution order and
    // parents pointed at the new ids.
    void renumber() {
        std::vector<JsonValue>& nodes = a_.nodes();
        struct Entry {
            SortKey key;
            bool copy;
            size_t index;
        };
        std::vector<Entry> entries;
        for (size_t i = 0; i < nodes.size(); ++i) entries.push_back({{EtDocument::id(nodes[i]), 0, 0}, false, i});
        for (size_t c = 0; c < copies_.size(); ++c) entries.push_back({copies_[c].key, true, c});
        std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
        std::map<int64_t, int64_t> original_id;  // old id -> new id
        std::vector<int64_t> copy_id(copies_.size());
        int64_t next = 1;
        for (const Entry& e : entries) (e.copy ? copy_id[e.index] : original_id[EtDocument::id(nodes[e.index])]) = next++;
        std::vector<JsonValue> out;
        out.reserve(entries.size());
        for (const Entry& e : entries) {
            JsonValue node = e.copy ? std::move(copies_[e.index].node) : std::move(nodes[e.index]);
            const JsonValue& like = *node.find("id");
            const int64_t old_parent = a_.doc().parent(node);
            int64_t parent = old_parent;
            if (e.copy && copies_[e.index].parent_copy != SIZE_MAX)
                parent = copy_id[copies_[e.index].parent_copy];
            else if (auto it = original_id.find(old_parent); it != original_id.end())
                parent = it->second;
            node["id"] = same_kind(like, e.copy ? copy_id[e.index] : original_id[EtDocument::id(node)]);
            if (old_parent != 0) a_.doc().set_parent(node, parent);
            out.push_back(std::move(node));
        }
        nodes = std::move(out);
    }

    struct Copy {
        SortKey key;
        size_t parent_copy = SIZE_MAX;  // index of the copy that is this one's parent, if in the unit
        JsonValue node;
    };

    LayerAnalysis a_;
    int64_t layers_;
    int64_t last_ = 0, prev_ = 0;
    int64_t next_id_ = 0, next_seq_ = 0;
    std::map<size_t, std::pair<int64_t, bool>> unit_anchor_;  // unit -> (sort anchor, in backward)
    std::map<int64_t, std::map<int64_t, int64_t>> tensor_map_, storage_map_;  // layer -> old id -> new id
    std::vector<Copy> copies_;
};

}  // namespace

LayerStats repeat_layers(EtDocument& doc, int64_t layers) { return LayerRepeater(doc, layers).run(); }

}  // namespace mimic::compose

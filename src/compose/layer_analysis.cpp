#include "compose/layer_analysis.h"

#include <algorithm>
#include <functional>
#include <set>

#include "support/error.h"
#include "trace/value_types.h"

namespace mimic::compose {
namespace {

constexpr std::string_view kBackwardWrapper = "autograd::engine::evaluate_function";

using StorageKey = std::pair<int64_t, int64_t>;  // storage id, generation

template <typename Fn>
void for_each_tensor(EtDocument& doc, JsonValue& node, bool outputs, Fn&& fn) {
    const EtValues side = outputs ? doc.outputs(node) : doc.inputs(node);
    visit_tensors(side, [&](const EtTensor& t) { fn(t); });
}

// Storages followed from unit to unit: not scalars, and not "no storage".
bool follows(const EtTensor& t) { return t.value.items()[1].as_int() > 0 && !is_scalar_tensor(t.value); }

bool is_backward_wrapper(std::string_view name) { return name.substr(0, kBackwardWrapper.size()) == kBackwardWrapper; }

}  // namespace

LayerAnalysis::LayerAnalysis(EtDocument& doc, const std::string& option) : doc_(doc), nodes_(doc.nodes()), option_(option) {
    index_nodes();
    collect_units();
    find_run();
    link_backward();
    for (int pass = 0; pass < 2; ++pass) follow_storages();
    place_scalar_units();
    group_blocks();
    record_producers();
}

void LayerAnalysis::fail_at(size_t node, const std::string& field, const std::string& message) const {
    fail({doc_.path(), EtDocument::id(nodes_[node]), -1, field}, message);
}

bool LayerAnalysis::is_unit(const JsonValue& n) {
    return EtDocument::is_operator(n) || is_backward_wrapper(EtDocument::name(n));
}

void LayerAnalysis::index_nodes() {
    std::unordered_map<int64_t, size_t> by_id;
    for (size_t i = 0; i < nodes_.size(); ++i) by_id[EtDocument::id(nodes_[i])] = i;
    children_.assign(nodes_.size(), {});
    for (size_t i = 0; i < nodes_.size(); ++i) {
        auto p = by_id.find(doc_.parent(nodes_[i]));
        if (p != by_id.end() && p->second != i) children_[p->second].push_back(i);
    }
    for (auto& c : children_)
        std::sort(c.begin(), c.end(), [&](size_t a, size_t b) { return EtDocument::id(nodes_[a]) < EtDocument::id(nodes_[b]); });
}

void LayerAnalysis::collect_units() {
    std::vector<size_t> stack;
    for (size_t i = 0; i < nodes_.size(); ++i)
        if (is_root_label(EtDocument::name(nodes_[i]))) stack.push_back(i);
    std::vector<uint8_t> seen(nodes_.size(), 0);
    while (!stack.empty()) {
        const size_t i = stack.back();
        stack.pop_back();
        if (seen[i]) continue;
        seen[i] = 1;
        if (is_unit(nodes_[i])) {
            units_.push_back(LayerUnit{i, {}, 0, -1, false, false, false, UnitKind::Other});
            continue;
        }
        for (size_t c : children_[i]) stack.push_back(c);
    }
    std::sort(units_.begin(), units_.end(),
              [&](const LayerUnit& a, const LayerUnit& b) { return EtDocument::id(nodes_[a.node]) < EtDocument::id(nodes_[b.node]); });
    place_.assign(nodes_.size(), LayerPlace{});
    for (size_t u = 0; u < units_.size(); ++u) {
        LayerUnit& unit = units_[u];
        std::vector<size_t> stack2{unit.node};
        std::string text;
        while (!stack2.empty()) {
            const size_t i = stack2.back();
            stack2.pop_back();
            place_[i] = LayerPlace{u, unit.subtree.size()};
            unit.subtree.push_back(i);
            text += EtDocument::name(nodes_[i]);
            const EtValues in = doc_.inputs(nodes_[i]);
            if (in.shapes) text += to_json_text(*in.shapes);
            text += ';';
            for (auto c = children_[i].rbegin(); c != children_[i].rend(); ++c) stack2.push_back(*c);
        }
        unit.signature = std::hash<std::string>()(text);
    }
}

// The longest run of identical consecutive blocks among the forward's units.
void LayerAnalysis::find_run() {
    forward_end_ = units_.size();
    for (size_t u = 0; u < units_.size(); ++u)
        if (is_backward_wrapper(EtDocument::name(nodes_[units_[u].node]))) {
            forward_end_ = u;
            break;
        }
    struct Run {
        size_t start = 0, period = 0, count = 0;
    };
    std::vector<Run> runs;
    // Every maximal run is a candidate: zero_grad's per-parameter ops
    // repeat per layer too, but backward differentiates none of them.
    for (size_t p = 1; p * 2 <= forward_end_; ++p) {
        size_t i = 0;
        while (i + p < forward_end_) {
            if (units_[i].signature != units_[i + p].signature) {
                ++i;
                continue;
            }
            size_t r = 0;
            while (i + r + p < forward_end_ && units_[i + r].signature == units_[i + r + p].signature) ++r;
            const size_t count = r / p + 1;
            // Ends aligned with the matching: a unit before the run that
            // happens to equal a layer's last one is not part of it.
            const size_t start = i + (r + p - count * p);
            if (count >= 2) runs.push_back(Run{start, p, count});
            i += r;
        }
    }
    std::stable_sort(runs.begin(), runs.end(),
                     [](const Run& a, const Run& b) { return a.count * a.period > b.count * b.period; });
    for (const Run& r : runs) {
        if (!backward_reaches_every_block(r.start, r.period, r.count)) continue;
        run_start_ = r.start, period_ = r.period, count_ = r.count;
        break;
    }
    if (count_ == 0)
        fail({doc_.path(), -1, -1, option_},
             "no repeated layer found: the forward has no run of two or more identical blocks of ops that backward differentiates");
    for (size_t u = run_start_; u < run_start_ + count_ * period_; ++u) {
        units_[u].block = static_cast<int64_t>((u - run_start_) / period_);
        units_[u].fixed = true;
        units_[u].kind = UnitKind::Forward;
    }
}

uint64_t LayerAnalysis::first_layer_node() const { return static_cast<uint64_t>(EtDocument::id(nodes_[units_[run_start_].node])); }

std::string LayerAnalysis::layer_ops() const {
    std::string out;
    for (size_t u = run_start_; u < run_start_ + period_; ++u)
        out += (out.empty() ? "" : ", ") + std::string(EtDocument::name(nodes_[units_[u].node]));
    return out;
}

std::vector<int64_t> LayerAnalysis::seq_ids(const LayerUnit& u) const {
    std::vector<int64_t> out;
    for (size_t i : u.subtree) {
        if (const int64_t s = EtDocument::seq_id(nodes_[i]); s >= 0) out.push_back(s);
    }
    return out;
}

// Sequence number -> block of the latest forward unit that recorded it
// (an op that makes no autograd node records the counter unchanged, so
// the op that made the node is the last one with its number).
std::map<int64_t, int64_t> LayerAnalysis::seq_blocks(size_t start, size_t period, size_t count) const {
    std::map<int64_t, int64_t> blocks;
    for (size_t u = 0; u < forward_end_; ++u) {
        const int64_t b = u >= start && u < start + period * count ? static_cast<int64_t>((u - start) / period) : -1;
        for (int64_t s : seq_ids(units_[u])) blocks[s] = b;
    }
    return blocks;
}

bool LayerAnalysis::backward_reaches_every_block(size_t start, size_t period, size_t count) const {
    const auto blocks = seq_blocks(start, period, count);
    std::vector<uint8_t> reached(count, 0);
    for (size_t u = forward_end_; u < units_.size(); ++u)
        for (int64_t s : seq_ids(units_[u])) {
            auto it = blocks.find(s);
            if (it != blocks.end() && it->second >= 0) reached[static_cast<size_t>(it->second)] = 1;
        }
    return std::all_of(reached.begin(), reached.end(), [](uint8_t r) { return r != 0; });
}

void LayerAnalysis::link_backward() {
    const auto blocks = seq_blocks(run_start_, period_, count_);
    for (size_t u = forward_end_; u < units_.size(); ++u) {
        std::set<int64_t> found;
        bool linked = false;
        for (int64_t s : seq_ids(units_[u])) {
            auto it = blocks.find(s);
            if (it == blocks.end()) continue;
            linked = true;
            if (it->second >= 0) found.insert(it->second);
        }
        if (!linked) continue;
        if (found.size() > 1)
            fail_at(units_[u].node, "seq_id", "differentiates ops of layers " + std::to_string(*found.begin()) + " and " +
                                                  std::to_string(*found.rbegin()) + " at once");
        units_[u].fixed = true;
        units_[u].kind = UnitKind::Backward;
        units_[u].block = found.empty() ? -1 : *found.begin();
    }
}

// Units with no autograd link take the block of the parameters,
// gradients and optimizer state they touch; what they make takes theirs.
// 1.13's observer names a storage by its address, which a later
// allocation reuses: a storage made afresh (first seen in a unit as an
// output of an op that did not read it) starts a new generation, so a
// freed temporary's block does not pass to the next tensor at its address.
void LayerAnalysis::follow_storages() {
    std::map<int64_t, int64_t> generation;
    std::map<int64_t, std::set<int64_t>> made_tensors;  // storage -> tensor ids ops gave it in this generation
    for (size_t u = 0; u < units_.size(); ++u) {
        LayerUnit& unit = units_[u];
        // The forward outside the layers (the head, the loss, a metric)
        // may read the last layer's output and is no layer's work; there
        // only parameters, gradients and state (zero_grad's) place a unit.
        const bool by_state_only = u < forward_end_;
        std::set<int64_t> seen;
        std::set<StorageKey> touched, made, read_first;
        for (size_t i : unit.subtree) {
            for_each_tensor(doc_, nodes_[i], false, [&](const EtTensor& t) {
                if (!follows(t)) return;
                const int64_t s = t.value.items()[1].as_int();
                // A tensor no op made at an address ops used in the step:
                // Python allocated it (a wrapped scalar, torch.tensor()).
                const int64_t tid = t.value.items()[0].as_int();
                if (generation[s] > 0 && !seen.count(s) && !made_tensors[s].count(tid)) {
                    ++generation[s];
                    made_tensors[s] = {tid};
                }
                seen.insert(s);
                const StorageKey k{s, generation[s]};
                touched.insert(k);
                if (!storage_made_.count(k)) read_first.insert(k);
            });
            for_each_tensor(doc_, nodes_[i], true, [&](const EtTensor& t) {
                if (!follows(t)) return;
                const int64_t s = t.value.items()[1].as_int();
                // Made here only when nothing in the unit read it: a
                // view or an in-place op's output is its input's storage.
                const bool fresh = seen.insert(s).second;
                if (fresh) {
                    ++generation[s];
                    made_tensors[s].clear();
                }
                made_tensors[s].insert(t.value.items()[0].as_int());
                const StorageKey k{s, generation[s]};
                touched.insert(k);
                if (fresh) made.insert(k);
            });
        }
        unit.scalars_only = touched.empty();
        if (!unit.fixed) {
            std::set<int64_t> blocks;
            for (const StorageKey& k : touched) {
                if (by_state_only && (k.second != 0 || storage_made_.count(k))) continue;
                auto it = storage_block_.find(k);
                if (it != storage_block_.end() && it->second >= 0) blocks.insert(it->second);
            }
            // A foreach op (the optimizer of PyTorch 2.x) takes lists of
            // every parameter: it stays, and loses the dropped layers'
            // elements.
            unit.all_layers = EtDocument::name(nodes_[unit.node]).rfind("aten::_foreach_", 0) == 0;
            if (unit.all_layers) blocks.clear();
            if (blocks.size() > 1)
                fail_at(unit.node, "inputs", "touches the tensors of layers " + std::to_string(*blocks.begin()) + " and " +
                                                 std::to_string(*blocks.rbegin()) +
                                                 " at once (a flat gradient bucket, as DDP keeps): its layers cannot be told apart");
            unit.block = blocks.empty() ? -1 : *blocks.begin();
        }
        if (unit.block < 0) {
            for (const StorageKey& k : made) storage_made_.insert(k);
            continue;
        }
        // A layer's parameters and state (read before anything made
        // them) and what it makes are the layer's.
        for (const StorageKey& k : read_first) {
            storage_block_.emplace(k, unit.block);
            if (k.second == 0) persistent_block_.emplace(k.first, unit.block);
        }
        for (const StorageKey& k : made) {
            storage_block_[k] = unit.block;
            storage_made_.insert(k);
        }
    }
}

// A unit that touches scalars only (AdamW's step_t += 1 and step_t.item()
// for each parameter) is placed with the next unit under the same parent
// that touches tensors: an optimizer works parameter by parameter.
void LayerAnalysis::place_scalar_units() {
    for (size_t u = 0; u < units_.size(); ++u) {
        if (units_[u].fixed || !units_[u].scalars_only) continue;
        const int64_t parent = doc_.parent(nodes_[units_[u].node]);
        for (size_t v = u + 1; v < units_.size(); ++v) {
            if (doc_.parent(nodes_[units_[v].node]) != parent) break;
            if (units_[v].scalars_only && !units_[v].fixed) continue;
            units_[u].block = units_[v].block;
            break;
        }
    }
}

void LayerAnalysis::group_blocks() {
    layer_units_.assign(count_, {});
    for (size_t u = 0; u < units_.size(); ++u)
        if (units_[u].block >= 0) layer_units_[static_cast<size_t>(units_[u].block)][units_[u].kind].push_back(u);
    for (auto& layer : layer_units_)
        for (UnitKind kind : {UnitKind::Forward, UnitKind::Backward, UnitKind::Other}) layer[kind];
}

// Layers are paired op by op only where a trim or a copy rewires between
// them, so only those must have the same work. (The first layer of a stack
// often differs in backward: its input needs no gradient.)
void LayerAnalysis::require_alike(size_t a, size_t b) const {
    static const char* kind_names[] = {"forward", "backward", "optimizer and gradient"};
    if (a == b) return;
    for (UnitKind kind : {UnitKind::Forward, UnitKind::Backward, UnitKind::Other}) {
        const auto& mine = layer_units_[a].at(kind);
        const auto& last = layer_units_[b].at(kind);
        if (mine.size() != last.size())
            fail({doc_.path(), EtDocument::id(nodes_[units_[(last.empty() ? mine : last).front()].node]), -1, option_},
                 "layer " + std::to_string(b) + " has " + std::to_string(last.size()) + " " +
                     kind_names[static_cast<int>(kind)] + " ops, layer " + std::to_string(a) + " has " +
                     std::to_string(mine.size()) + ": the layers are not alike");
    }
}

int64_t LayerAnalysis::block_of(size_t node) const {
    const LayerPlace& p = place_[node];
    return p.unit == SIZE_MAX ? -1 : units_[p.unit].block;
}

// The node at the same place in layer `block`, or SIZE_MAX when that
// layer's unit there has another shape.
size_t LayerAnalysis::counterpart(size_t node, int64_t block) const {
    const LayerPlace& p = place_[node];
    const LayerUnit& unit = units_[p.unit];
    const auto& list = layer_units_[static_cast<size_t>(unit.block)].at(unit.kind);
    const size_t j = static_cast<size_t>(std::find(list.begin(), list.end(), p.unit) - list.begin());
    const auto& theirs = layer_units_[static_cast<size_t>(block)].at(unit.kind);
    if (j >= theirs.size()) return SIZE_MAX;
    const LayerUnit& other = units_[theirs[j]];
    if (other.subtree.size() != unit.subtree.size()) return SIZE_MAX;
    return other.subtree[p.index];
}

std::vector<JsonValue*> LayerAnalysis::tensors_of(size_t node, bool outputs) { return tensor_values(doc_, nodes_[node], outputs); }

// Who made each input when it was read (ids are addresses, which later
// tensors reuse).
void LayerAnalysis::record_producers() {
    order_.resize(nodes_.size());
    for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
    std::sort(order_.begin(), order_.end(), [&](size_t a, size_t b) { return EtDocument::id(nodes_[a]) < EtDocument::id(nodes_[b]); });
    made_by_.assign(nodes_.size(), {});
    std::map<std::pair<int64_t, int64_t>, Producer> producer;  // (tensor id, storage id) -> maker
    auto key_of = [](const JsonValue& v) { return std::make_pair(v.items()[0].as_int(), v.items()[1].as_int()); };
    for (size_t i : order_) {
        for (const JsonValue* in : tensors_of(i, false)) {
            auto it = producer.find(key_of(*in));
            made_by_[i].push_back(it == producer.end() ? kNoProducer : it->second);
        }
        const std::vector<JsonValue*> outputs = tensors_of(i, true);
        for (size_t k = 0; k < outputs.size(); ++k) producer[key_of(*outputs[k])] = {i, k};
    }
}

bool is_scalar_tensor(const JsonValue& value) { return value.items().size() <= 3 || value.items()[3].as_int() <= 1; }

std::vector<JsonValue*> tensor_values(const EtDocument& doc, JsonValue& node, bool outputs) {
    std::vector<JsonValue*> out;
    visit_tensors(outputs ? doc.outputs(node) : doc.inputs(node), [&](const EtTensor& t) { out.push_back(&t.value); });
    return out;
}

void rebuild_tensor_list(const EtValues& side, size_t v, const std::vector<size_t>& picks, std::vector<JsonValue> values) {
    std::vector<JsonValue>& list = side.values->items()[v].items();
    const size_t count = list.size();
    for (JsonValue* aligned : {side.shapes, side.strides}) {
        if (!aligned || !aligned->is_array() || v >= aligned->items().size()) continue;
        std::vector<JsonValue>& items = aligned->items()[v].items();
        if (items.size() != count) continue;
        std::vector<JsonValue> rebuilt;
        for (size_t e : picks) rebuilt.push_back(items[e]);
        items = std::move(rebuilt);
    }
    if (side.types && side.types->is_array() && v < side.types->items().size() && side.types->items()[v].is_string()) {
        std::string& type = side.types->items()[v].mutable_string();
        const size_t open = type.find('[');
        if (open != std::string::npos && type.back() == ']') {
            const std::vector<std::string_view> elements =
                split_type_list(std::string_view(type).substr(open + 1, type.size() - open - 2));
            if (elements.size() == count) {
                std::string rebuilt = type.substr(0, open + 1);
                for (size_t k = 0; k < picks.size(); ++k) rebuilt += (k ? "," : "") + std::string(elements[picks[k]]);
                type = rebuilt + "]";
            }
        }
    }
    list = std::move(values);
}

}  // namespace mimic::compose

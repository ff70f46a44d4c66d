#include "compose/scale_batch.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <unordered_map>
#include <utility>
#include <vector>

#include "analysis/comm_values.h"
#include "compose/scale_views.h"
#include "support/error.h"
#include "support/text.h"

namespace mimic::compose {
namespace {

using Shape = std::vector<int64_t>;
using Key = std::pair<int64_t, int64_t>;  // tensor id, storage id

std::optional<Shape> read_ints(const JsonValue* v) {
    if (!v || !v->is_array()) return std::nullopt;
    Shape out;
    for (const JsonValue& x : v->items()) {
        if (!x.is_integer()) return std::nullopt;
        out.push_back(x.as_int());
    }
    return out;
}

void write_ints(JsonValue& v, const Shape& s) {
    v = JsonValue::array();
    for (int64_t x : s) v.items().push_back(JsonValue::of_int(x));
}

int64_t product(const Shape& s) { return std::accumulate(s.begin(), s.end(), int64_t{1}, std::multiplies<int64_t>()); }

Key key_of(const JsonValue& value) { return {value.items()[0].as_int(), value.items()[1].as_int()}; }

// Strides of a dense tensor of `shape` whose dimensions lie in memory in
// `order` (outermost first).
Shape dense_strides(const Shape& shape, const std::vector<size_t>& order) {
    Shape strides(shape.size(), 1);
    int64_t step = 1;
    for (size_t k = order.size(); k-- > 0;) {
        strides[order[k]] = step;
        step *= std::max<int64_t>(shape[order[k]], 1);
    }
    return strides;
}

std::vector<size_t> memory_order(const Shape& strides) {
    std::vector<size_t> order(strides.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return strides[a] > strides[b]; });
    return order;
}

bool matches(const Shape& list, const Shape& shape) {
    if (list.size() != shape.size() || list.empty()) return false;
    for (size_t i = 0; i < list.size(); ++i)
        if (list[i] != shape[i] && list[i] != -1) return false;
    return true;
}

// An op that writes into a tensor it was given: in place (`add_`) or out=
// (`div.out`, whose schema marks the output `Tensor(a!)`). An op returning
// its input unchanged (`resolve_conj`, `contiguous`) writes nothing.
bool mutates_its_outputs(const JsonValue& node) {
    const std::string_view name = EtDocument::name(node);
    if (name.size() > 2 && name.back() == '_' && name[name.size() - 2] != '_') return true;
    const JsonValue* schema = EtDocument::field(node, "op_schema");
    return schema && schema->is_string() && schema->as_string().find("!)") != std::string_view::npos;
}

class BatchScaler {
public:
    BatchScaler(EtDocument& doc, const ScaleOptions& options) : doc_(doc), options_(options) {
        std::vector<JsonValue>& nodes = doc_.nodes();
        order_.resize(nodes.size());
        std::iota(order_.begin(), order_.end(), size_t{0});
        std::sort(order_.begin(), order_.end(),
                  [&](size_t a, size_t b) { return EtDocument::id(nodes[a]) < EtDocument::id(nodes[b]); });
    }

    ScaleStats run() {
        if (!(options_.factor > 0) || !std::isfinite(options_.factor))
            fail({doc_.path(), -1, -1, "--batch"}, "the scale factor must be a positive number");
        collect_parameter_shapes();
        refuse_lists_of_sequences();
        find_data();
        choose_batch();
        find_rnn_states();
        propagate_and_scale();
        return stats_;
    }

private:
    [[noreturn]] void refuse(int64_t node, const std::string& field, const std::string& message) const {
        fail({doc_.path(), node, -1, field}, message);
    }

    bool parameter_shaped(const Shape& s) const { return parameter_shapes_.count(s) > 0; }

    // Sequences of different lengths given as a list and padded in the step
    // (pack_sequence, pad_sequence): the batch is the list's length, which
    // no shape holds and no rewrite can grow; left alone, the vote takes
    // another size for the batch and the result does not replay.
    void refuse_lists_of_sequences() {
        for (JsonValue& node : doc_.nodes()) {
            // Packed sequences: the recurrent layer's backward runs one op per
            // time step on as many rows as sequences are still running there,
            // counts the lengths' values make, which no shape says how to grow.
            if (EtDocument::name(node) == "aten::_pack_padded_sequence")
                refuse(EtDocument::id(node), "inputs",
                       "the step packs sequences of different lengths (aten::_pack_padded_sequence): its recurrent layer runs "
                       "each time step on as many sequences as are still running, counts the lengths' values make, and scale "
                       "cannot grow them from the shapes");
            if (EtDocument::name(node) != "aten::pad_sequence") continue;
            size_t tensors = 0;
            visit_argument_tensors(doc_.inputs(node), 0, [&](const EtTensor&) { ++tensors; });
            if (tensors == 0) continue;
            refuse(EtDocument::id(node), "inputs",
                   "the step pads a list of " + std::to_string(tensors) +
                       " sequences (aten::pad_sequence): its batch is the list's length, not a dimension of a tensor, and "
                       "scale cannot add tensors to a list");
        }
    }

    // Parameters, their gradients and the optimizer's state: every tensor the
    // optimizer's step and zero_grad touch, and what AccumulateGrad writes.
    void collect_parameter_shapes() {
        std::vector<JsonValue>& nodes = doc_.nodes();
        std::unordered_map<int64_t, size_t> index;
        for (size_t i = 0; i < nodes.size(); ++i) index.emplace(EtDocument::id(nodes[i]), i);
        // An optimizer that evaluates a closure (L-BFGS) runs the whole
        // forward and backward inside its own label, and those ops touch the
        // data too: the forward's are numbered by autograd (the optimizer's own
        // run without grad), the backward's sit under the engine's labels.
        // Marked: the numbered ops and the ops above them (a composite
        // `linear` is unnumbered; the `addmm` it calls is).
        std::vector<uint8_t> in_grad_mode(nodes.size(), 0);
        for (size_t i = 0; i < nodes.size(); ++i) {
            if (EtDocument::seq_id(nodes[i]) < 0) continue;
            size_t steps = 0;
            for (size_t k = i; steps++ < nodes.size() && !in_grad_mode[k];) {
                if (!EtDocument::is_operator(nodes[k])) break;  // a label: the ops above it are other work
                in_grad_mode[k] = 1;
                auto p = index.find(doc_.parent(nodes[k]));
                if (p == index.end() || p->second == k) break;
                k = p->second;
            }
        }
        auto under_optimizer = [&](size_t i) {
            size_t steps = 0;
            for (size_t k = i; steps++ < nodes.size();) {
                if (in_grad_mode[k]) return false;  // inside a forward op (its own children too)
                std::string_view name = EtDocument::name(nodes[k]);
                if (name.rfind("Optimizer.", 0) == 0 || name.find("AccumulateGrad") != std::string_view::npos) return true;
                if (name.rfind("autograd::engine::evaluate_function: ", 0) == 0) return false;
                auto p = index.find(doc_.parent(nodes[k]));
                if (p == index.end() || p->second == k) return false;
                k = p->second;
            }
            return false;
        };
        for (size_t i = 0; i < nodes.size(); ++i) {
            if (!under_optimizer(i)) continue;
            for (const EtValues& side : {doc_.inputs(nodes[i]), doc_.outputs(nodes[i])})
                visit_tensors(side, [&](const EtTensor& t) {
                    parameter_keys_.insert(key_of(t.value));
                    std::optional<Shape> s = read_ints(t.shape);
                    if (!s || s->empty()) return;
                    parameter_shapes_.insert(*s);
                });
        }
        collect_layer_arguments();
        stats_.parameter_shapes = parameter_shapes_.size();
    }

    // Tensors a layer's schema names as its weights, biases or running
    // statistics (or a bucketize's boundaries): parameters and buffers even
    // where no optimizer touches them (an inference step, a frozen layer),
    // so a conv's 16 filters are not taken for a batch of 16. A loss's
    // `weight` (class or per-sample weights) and lerp's are left out: those
    // may carry the batch.
    void collect_layer_arguments() {
        static const std::set<std::string_view> roles = {
            "weight",  "bias",    "running_mean", "running_var", "weight_ih",  "weight_hh",
            "bias_ih", "bias_hh", "params",       "boundaries",  "sorted_sequence"};  // the last two: lookup tables
        for (JsonValue& node : doc_.nodes()) {
            const std::string_view name = EtDocument::name(node);
            if (name.find("loss") != std::string_view::npos || name.find("cross_entropy") != std::string_view::npos ||
                name.find("lerp") != std::string_view::npos || name.find("embedding") != std::string_view::npos)
                continue;  // embeddings: find_data tells the table from the indices
            const JsonValue* schema = EtDocument::field(node, "op_schema");
            if (!schema || !schema->is_string()) continue;
            const std::vector<std::string_view> names = analysis::schema_argument_names(schema->as_string());
            const EtValues inputs = doc_.inputs(node);
            const size_t arguments = inputs.values && inputs.values->is_array() ? inputs.values->items().size() : 0;
            if (names.size() != arguments) continue;
            for (size_t argument = 0; argument < arguments; ++argument) {
                if (!roles.count(names[argument])) continue;
                visit_argument_tensors(inputs, argument, [&](const EtTensor& t) {
                    parameter_keys_.insert(key_of(t.value));
                    std::optional<Shape> shape = read_ints(t.shape);
                    if (shape && !shape->empty()) parameter_shapes_.insert(*shape);
                });
            }
        }
    }

    // The tensors the step reads before any op made them, less parameters
    // and optimizer state: its inputs, labels, indices and offsets.
    void find_data() {
        std::set<Key> made;
        std::set<std::pair<int64_t, Shape>> made_storages;  // storage id, shape of an output on it
        for (size_t i : order_) {
            JsonValue& node = doc_.nodes()[i];
            const bool embedding_op = EtDocument::name(node).find("embedding") != std::string_view::npos;
            const EtValues inputs = doc_.inputs(node);
            const size_t arguments = inputs.values && inputs.values->is_array() ? inputs.values->items().size() : 0;
            // Which of an embedding's tensors carry the batch: by argument
            // name where the schema names every argument (fbgemm's
            // table-batched lookups also read the tables, per-table offsets
            // and optimizer state), else every tensor but the first (the table).
            std::vector<std::string_view> names;
            if (embedding_op)
                if (const JsonValue* schema = EtDocument::field(node, "op_schema"); schema && schema->is_string())
                    names = analysis::schema_argument_names(schema->as_string());
            const bool named = names.size() == arguments && arguments > 0;
            size_t position = 0;
            for (size_t argument = 0; argument < arguments; ++argument) {
                visit_argument_tensors(inputs, argument, [&](const EtTensor& t) {
                    Key k = key_of(t.value);
                    const bool weight = position++ == 0;  // an embedding's first tensor is its table
                    if (made.count(k) || data_.count(k) || ambiguous_.count(k)) return;
                    std::optional<Shape> s = read_ints(t.shape);
                    if (k.second != 0 && s && made_storages.count({k.second, *s})) {
                        made.insert(k);  // a new handle on an op's output (a saved output unpacked in backward)
                        return;
                    }
                    made.insert(k);  // external: seen once
                    // Indices and offsets an embedding reads are data whatever their size.
                    const bool embedding = embedding_op && (named ? analysis::embedding_batch_argument(names[argument]) : !weight);
                    if (embedding_op && named && !embedding) return;  // a table or its bookkeeping
                    if (!s || s->empty() || parameter_keys_.count(k)) return;
                    // Of a parameter's shape: a buffer (running statistics, a
                    // pruning mask), or data that happens to match one (labels
                    // [B] beside a bias [B]; an input [B, in] of a layer as
                    // wide as the batch). Decided once the batch is known.
                    if (parameter_shaped(*s) && !embedding) {
                        ambiguous_.emplace(k, *s);
                        return;
                    }
                    data_.emplace(k, *s);
                    if (embedding) embedding_inputs_.insert(k);
                });
            }
            if (EtDocument::name(node).find("loss") != std::string_view::npos && arguments > 1)
                visit_argument_tensors(inputs, 1, [&](const EtTensor& t) { loss_targets_.insert(key_of(t.value)); });
            const bool mutates = mutates_its_outputs(node);
            visit_tensors(doc_.outputs(node), [&](const EtTensor& t) {
                made.insert(key_of(t.value));
                if (mutates) written_.insert(key_of(t.value));
                if (std::optional<Shape> s = read_ints(t.shape)) made_storages.insert({key_of(t.value).second, *s});
            });
        }
    }

    void choose_batch() {
        // The batch is a size every input holds (a sequence-first [T, B, E]
        // beside labels [B]: B, not T), token matrices included; of the
        // sizes held as often, the one most inputs lead with. Embedding
        // indices are often more numerous than the batch's other data, so
        // their first sizes count only when there is nothing else.
        std::map<int64_t, int> votes, held;
        const auto hold = [&](const Shape& s) {
            for (int64_t v : std::set<int64_t>(s.begin(), s.end())) ++held[v];
        };
        for (const auto& [k, s] : data_) {
            // Token matrices hold the batch too (a translation step's [S, B]
            // and [T, B]); flat indices and offsets ([B x L], [B]) say nothing.
            const bool embedding = embedding_inputs_.count(k) > 0;
            if (!embedding || s.size() >= 2) hold(s);
            if (!embedding) ++votes[s[0]];
        }
        if (votes.empty())
            for (const auto& [k, s] : data_) ++votes[s[0]];
        if (votes.empty())  // every input has a parameter's shape: they are the data
            for (const auto& [k, s] : ambiguous_) ++votes[s[0]], hold(s);
        if (votes.empty() && options_.batch_size <= 0)
            refuse(-1, "inputs", "no input data found (every tensor the step reads is made by an op or is a parameter)");
        int64_t b = options_.batch_size;
        // A recurrent layer says which of its input's dimensions is the batch
        // (batch_first): tokens [T, B] into a sequence-first LSTM are no vote
        // between T and B.
        if (const int64_t rnn = recurrent_batch(); b <= 0 && rnn > 0 && held.count(rnn)) b = rnn;
        if (b <= 0) {
            int most_held = 0;
            for (const auto& [v, n] : held) most_held = std::max(most_held, n);
            for (auto v = votes.begin(); v != votes.end();)
                v = held[v->first] < most_held ? votes.erase(v) : std::next(v);
            for (const auto& [v, n] : held)  // held by every input, leading none
                if (n == most_held && !votes.count(v)) votes[v] = 0;
            int best = -1;
            for (const auto& [v, n] : votes)
                if (n > best) best = n, b = v;
            // Data of two first sizes in equal numbers (a diffusion step's
            // images [8, ...] and its noise table [1000]; tokens [8, 33] and
            // a causal mask [32, 32]): the batch is the one the step's
            // tensors lead with most often, as activations carry it.
            std::vector<int64_t> tied;
            for (const auto& [v, n] : votes)
                if (n == best) tied.push_back(v);
            if (tied.size() > 1) {
                std::map<int64_t, size_t> leads;
                for (JsonValue& node : doc_.nodes())
                    for (const EtValues& side : {doc_.inputs(node), doc_.outputs(node)})
                        visit_tensors(side, [&](const EtTensor& t) {
                            std::optional<Shape> sh = read_ints(t.shape);
                            if (sh && !sh->empty() && std::find(tied.begin(), tied.end(), (*sh)[0]) != tied.end()) ++leads[(*sh)[0]];
                        });
                size_t most = 0;
                for (int64_t v : tied)
                    if (leads[v] > most || (leads[v] == most && v > b)) most = leads[v], b = v;
            }
        }
        batch_ = b;
        batch_values_.insert(b);
        // A buffer is updated in place by the step (running statistics, a
        // spectral norm's power-iteration vectors); labels and inputs are only
        // read. A loss's target is data whatever it leads with (a language
        // model's targets flattened to [T x B]).
        for (const auto& [k, s] : ambiguous_)
            if ((s[0] == b || (s[0] % b == 0 && loss_targets_.count(k))) && !written_.count(k)) data_.emplace(k, s);
        stats_.data_tensors = data_.size();
        if (data_.empty())
            refuse(-1, "inputs", "no input data of batch " + std::to_string(b) + " found");
        // Embedding indices grow with the batch too, though their length is not B.
        for (const auto& [k, s] : data_)
            if (s[0] != b && embedding_inputs_.count(k) && std::find(s.begin(), s.end(), b) == s.end())
                batch_values_.insert(s[0]);
        stats_.batch_before = b;
        std::string values;
        for (int64_t v : batch_values_) values += (values.empty() ? "" : ", ") + std::to_string(v);
        stats_.batch_values = values;
        stats_.batch_after = scaled(b, -1, "--batch");
    }

    int64_t scaled(int64_t v, int64_t node, const std::string& field) const {
        // An empty tensor stays empty at any batch (aten::set_ fills one that
        // was allocated as [0]).
        if (v == 0) return 0;
        double x = static_cast<double>(v) * options_.factor;
        double r = std::round(x);
        if (std::fabs(x - r) > 1e-6 || r < 1)
            refuse(node, field,
                   std::to_string(v) + " x " + std::to_string(options_.factor) + " is not a whole size (pick a factor that keeps " +
                       std::to_string(v) + " whole)");
        return static_cast<int64_t>(r);
    }

    // Another dimension of `s` that is the batch exactly (after `first`), or -1.
    int second_batch_dim(const Shape& s, int first) const {
        if (first < 0 || static_cast<size_t>(first) >= s.size()) return -1;
        for (size_t k = 0; k < s.size(); ++k)
            if (static_cast<int>(k) != first && s[k] == s[first]) return static_cast<int>(k);
        return -1;
    }

    // `v` elements selected from the batch (in groups of `inner`) at the new
    // batch: the same share of it, at least one group.
    int64_t scaled_count(int64_t v, int64_t inner) const {
        if (v == 0 || inner <= 0 || v % inner != 0) return v;
        const double groups = std::round(static_cast<double>(v / inner) * options_.factor);
        return std::max<int64_t>(1, static_cast<int64_t>(groups)) * inner;
    }

    // Whether an op's first output counts the elements a mask selected:
    // x[mask] (a boolean index), masked_select, nonzero and argwhere.
    static bool selects_by_mask(std::string_view op, const EtValues& in) {
        if (op == "aten::masked_select" || op == "aten::nonzero" || op == "aten::argwhere") return true;
        if (op != "aten::index" || !in.types || !in.types->is_array() || in.types->items().size() < 2) return false;
        const JsonValue& indices = in.types->items()[1];
        if (!indices.is_string()) return false;
        const std::string& t = indices.as_string();
        return t.find("Tensor(bool)") != std::string::npos || t.find("Tensor(unsigned char)") != std::string::npos;
    }

    // Where the batch sits in a tensor: its dimension, and `inner`, how many
    // elements of that dimension lie below the batch's own factor (1 when the
    // dimension is the batch alone; 48 in [8*48] when the batch is outer).
    struct BatchPlace {
        int dim = -1;
        int64_t inner = 1;
        int64_t delta = 0;  // old size - the batch size it follows (offsets[1:]: -1)
        // The dimension counts what a mask over the batch selected (x[mask],
        // nonzero, masked_select): as many as the data made, so it grows with
        // the batch rounded to whole elements rather than exactly.
        bool count = false;
        int64_t groups = 0;  // a count's new size in groups of `inner`, where not its share (unique's)
        // A second dimension of the batch, in a matrix between every two
        // samples (e @ e.t(): [B, B]); -1 in every other tensor.
        int dim2 = -1;
        int64_t inner2 = 1;
    };

    struct Change {
        Shape old_shape, new_shape, old_strides, new_strides;
        BatchPlace place;
        size_t position = 0;   // among the op's tensor inputs
        bool output = false;
    };

    // Where a tensor's batch was put, by tensor and old shape.
    struct Placed {
        Shape old_shape;
        BatchPlace place;
        int64_t node = -1;  // the op that placed it
    };

    // How many distinct values `n_after` draws give where `n_before` gave
    // `distinct`: draws uniform over a set of V values leave V(1 - (1 - 1/V)^n)
    // distinct, so V is solved from the recorded pair (all distinct: V is
    // unbounded and the count follows the draws).
    static int64_t distinct_after(int64_t n_before, int64_t distinct, int64_t n_after) {
        if (n_before <= 0 || distinct <= 1) return std::max<int64_t>(std::min<int64_t>(distinct, n_after), n_after > 0 ? 1 : 0);
        if (distinct >= n_before) return n_after;
        const auto expected = [](double v, double n) { return v * -std::expm1(n * std::log1p(-1.0 / v)); };
        double lo = static_cast<double>(distinct), hi = 1e15;
        for (int i = 0; i < 200 && hi - lo > 1e-6 * lo; ++i) {
            const double mid = std::sqrt(lo * hi);
            (expected(mid, static_cast<double>(n_before)) < static_cast<double>(distinct) ? lo : hi) = mid;
        }
        const double after = std::round(expected(lo, static_cast<double>(n_after)));
        return std::clamp<int64_t>(static_cast<int64_t>(after), 1, std::max<int64_t>(1, n_after));
    }

    // unique's values (and counts) over an input whose length grew with the
    // batch: their new length; 0 when the op is none or its input kept its size.
    // (Over the flattened input only: unique_consecutive's runs are no draws.)
    static int64_t unique_groups(std::string_view op, const std::vector<Change>& inputs, const Shape& out) {
        if (op != "aten::_unique2" && op != "aten::_unique") return 0;
        if (out.size() != 1 || out[0] <= 0) return 0;  // counts not asked for: [0]
        for (const Change& c : inputs)
            if (c.position == 0)
                return distinct_after(product(c.old_shape), out[0], product(c.new_shape));
        return 0;
    }

    // Ops that allocate a tensor of a given shape, from nothing.
    static bool makes_new_tensor(std::string_view op) {
        for (std::string_view maker : {"aten::zeros", "aten::empty", "aten::ones", "aten::full", "aten::zeros_like",
                                       "aten::empty_like", "aten::new_zeros", "aten::new_empty", "aten::empty_strided"})
            if (op == maker) return true;
        return false;
    }

    // Made inside an op for one of its results: a broadcast to a result's
    // shape (addmm's bias expanded into its output), or a new tensor on a
    // result's storage (layer norm's flat statistics, viewed as its [T, B, 1]
    // results). It holds the batch where that result does (followed as a
    // reshape); a result that holds none (a weight's gradient) gives none.
    std::optional<BatchPlace> made_for_enclosing_result(std::string_view op, const JsonValue& node, const Key& k,
                                                        const Shape& s) const {
        const bool broadcast = op == "aten::expand";
        if (!broadcast && !makes_new_tensor(op)) return std::nullopt;
        auto parent = node_by_id_.find(doc_.parent(node));
        if (parent == node_by_id_.end() || !EtDocument::is_operator(*parent->second)) return std::nullopt;
        std::optional<BatchPlace> found;
        // The node is the document's own (node_by_id_ keeps it const for lookups).
        visit_tensors(doc_.outputs(const_cast<JsonValue&>(*parent->second)), [&](const EtTensor& t) {
            auto p = placed_.find(key_of(t.value));
            if (found || p == placed_.end() || p->second.place.dim < 0 || p->second.place.count) return;
            const Shape& result = p->second.old_shape;
            if (broadcast ? result != s : (p->first.second != k.second || k.second == 0 || product(result) != product(s))) return;
            BatchPlace place = result == s ? p->second.place : follow(s, result, p->second.place, true);
            if (place.dim >= 0) found = place;
        });
        return found;
    }

    // Ops that give the same elements another shape in the same order.
    static bool reshapes(std::string_view op) {
        return op == "aten::view" || op == "aten::reshape" || op == "aten::_reshape_alias" || op == "aten::_unsafe_view" ||
               op == "aten::flatten" || op == "aten::unflatten" || op == "aten::view_as" || op == "aten::reshape_as";
    }

    // The batch of an op's input (dimension `from.dim` of `in`) followed into
    // one of its outputs: the same place and size (elementwise ops); the same
    // size elsewhere (transpose, permute); for an op that keeps the elements
    // and regroups dimensions (view, reshape, flatten), the dimension holding
    // the same flat stride; the same place a few elements off (offsets[1:]).
    // dim -1 when none holds.
    BatchPlace follow(const Shape& out, const Shape& in, const BatchPlace& from, bool reshape = false) const {
        const size_t d = static_cast<size_t>(from.dim);
        const int64_t v = in[d];
        // An op that regroups the same elements (a reshape of [x*y, B, C] to
        // [x, y, B, C]) keeps the batch where the elements below it are as
        // many, which is not the same index when another size equals it.
        const bool regrouped = product(out) == product(in) && out.size() != in.size();
        const auto below = [](const Shape& s, size_t k) { return product(Shape(s.begin() + static_cast<long>(k) + 1, s.end())); };
        if (d < out.size() && out[d] == v && (!regrouped || below(out, d) == below(in, d))) return {from.dim, from.inner, from.delta};
        // Elsewhere at the same size only when the op moved dimensions
        // around (the same sizes in another order): a keepdim reduction
        // over the batch ([B, B] -> [1, B]) has a B left that is not it, nor
        // has a reshape that only looks like a permutation (attention's
        // [T, B, E] viewed as [T, B x heads, E / heads] with E / heads = B).
        Shape sorted_out = out, sorted_in = in;
        std::sort(sorted_out.begin(), sorted_out.end());
        std::sort(sorted_in.begin(), sorted_in.end());
        if (sorted_out == sorted_in && !reshape)
            for (size_t k = 0; k < out.size(); ++k)
                if (out[k] == v) return {static_cast<int>(k), from.inner, from.delta};
        if (product(out) == product(in)) {
            const int64_t stride = from.inner * below(in, d);  // flat stride of the batch's factor
            int64_t after = 1;                                   // product of out's dims after k
            for (size_t k = out.size(); k-- > 0;) {
                if (stride >= after && stride < after * out[k] && stride % after == 0 && out[k] > 1)
                    return {static_cast<int>(k), stride / after, 0};
                after *= out[k];
            }
        }
        // A slice a few elements short (offsets[1:]) keeps its rank; a sum
        // that leaves [C] of [B, C, H, W] is no batch, with C = B - 1 or not.
        if (d < out.size() && out.size() == in.size() && std::llabs(out[d] - v) <= 2)
            return {from.dim, from.inner, from.delta + out[d] - v};
        return {};
    }

    // Ops that contract their operands' dimensions: an input whose batch is
    // the contracted dimension makes an output without it (a weight's
    // gradient is mm(x.t(), grad)), whatever sizes happen to match.
    static bool contracted(std::string_view op, size_t position, int dim) {
        struct Rule {
            std::string_view op;
            size_t position;
            int dim;
        };
        static constexpr Rule kRules[] = {{"aten::mm", 0, 1},     {"aten::mm", 1, 0},     {"aten::addmm", 1, 1},
                                          {"aten::addmm", 2, 0},  {"aten::bmm", 0, 2},    {"aten::bmm", 1, 1},
                                          {"aten::baddbmm", 1, 2}, {"aten::baddbmm", 2, 1}, {"aten::_sparse_mm", 0, 1},
                                          {"aten::_sparse_mm", 1, 0}, {"aten::_sparse_addmm", 1, 1}, {"aten::_sparse_addmm", 2, 0}};
        for (const Rule& r : kRules)
            if (r.op == op && r.position == position && r.dim == dim) return true;
        return false;
    }

    // Matrix products by operand positions and dimensions: the left operand's
    // rows and the right one's columns; the dimensions between are contracted.
    struct Product {
        std::string_view op;
        size_t left, left_rows, right, right_columns;
    };
    static constexpr Product kProducts[] = {{"aten::mm", 0, 0, 1, 1},     {"aten::_sparse_mm", 0, 0, 1, 1},
                                            {"aten::addmm", 1, 0, 2, 1},  {"aten::_sparse_addmm", 1, 0, 2, 1},
                                            {"aten::bmm", 0, 1, 1, 2},    {"aten::baddbmm", 1, 1, 2, 2}};

    // The product rule of `op`, if it is a matrix product; matmul's matrix
    // dimensions are its operands' last two, whatever their rank (its
    // children, mm or bmm, are ruled by the table).
    static std::vector<Product> products(std::string_view op, const std::vector<Change>& inputs) {
        if (op == "aten::matmul") {
            const Change* left = operand(inputs, 0);
            const Change* right = operand(inputs, 1);
            if (!left || !right || left->old_shape.size() < 2 || right->old_shape.size() < 2) return {};
            return {{op, 0, left->old_shape.size() - 2, 1, right->old_shape.size() - 1}};
        }
        for (const Product& p : kProducts)
            if (p.op == op) return {p};
        return {};
    }

    static const Change* operand(const std::vector<Change>& inputs, size_t position) {
        for (const Change& c : inputs)
            if (c.position == position && !c.place.count) return &c;
        return nullptr;
    }

    // A product that reads a [B, B] matrix scale did not see made: adj @ x,
    // the samples' batch contracted against a side of a matrix that came in
    // with the step (a graph's adjacency over its nodes, a kernel given as
    // data). Its second side is no dimension scale can tell from the shape,
    // so such a step is refused by name rather than written with one side
    // grown. (Products that make the matrix, e @ e.t(), are followed.)
    void refuse_pairwise(int64_t node, std::string_view op, const std::vector<Change>& inputs) const {
        for (const Product& p : products(op, inputs)) {
            const Change* left = operand(inputs, p.left);
            const Change* right = operand(inputs, p.right);
            if (!left || !right) return;
            const int rows = static_cast<int>(p.left_rows), columns = static_cast<int>(p.right_columns);
            const auto has = [](const Change& c, int dim) { return c.place.dim == dim || c.place.dim2 == dim; };
            const bool left_contracted = has(*left, rows + 1), right_contracted = has(*right, columns - 1);
            const bool left_rows = has(*left, rows), right_columns = has(*right, columns);
            const Change* unseen = left_rows && right_contracted && !left_contracted    ? left
                                   : right_columns && left_contracted && !right_contracted ? right
                                                                                          : nullptr;
            if (unseen) {
                const std::string b = std::to_string(unseen->old_shape[static_cast<size_t>(unseen->place.dim)]);
                refuse(node, "inputs",
                       "op '" + std::string(op) + "' multiplies the batch by a " + b + " x " + b +
                           " matrix between every two samples that the step did not make (a graph's adjacency over its "
                           "nodes, a kernel given as data); scale cannot tell that matrix's second side from its shape");
            }
            return;
        }
    }

    // Ops whose outputs after the first are per-channel statistics or weight
    // gradients: never batch-carrying, though they are made from the batch.
    static bool statistics_after_first(std::string_view op) {
        for (std::string_view s : {"aten::convolution_backward", "aten::native_batch_norm", "aten::native_batch_norm_backward",
                                   "aten::_batch_norm_impl_index", "aten::_batch_norm_impl_index_backward",
                                   "aten::cudnn_batch_norm", "aten::cudnn_batch_norm_backward", "aten::native_layer_norm_backward",
                                   "aten::native_group_norm_backward", "aten::_slow_conv2d_backward",
                                   "aten::convolution_backward_overrideable", "aten::conv_tbc_backward",
                                   "aten::cudnn_convolution_backward", "aten::mkldnn_convolution_backward"})
            if (s == op) return true;
        return false;
    }

    // An integer or integer-list argument (a dim, dims, a permutation).
    std::vector<int64_t> int_args(JsonValue& node, size_t index) const {
        const EtValues in = doc_.inputs(node);
        if (!in.values || !in.values->is_array() || index >= in.values->items().size()) return {};
        const JsonValue& v = in.values->items()[index];
        if (v.is_integer()) return {v.as_int()};
        if (std::optional<Shape> list = read_ints(&v)) return *list;
        return {};
    }

    // Where an op that only reorders dimensions (t, transpose, permute) puts
    // input dimension d of a rank-`rank` tensor; -1 when the op is none of
    // those. With equal sizes (a [B, B] gradient) sizes cannot tell.
    int moved_dim(JsonValue& node, std::string_view op, int d, size_t rank) const {
        const auto norm = [&](int64_t k) { return static_cast<int>(k < 0 ? k + static_cast<int64_t>(rank) : k); };
        if (op == "aten::t" || op == "aten::numpy_T") return rank < 2 ? d : static_cast<int>(rank) - 1 - d;
        if (op == "aten::transpose") {
            const std::vector<int64_t> a = int_args(node, 1), b = int_args(node, 2);
            if (a.size() != 1 || b.size() != 1) return -1;
            const int d0 = norm(a[0]), d1 = norm(b[0]);
            return d == d0 ? d1 : d == d1 ? d0 : d;
        }
        if (op == "aten::permute") {
            const std::vector<int64_t> perm = int_args(node, 1);
            for (size_t k = 0; k < perm.size(); ++k)
                if (norm(perm[k]) == d) return static_cast<int>(k);
        }
        return -1;
    }

    // Whether a reduction with a dims argument (sum, mean, amax...) reduces
    // input dimension d: its output has no batch then, whatever sizes match.
    bool reduces_dim(JsonValue& node, std::string_view op, int d, size_t rank) const {
        static constexpr std::string_view kReductions[] = {"aten::sum", "aten::mean", "aten::amax", "aten::amin", "aten::logsumexp",
                                                           "aten::var", "aten::std", "aten::nansum", "aten::prod"};
        if (std::find(std::begin(kReductions), std::end(kReductions), op) == std::end(kReductions)) return false;
        for (int64_t k : int_args(node, 1))
            if ((k < 0 ? k + static_cast<int64_t>(rank) : k) == d) return true;
        return false;
    }

    // A matrix product of two operands that both carry the batch outside the
    // contracted dimension (e @ e.t()): its output is [B, B], the batch in
    // both of its matrix dimensions.
    std::optional<BatchPlace> pairwise_product(std::string_view op, const std::vector<Change>& inputs, const Shape& out) const {
        std::vector<Product> rules = products(op, inputs);
        // Distances between every two rows of two batches: [.., P, M] and
        // [.., R, M] make [.., P, R] (the right operand's rows are its columns).
        if (op == "aten::cdist" || op == "aten::_cdist_forward" || op == "aten::_euclidean_dist") {
            const Change* left = operand(inputs, 0);
            const Change* right = operand(inputs, 1);
            if (!left || !right || left->old_shape.size() != out.size() || right->old_shape.size() != out.size() || out.size() < 2)
                return std::nullopt;
            rules = {{op, 0, out.size() - 2, 1, out.size() - 2}};
        }
        for (const Product& p : rules) {
            const Change* left = operand(inputs, p.left);
            const Change* right = operand(inputs, p.right);
            if (!left || !right || out.size() < 2 || left->place.dim != static_cast<int>(p.left_rows) ||
                right->place.dim != static_cast<int>(p.right_columns))
                return std::nullopt;
            const size_t rows = out.size() - 2, columns = out.size() - 1;
            if (out[rows] != left->old_shape[p.left_rows] || out[columns] != right->old_shape[p.right_columns]) return std::nullopt;
            BatchPlace place{static_cast<int>(rows), left->place.inner, 0};
            place.dim2 = static_cast<int>(columns);
            place.inner2 = right->place.inner;
            pairwise_shapes_.insert(out);
            return place;
        }
        return std::nullopt;
    }

    // The second batch dimension of a [B, B] input, followed into an output
    // the first one went to: kept where the output keeps the input's shape
    // there (softmax, masked_fill, the matrix's own backward), else dropped
    // (a top-k along it, a sum over it).
    void carry_second_dim(const Shape& out, const Change& c, BatchPlace& p, JsonValue& node, std::string_view op) const {
        const int d2 = c.place.dim2;
        if (d2 < 0 || p.dim != c.place.dim || out.size() != c.old_shape.size() || d2 == p.dim) return;
        if (out[d2] != c.old_shape[d2]) return;
        if (c.position == 0 && reduces_dim(node, op, d2, c.old_shape.size())) return;
        p.dim2 = d2;
        p.inner2 = c.place.inner2;
    }

    // follow() from each batch-carrying input in turn (embedding_bag's output
    // follows its offsets, not its indices); else a dimension of a batch size.
    BatchPlace follow_any(const Shape& out, const std::vector<Change>& inputs, std::string_view op, JsonValue& node) const {
        if (std::optional<BatchPlace> pairs = pairwise_product(op, inputs, out)) return *pairs;
        bool any = false;
        for (Change c : inputs) {
            // A [B, B] matrix times the samples contracts one of its sides;
            // the other stays.
            if (c.place.dim2 >= 0 && contracted(op, c.position, c.place.dim)) {
                std::swap(c.place.dim, c.place.dim2);
                std::swap(c.place.inner, c.place.inner2);
            }
            if (c.place.dim2 >= 0 && contracted(op, c.position, c.place.dim2)) c.place.dim2 = -1;
            // A sum over one side of a [B, B] matrix leaves the other.
            if (c.place.dim2 >= 0 && c.position == 0) {
                const size_t rank = c.old_shape.size();
                if (reduces_dim(node, op, c.place.dim, rank) && !reduces_dim(node, op, c.place.dim2, rank)) {
                    std::swap(c.place.dim, c.place.dim2);
                    std::swap(c.place.inner, c.place.inner2);
                }
                if (reduces_dim(node, op, c.place.dim2, rank)) c.place.dim2 = -1;
            }
            if (contracted(op, c.position, c.place.dim)) continue;
            if (c.position == 0 && reduces_dim(node, op, c.place.dim, c.old_shape.size())) continue;
            any = true;
            if (c.position == 0) {
                const int moved = moved_dim(node, op, c.place.dim, c.old_shape.size());
                if (moved >= 0 && static_cast<size_t>(moved) < out.size() && out[moved] == c.old_shape[c.place.dim]) {
                    BatchPlace p{moved, c.place.inner, c.place.delta, c.place.count, c.place.groups};
                    const int moved2 = c.place.dim2 >= 0 ? moved_dim(node, op, c.place.dim2, c.old_shape.size()) : -1;
                    if (moved2 >= 0 && moved2 != moved && static_cast<size_t>(moved2) < out.size() &&
                        out[moved2] == c.old_shape[c.place.dim2])
                        p.dim2 = moved2, p.inner2 = c.place.inner2;
                    return p;
                }
            }
            BatchPlace p = follow(out, c.old_shape, c.place, reshapes(op));
            p.count = c.place.count;
            p.groups = p.inner == c.place.inner ? c.place.groups : 0;  // regrouped: its share
            if (p.dim >= 0) carry_second_dim(out, c, p, node, op);
            if (p.dim >= 0) return p;
        }
        if (!any) return {};  // every batch-carrying operand was contracted away
        // Batches put end to end (torch.cat of two views of a batch, as
        // contrastive steps do) or repeated: a whole multiple of the batch.
        if (op == "aten::cat" || op == "aten::concat" || op == "aten::repeat" || op == "aten::tile")
            for (const Change& c : inputs) {
                const size_t d = static_cast<size_t>(c.place.dim);
                if (c.place.dim < 0 || d >= out.size() || c.old_shape[d] <= 0 || c.place.delta != 0) continue;
                if (out[d] > c.old_shape[d] && out[d] % c.old_shape[d] == 0)
                    return {c.place.dim, c.place.inner * (out[d] / c.old_shape[d]), 0, c.place.count, c.place.groups};
            }
        if (std::optional<BatchPlace> piece = batch_piece(out, inputs, op, node)) return *piece;
        for (size_t k = 0; k < out.size(); ++k)
            if (batch_values_.count(out[k])) return {static_cast<int>(k), 1, 0};
        return {};
    }

    // Ops that cut a tensor into pieces along a dimension, a fixed number of
    // them: along the batch, each piece is a share of it and grows with it.
    static bool cuts_into_pieces(std::string_view op) {
        return op == "aten::chunk" || op == "aten::unsafe_chunk" || op == "aten::split" || op == "aten::unsafe_split" ||
               op == "aten::split_with_sizes" || op == "aten::unsafe_split_with_sizes" || op == "aten::tensor_split";
    }

    // An op under chunk or split that takes one of its pieces (split's narrow).
    bool takes_a_piece(std::string_view op, const JsonValue& node) const {
        if (op != "aten::narrow" && op != "aten::slice") return false;
        auto parent = node_by_id_.find(doc_.parent(node));
        return parent != node_by_id_.end() && cuts_into_pieces(EtDocument::name(*parent->second));
    }

    // A slice bound along the batch that is a half or a quarter of it (x[:B // 2],
    // the real and generated halves of a batch) is that share at any batch;
    // other bounds (x[:3]) are counts of samples and stay.
    static bool share_of_batch(int64_t v, int64_t batch) {
        if (v <= 0 || batch <= 0) return false;
        if (batch % 4 == 0 && batch / 4 >= 2) return v % (batch / 4) == 0;
        return batch % 2 == 0 && batch / 2 >= 2 && v % (batch / 2) == 0;  // offsets[1:] of two bags is no half
    }

    // A piece of the batch (z.chunk(2) of two views stacked on the batch,
    // x.split(B // 4)): the input's shape but a share of its batch dimension.
    std::optional<BatchPlace> batch_piece(const Shape& out, const std::vector<Change>& inputs, std::string_view op,
                                          const JsonValue& node) const {
        const bool slice = op == "aten::narrow" || op == "aten::slice";
        if (!cuts_into_pieces(op) && !slice) return std::nullopt;
        for (const Change& c : inputs) {
            const int d = c.place.dim;
            if (c.position != 0 || d < 0 || c.place.dim2 >= 0 || c.place.count || c.place.delta != 0) continue;
            if (out.size() != c.old_shape.size() || out[d] <= 0 || out[d] >= c.old_shape[d]) continue;
            bool same_elsewhere = true;
            for (size_t k = 0; k < out.size(); ++k) same_elsewhere = same_elsewhere && (int(k) == d || out[k] == c.old_shape[k]);
            if (!same_elsewhere) continue;
            const int64_t batch = c.old_shape[d] / std::max<int64_t>(c.place.inner, 1);
            if (slice && !takes_a_piece(op, node) && !share_of_batch(out[d], batch)) continue;
            return BatchPlace{d, std::max<int64_t>(1, out[d] / std::max<int64_t>(batch, 1)), 0};
        }
        return std::nullopt;
    }

    // The new shape of a tensor that carries the batch; nullopt when it keeps
    // its shape. `place`: the batch followed from the op's input (dim -1: to
    // be found here, and set).
    std::optional<Shape> new_shape(const Shape& s, BatchPlace& place, int64_t node, const std::string& field) const {
        if (s.empty()) return std::nullopt;
        Shape out = s;
        if (place.dim >= 0 && place.dim2 < 0 && !place.count && pairwise_shapes_.count(s)) place.dim2 = second_batch_dim(s, place.dim);
        if (place.dim >= 0) {
            const int64_t v = s[place.dim] - place.delta;
            out[place.dim] = (place.groups > 0 && v % place.inner == 0 ? place.groups * place.inner
                              : place.count                           ? scaled_count(v, place.inner)
                                                                      : scaled(v, node, field)) +
                             place.delta;
            if (place.dim2 >= 0 && static_cast<size_t>(place.dim2) < s.size()) out[place.dim2] = scaled(s[place.dim2], node, field);
            return out;
        }
        for (size_t d = 0; d < s.size(); ++d)
            if (batch_values_.count(s[d])) {
                out[d] = scaled(s[d], node, field);
                place = {static_cast<int>(d), 1, 0};
                if (pairwise_shapes_.count(s)) place.dim2 = second_batch_dim(s, place.dim);
                if (place.dim2 >= 0) out[place.dim2] = scaled(s[place.dim2], node, field);
                return out;
            }
        for (size_t d = 0; d < s.size(); ++d)
            if (s[d] > batch_ && s[d] % batch_ == 0) {  // batch x sequence, batch x heads
                out[d] = scaled(s[d], node, field);
                place = {static_cast<int>(d), s[d] / batch_, 0};
                if (pairwise_shapes_.count(s)) place.dim2 = second_batch_dim(s, place.dim), place.inner2 = place.inner;
                if (place.dim2 >= 0) out[place.dim2] = scaled(s[place.dim2], node, field);
                return out;
            }
        const int64_t n = product(s);
        if (s.size() >= 2 && n >= batch_ && n % batch_ == 0) {
            std::string text;
            for (int64_t x : s) text += (text.empty() ? "" : ", ") + std::to_string(x);
            refuse(node, field,
                   "cannot find the batch dimension (B = " + std::to_string(batch_) + ") in shape [" + text + "] of op '" +
                       std::string(EtDocument::name(*node_by_id_.at(node))) + "' (give --batch-size if B is not " +
                       std::to_string(batch_) + ")");
        }
        return std::nullopt;  // a reduction over the batch (the loss): same shape at any batch
    }

    // Rewrites one tensor occurrence; returns the change when it has one.
    std::optional<Change> rescale(const EtTensor& t, BatchPlace place, int64_t node, const char* field) {
        std::optional<Shape> s = read_ints(t.shape);
        if (!s) return std::nullopt;
        std::optional<Shape> ns = new_shape(*s, place, node, field);
        if (!ns) return std::nullopt;
        Change c;
        c.old_shape = *s;
        c.new_shape = *ns;
        c.place = place;
        std::optional<Shape> strides = read_ints(t.strides);
        std::vector<size_t> order(s->size());
        std::iota(order.begin(), order.end(), size_t{0});
        if (strides && strides->size() == s->size()) order = memory_order(*strides);
        c.old_strides = strides && strides->size() == s->size() ? *strides : dense_strides(*s, order);
        const StorageLayout* base = storage_base(t, *s);
        c.new_strides = c.old_strides == dense_strides(*s, order) ? dense_strides(*ns, order)
                        : base                                    ? moved_strides(*base, c.old_strides)
                                                                  : c.old_strides;
        write_ints(*t.shape, *ns);
        if (strides && strides->size() == s->size()) write_ints(*t.strides, c.new_strides);
        auto& value = t.value.items();
        if (value.size() > 3 && product(*s) == value[3].as_int()) value[3] = JsonValue::of_int(product(*ns));
        if (base && value[2].as_int() > 0) value[2] = JsonValue::of_int(moved_offset(*base, value[2].as_int()));
        ++stats_.scaled_tensors;
        return c;
    }

    // A tensor that fills a storage it was made on (an op's output on a
    // storage none of its inputs hold, or data the step reads): the base its
    // views are cut from. Views fill it too at offset 0, and are not bases.
    void note_storage_base(const EtTensor& t, const Change& c, bool data) {
        const auto& value = t.value.items();
        if (value.size() < 4 || !value[1].is_integer() || value[1].as_int() == 0 || value[2].as_int() != 0) return;
        if (value[3].as_int() != product(c.new_shape)) return;
        storage_bases_[value[1].as_int()].push_back({c.old_shape, c.new_shape, c.place.dim, c.place.dim2, data});
    }

    // The latest whole-storage tensor a view at this offset fits in (1.13
    // reuses a freed storage's id for the next tensor at its address).
    const StorageLayout* storage_base(const EtTensor& t, const Shape& shape) const {
        const auto& value = t.value.items();
        if (value.size() < 4 || !value[1].is_integer() || !value[2].is_integer()) return nullptr;
        auto bases = storage_bases_.find(value[1].as_int());
        if (bases == storage_bases_.end()) return nullptr;
        const int64_t extent = value[2].as_int() + product(shape);
        for (auto b = bases->second.rbegin(); b != bases->second.rend(); ++b)
            if (product(b->old_shape) >= extent) return &*b;
        // Data the step reads as views of a tensor it never shows (a language
        // model's inputs data[:T] and targets data[1:]): the view seen first
        // is the base, its outermost dimension open-ended.
        if (bases->second.back().data) return &bases->second.back();
        return nullptr;
    }

    // as_strided(self, size, stride, storage_offset), the view ops' own
    // call: its strides and offset are the view's, on its input's storage.
    void scale_as_strided(std::string_view op, const EtValues& in, const std::vector<Change>& changes) {
        if (op != "aten::as_strided" && op != "aten::as_strided_") return;
        auto& items = in.values->items();
        const std::optional<Shape> strides = items.size() > 2 ? read_ints(&items[2]) : std::nullopt;
        if (!strides || !items[0].is_array() || items[0].items().size() < 4) return;
        const auto input = std::find_if(changes.begin(), changes.end(), [](const Change& c) { return !c.output && c.position == 0; });
        if (input == changes.end()) return;
        const StorageLayout* base = storage_base(EtTensor{items[0], nullptr, nullptr}, input->old_shape);
        if (!base) return;
        write_ints(items[2], moved_strides(*base, *strides));
        if (items.size() > 3 && items[3].is_integer() && items[3].as_int() > 0)
            items[3] = JsonValue::of_int(moved_offset(*base, items[3].as_int()));
        ++stats_.rewritten_lists;
    }

    // A mean's divisor given as a number (mse_loss and mean divide their sum
    // by the element count, and their backward the gradient): the count of
    // a tensor that held the batch, grown with it.
    void scale_element_count_divisor(JsonValue& node) {
        const std::string_view op = EtDocument::name(node);
        if (op != "aten::div" && op != "aten::div_") return;
        EtValues in = doc_.inputs(node);
        if (!in.values || !in.values->is_array() || in.values->items().size() < 2) return;
        JsonValue& v = in.values->items()[1];
        if (!v.is_integer() || v.as_int() < 2) return;
        auto count = carried_counts_.find(v.as_int());
        if (count == carried_counts_.end()) return;
        v = JsonValue::of_int(count->second);
        ++stats_.rewritten_lists;
    }

    // narrow(self, dim, start, length) and slice(self, dim, start, end, step)
    // along the batch of a tensor that holds whole batches (a chunk of a
    // concatenation): bounds that are multiples of the old batch move with it.
    // slice_backward(grad, input_sizes, dim, start, end, step) takes the
    // same bounds of the whole it makes.
    void scale_batch_bounds(JsonValue& node, const EtValues& in, const std::vector<Change>& changes) {
        const std::string_view op = EtDocument::name(node);
        const bool backward = op == "aten::slice_backward";
        if (op != "aten::narrow" && op != "aten::slice" && !backward) return;
        const size_t dim_at = backward ? 2 : 1;
        if (in.values->items().size() < dim_at + 3 || !in.values->items()[dim_at].is_integer()) return;
        // The pieces split and chunk take are shares of the batch, whatever their size.
        const bool piece = takes_a_piece(op, node);
        for (const Change& c : changes) {
            if (c.output != backward || c.position != 0 || c.place.dim < 0 || c.place.delta != 0 || c.place.count) continue;
            int64_t dim = in.values->items()[dim_at].as_int();
            if (dim < 0) dim += static_cast<int64_t>(c.old_shape.size());
            if (dim != c.place.dim) return;
            const int64_t batch = c.old_shape[static_cast<size_t>(dim)] / std::max<int64_t>(c.place.inner, 1);
            for (size_t a = dim_at + 1; a <= dim_at + 2; ++a) {
                JsonValue& v = in.values->items()[a];
                if (!v.is_integer() || v.as_int() <= 0 || v.as_int() > c.old_shape[static_cast<size_t>(dim)]) continue;
                if (!piece && v.as_int() % batch != 0 && !share_of_batch(v.as_int(), batch)) continue;
                v = JsonValue::of_int(scaled(v.as_int(), EtDocument::id(node), "inputs"));
                ++stats_.rewritten_lists;
            }
            return;
        }
    }

    // split(self, split_size, dim) and split_with_sizes(self, sizes, dim)
    // along the batch: the sizes are the pieces' shares of it.
    void scale_split_sizes(JsonValue& node, const EtValues& in, const std::vector<Change>& changes) {
        const std::string_view op = EtDocument::name(node);
        if (!cuts_into_pieces(op) || op.find("chunk") != std::string_view::npos || op == "aten::tensor_split") return;
        auto& items = in.values->items();
        if (items.size() < 3 || !items[2].is_integer()) return;
        for (const Change& c : changes) {
            if (c.output || c.position != 0 || c.place.dim < 0) continue;
            int64_t dim = items[2].as_int();
            if (dim < 0) dim += static_cast<int64_t>(c.old_shape.size());
            if (dim != c.place.dim) return;
            if (items[1].is_integer()) {
                items[1] = JsonValue::of_int(scaled(items[1].as_int(), EtDocument::id(node), "inputs"));
            } else if (std::optional<Shape> sizes = read_ints(&items[1])) {
                for (int64_t& v : *sizes) v = scaled(v, EtDocument::id(node), "inputs");
                write_ints(items[1], *sizes);
            }
            ++stats_.rewritten_lists;
            return;
        }
    }

    // eye(n[, m]) and arange(end) / arange(start, end[, step]) take their
    // sizes as numbers: grown with their output (arange(B, 2B), the second
    // half of a contrastive target, becomes arange(2B, 4B)).
    void scale_factory_sizes(std::string_view op, const EtValues& in, const std::vector<Change>& changes) {
        if (op != "aten::eye" && op != "aten::arange") return;
        const Change* out = nullptr;
        for (const Change& c : changes)
            if (c.place.dim >= 0 && !c.place.count && c.old_shape.size() <= 2) out = &c;
        if (!out) return;
        auto& items = in.values->items();
        const auto grow = [&](size_t a) {
            if (a >= items.size() || !items[a].is_integer() || items[a].as_int() <= 0) return;
            const double x = static_cast<double>(items[a].as_int()) * options_.factor;
            if (std::fabs(x - std::round(x)) > 1e-6) return;
            items[a] = JsonValue::of_int(static_cast<int64_t>(std::round(x)));
            ++stats_.rewritten_lists;
        };
        if (op == "aten::eye") {
            for (size_t a = 0; a < out->old_shape.size() && a < items.size(); ++a)
                if (items[a].is_integer() && items[a].as_int() == out->old_shape[a]) grow(a);
            return;
        }
        // arange: the integer arguments before dtype; a float bound is left alone.
        const size_t n = out->old_shape.empty() ? 0 : static_cast<size_t>(out->old_shape[0]);
        if (items.size() >= 2 && items[0].is_integer() && items[1].is_integer() &&
            static_cast<size_t>(items[1].as_int() - items[0].as_int()) == n) {
            grow(0);
            grow(1);
        } else if (!items.empty() && items[0].is_integer() && static_cast<size_t>(items[0].as_int()) == n) {
            grow(0);
        }
    }

    // affine_grid_generator(theta [N, 2, 3], size [N, C, H, W], ...) and its
    // backward (grad [N, H, W, 2], size, ...): the size list names the batch
    // first, beside a tensor of another shape.
    void scale_grid_size(std::string_view op, const EtValues& in, const std::vector<Change>& changes) {
        if (op != "aten::affine_grid_generator" && op != "aten::affine_grid_generator_backward") return;
        if (in.values->items().size() < 2) return;
        JsonValue& size = in.values->items()[1];
        std::optional<Shape> list = read_ints(&size);
        if (!list || list->empty()) return;
        for (const Change& c : changes) {
            if (c.position != 0 || c.place.dim != 0 || c.place.inner != 1 || c.place.delta != 0 || c.place.count) continue;
            if ((*list)[0] != c.old_shape[0]) return;
            (*list)[0] = c.new_shape[0];
            write_ints(size, *list);
            ++stats_.rewritten_lists;
            return;
        }
    }

    // CTC's input and target lengths as integer lists (the IntList overload,
    // _ctc_loss and its backward): one entry per sample, so B entries become
    // the new batch's, the recorded ones repeated in turn (cut short when the
    // batch shrinks).
    static bool per_sample_lists(std::string_view op, const std::vector<std::string_view>& names) {
        if (!names.empty())
            return std::any_of(names.begin(), names.end(), [](std::string_view n) { return n == "input_lengths"; });
        return op == "aten::ctc_loss" || op == "aten::_ctc_loss" || op == "aten::_ctc_loss_backward";
    }
    void tile_per_sample_lists(const EtValues& in, const std::vector<Change>& changes) {
        for (const Change& c : changes) {
            if (c.place.dim < 0 || c.place.inner != 1 || c.place.count || size_t(c.place.dim) >= c.old_shape.size()) continue;
            const int64_t old_batch = c.old_shape[c.place.dim] - c.place.delta;
            const int64_t new_batch = c.new_shape[c.place.dim] - c.place.delta;
            if (old_batch <= 0 || new_batch == old_batch) continue;
            bool tiled = false;
            for (size_t a = 0; a < in.values->items().size(); ++a) {
                JsonValue& v = in.values->items()[a];
                std::optional<Shape> list = read_ints(&v);
                if (is_tensor_argument(in, a) || !list || int64_t(list->size()) != old_batch) continue;
                Shape out(static_cast<size_t>(new_batch), 0);
                for (size_t k = 0; k < out.size(); ++k) out[k] = (*list)[k % list->size()];
                write_ints(v, out);
                ++stats_.rewritten_lists;
                tiled = true;
            }
            if (tiled) return;
        }
    }

    // Integer-list arguments that spell an old shape or strides of this op's tensors.
    void rewrite_lists(JsonValue& node, const std::vector<Change>& changes) {
        EtValues in = doc_.inputs(node);
        if (!in.values || !in.values->is_array()) return;
        // A batch passed as a number: group norm's `N` (native_group_norm and
        // its backward take N, C and HxW besides the input [N, C, ...]).
        std::vector<std::string_view> names;
        if (const JsonValue* schema = EtDocument::field(node, "op_schema"); schema && schema->is_string())
            names = analysis::schema_argument_names(schema->as_string());
        if (names.size() == in.values->items().size())
            for (size_t a = 0; a < names.size(); ++a) {
                JsonValue& v = in.values->items()[a];
                if (names[a] != "N" || !v.is_integer()) continue;
                for (const Change& c : changes)
                    if (c.place.dim == 0 && !c.old_shape.empty() && c.old_shape[0] == v.as_int()) {
                        v = JsonValue::of_int(c.new_shape[0]);
                        ++stats_.rewritten_lists;
                        break;
                    }
            }
        if (per_sample_lists(EtDocument::name(node), names)) tile_per_sample_lists(in, changes);
        scale_factory_sizes(EtDocument::name(node), in, changes);
        scale_batch_bounds(node, in, changes);
        scale_split_sizes(node, in, changes);
        scale_as_strided(EtDocument::name(node), in, changes);
        scale_grid_size(EtDocument::name(node), in, changes);
        for (size_t a = 0; a < in.values->items().size(); ++a) {
            JsonValue& v = in.values->items()[a];
            if (is_tensor_argument(in, a)) continue;
            std::optional<Shape> list = read_ints(&v);
            if (!list || list->empty()) continue;
            for (const Change& c : changes) {
                if (matches(*list, c.old_shape)) {
                    Shape out = c.new_shape;
                    for (size_t i = 0; i < out.size(); ++i)
                        if ((*list)[i] == -1) out[i] = -1;
                    write_ints(v, out);
                    ++stats_.rewritten_lists;
                    break;
                }
                if (*list == c.old_strides && c.old_strides != c.new_strides) {
                    write_ints(v, c.new_strides);
                    ++stats_.rewritten_lists;
                    break;
                }
            }
        }
    }

    // Whether one op is inside the other (or they are the same op).
    bool same_nest(int64_t a, int64_t b) const {
        auto inside = [&](int64_t inner, int64_t outer) {
            for (int depth = 0; depth < 256 && inner >= 0; ++depth) {
                if (inner == outer) return true;
                auto n = node_by_id_.find(inner);
                if (n == node_by_id_.end()) return false;
                const int64_t up = doc_.parent(*n->second);
                if (up == inner) return false;
                inner = up;
            }
            return false;
        };
        return inside(a, b) || inside(b, a);
    }

    // A tensor occurrence with the shape its tensor was placed at: the same place.
    BatchPlace placed(const Key& k, const Shape& s) const {
        auto p = placed_.find(k);
        return p == placed_.end() || p->second.old_shape != s ? BatchPlace() : p->second.place;
    }

    // A tensor no op made whose storage an op's output holds is a second
    // handle on that output: 1.13 unpacks a saved output (log_softmax's, for
    // its backward) as a new TensorImpl, whose id is whatever freed tensor
    // last had its address, so the id alone cannot say what it is. With the
    // producer's shape it carries the batch where the producer does.
    // Views of the output share its storage, so the producer is the latest
    // output on it with the same shape.
    void adopt_storage_producer(const Key& k, const std::optional<Shape>& shape, std::map<Key, bool>& carries) {
        auto producers = storage_producers_.find(k.second);
        if (k.second == 0 || producers == storage_producers_.end() || !shape) return;
        for (auto key = producers->second.rbegin(); key != producers->second.rend(); ++key) {
            auto p = placed_.find(*key);
            if (p == placed_.end() || p->second.old_shape != *shape) continue;
            carries[k] = carries[*key];
            placed_.emplace(k, p->second);
            return;
        }
    }

    static bool is_recurrent(std::string_view op) {
        return op == "aten::lstm" || op == "aten::gru" || op == "aten::rnn_tanh" || op == "aten::rnn_relu";
    }

    // The batch of the first recurrent layer over a padded [T, B, E] input
    // (or [B, T, E] with batch_first): its dimension given by the flag, the
    // schemas' last argument. 0 where there is none (packed sequences).
    int64_t recurrent_batch() const {
        for (size_t i : order_) {
            JsonValue& node = doc_.nodes()[i];
            if (!is_recurrent(EtDocument::name(node))) continue;
            const EtValues in = doc_.inputs(node);
            if (!in.values || !in.values->is_array() || in.values->items().size() != 9) continue;
            const JsonValue& batch_first = in.values->items()[8];
            if (batch_first.kind() != JsonValue::Kind::Bool) continue;
            std::optional<Shape> shape;
            visit_argument_tensors(in, 0, [&](const EtTensor& t) { shape = read_ints(t.shape); });
            if (shape && shape->size() == 3) return (*shape)[batch_first.as_bool() ? 0 : 1];
        }
        return 0;
    }

    // The initial hidden states an RNN op takes ([layers x directions, B,
    // hidden], the batch second): nn.LSTM and nn.GRU make them with zeros
    // inside the step, from nothing, so nothing carries the batch to them.
    void find_rnn_states() {
        for (size_t i : order_) {
            JsonValue& node = doc_.nodes()[i];
            if (!is_recurrent(EtDocument::name(node))) continue;
            visit_argument_tensors(doc_.inputs(node), 1, [&](const EtTensor& t) {
                std::optional<Shape> shape = read_ints(t.shape);
                if (shape && shape->size() == 3) rnn_states_.insert(key_of(t.value));
            });
        }
    }

    void propagate_and_scale() {
        for (size_t i : order_) node_by_id_[EtDocument::id(doc_.nodes()[i])] = &doc_.nodes()[i];
        std::map<Key, bool> carries;
        for (const auto& [k, s] : data_) carries[k] = true;
        for (size_t i : order_) {
            JsonValue& node = doc_.nodes()[i];
            const int64_t id = EtDocument::id(node);
            bool from_data = false;
            std::vector<Change> changes;
            const auto scale_input = [&](const EtTensor& t, size_t position) {
                Key k = key_of(t.value);
                if (!carries.count(k)) adopt_storage_producer(k, read_ints(t.shape), carries);
                auto c = carries.find(k);
                if (c == carries.end() || !c->second) return;
                std::optional<Shape> s = read_ints(t.shape);
                // A 0-d tensor has no batch to carry: one that does here holds the
                // key of a batch-carrying tensor freed before it (1.13 reuses ids
                // and addresses; NAdam's 0-d step scalars meet an activation's).
                if (s && s->empty()) return;
                from_data = true;
                if (!s) return;
                if (auto change = rescale(t, placed(k, *s), id, "inputs")) {
                    change->position = position;
                    placed_.emplace(k, Placed{change->old_shape, change->place, id});
                    if (data_.count(k)) note_storage_base(t, *change, true);
                    changes.push_back(*change);
                }
            };
            std::set<int64_t> input_storages;  // an output on none of them is a new storage
            size_t position = 0;
            int64_t largest_input = 0;  // elements of the op's largest tensor operand, as scaled
            visit_tensors(doc_.inputs(node), [&](const EtTensor& t) {
                input_storages.insert(key_of(t.value).second);
                scale_input(t, position++);
                if (std::optional<Shape> s = read_ints(t.shape)) largest_input = std::max(largest_input, product(*s));
            });
            const std::string_view op = EtDocument::name(node);
            size_t output_position = 0;
            const std::vector<Change> input_changes = changes;
            refuse_pairwise(id, op, input_changes);
            visit_tensors(doc_.outputs(node), [&](const EtTensor& t) {
                Key k = key_of(t.value);
                std::optional<Shape> s = read_ints(t.shape);
                // An op inside another remaking the enclosing op's output (the
                // empty + view native_layer_norm fills its mean with): as placed.
                // Only within one nest of ops: elsewhere the same key is a new
                // tensor that 1.13 gave a freed one's id and address (a
                // threshold_backward output on the storage and id of the
                // transposed view before it), placed by its own inputs.
                if (s) {
                    BatchPlace known = placed(k, *s);
                    if (known.dim >= 0 && carries[k] && same_nest(placed_.at(k).node, id)) {
                        ++output_position;
                        if (auto change = rescale(t, known, id, "outputs")) change->output = true, changes.push_back(*change);
                        return;
                    }
                }
                // Made from data; or made from nothing (zeros(B, H)), or broadcast
                // from a bias (expand to [B, N]: more elements than any operand),
                // with a batch size first.
                const bool broadcast = s && !s->empty() && !parameter_shaped(*s) && product(*s) > largest_input;
                bool batch = from_data || (broadcast && batch_values_.count((*s)[0]));
                // Made inside an op for its result (addmm's bias expanded to
                // [T x B, out] or to a concatenation's [2B, out]; layer norm's
                // statistics made flat, [T x B], then viewed as [T, B, 1]).
                const std::optional<BatchPlace> enclosing =
                    !batch && s && !s->empty() ? made_for_enclosing_result(op, node, k, *s) : std::nullopt;
                batch = batch || enclosing.has_value();
                // An identity beside a [B, B] matrix (a kernel's jitter, the
                // diagonal a contrastive loss masks) has its size.
                batch = batch || (op == "aten::eye" && s && pairwise_shapes_.count(*s));
                // Made from nothing at the shape of a count (a mean's backward
                // expands its gradient to the selected rows' shape).
                std::optional<BatchPlace> remade;
                if (s && !from_data) {
                    if (auto count = count_shapes_.find(*s); count != count_shapes_.end()) remade = count->second;
                    auto piece = piece_shapes_.find(*s);
                    if (!remade && piece != piece_shapes_.end() && (makes_new_tensor(op) || op == "aten::expand") && !parameter_shaped(*s))
                        remade = piece->second;
                }
                batch = batch || remade.has_value();
                if (output_position++ > 0 && statistics_after_first(op)) batch = false;
                const bool rnn_state = !batch && input_changes.empty() && s && s->size() == 3 && rnn_states_.count(k) &&
                                       batch_values_.count((*s)[1]);
                batch = batch || rnn_state;
                carries[k] = batch;
                if (k.second != 0) storage_producers_[k.second].push_back(k);
                if (!batch || !s) return;
                BatchPlace place;
                if (rnn_state) place = {1, 1, 0};
                if (enclosing) place = *enclosing;
                if (remade) place = *remade;
                const int64_t distinct = output_position != 2 ? unique_groups(op, input_changes, *s) : 0;
                if (distinct > 0) {
                    place = {0, 1, 0, true, distinct};  // the values and their counts
                } else if (output_position == 1 && !input_changes.empty() && selects_by_mask(op, doc_.inputs(node)) && s->size() >= 1) {
                    place = {0, 1, 0, true};
                } else if (!input_changes.empty()) {
                    place = follow_any(*s, input_changes, op, node);
                    // A backward op making its input's gradient from a piece's
                    // (slice_backward's zeros of the whole, then the piece
                    // copied in): the shape of a tensor that held the batch.
                    if (place.dim < 0 && ends_with(op, "_backward"))
                        if (auto known = carried_shapes_.find(*s); known != carried_shapes_.end()) place = known->second;
                    if (place.dim < 0) {
                        carries[k] = false;  // reduced over the batch (a sum over it, the loss)
                        return;
                    }
                }
                if (auto change = rescale(t, place, id, "outputs")) {
                    change->output = true;
                    if (!input_storages.count(k.second)) note_storage_base(t, *change, false);
                    placed_[k] = {change->old_shape, change->place, id};
                    if (change->place.dim >= 0 && !change->place.count) {
                        carried_shapes_.emplace(change->old_shape, change->place);
                        carried_counts_.emplace(product(change->old_shape), product(change->new_shape));
                    }
                    if (change->place.count) count_shapes_.emplace(change->old_shape, change->place);
                    if (batch_piece(change->old_shape, input_changes, op, node)) piece_shapes_.emplace(change->old_shape, change->place);
                    changes.push_back(*change);
                }
            });
            if (!changes.empty()) rewrite_lists(node, changes);
            scale_element_count_divisor(node);
        }
    }

    EtDocument& doc_;
    ScaleOptions options_;
    ScaleStats stats_;
    std::vector<size_t> order_;
    std::set<Shape> parameter_shapes_;
    std::set<Key> parameter_keys_;
    std::map<Key, Shape> data_;
    std::map<Key, Shape> ambiguous_;  // inputs of a parameter's shape, data only if they lead with the batch
    std::set<Key> written_;           // every tensor an op of the step writes in place or as out=
    std::set<Key> loss_targets_;      // what losses read as their second argument
    std::set<Key> embedding_inputs_;
    std::set<Key> rnn_states_;  // find_rnn_states()
    int64_t batch_ = 0;
    std::set<int64_t> batch_values_;
    std::unordered_map<int64_t, const JsonValue*> node_by_id_;
    std::map<Key, Placed> placed_;
    // Shapes of tensors counting what a mask selected: a tensor made from
    // nothing at one of them (a mean's backward expanding its gradient to
    // the selected rows) is one too.
    std::map<Shape, BatchPlace> count_shapes_;
    // Shapes of pieces of the batch (chunk, split, x[:B // 2]): zeros made
    // or a gradient expanded at one of them (chunk's backward filling the
    // pieces the loss did not read, a mean's backward) are one too; the
    // gradient of a weight of that shape is not.
    std::map<Shape, BatchPlace> piece_shapes_;
    std::map<Shape, BatchPlace> carried_shapes_;  // old shapes of op outputs that held the batch, where
    std::map<int64_t, int64_t> carried_counts_;   // their element counts, old -> new
    // The shapes of the [B, B] matrices the step made: a tensor of one of
    // them is another such matrix (a kernel's identity, its Cholesky factor's
    // gradient made from zeros), not a coincidence.
    mutable std::set<Shape> pairwise_shapes_;
    std::map<int64_t, std::vector<Key>> storage_producers_;  // storage id -> the op outputs that held it, in order
    std::map<int64_t, std::vector<StorageLayout>> storage_bases_;  // storage id -> whole-storage tensors scaled, in order
};

}  // namespace

ScaleStats scale_batch(EtDocument& doc, const ScaleOptions& options) { return BatchScaler(doc, options).run(); }

ScaleStats scale_batch_file(const std::string& input, const ScaleOptions& options, const std::string& output) {
    EtDocument doc = EtDocument::read(input);
    const ScaleStats stats = scale_batch(doc, options);
    doc.write(output);
    return stats;
}

}  // namespace mimic::compose

#include "replay/exec/valid_values.h"

#include <ATen/ops/_embedding_bag.h>
#include <ATen/ops/adaptive_max_pool2d.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/eye.h>
#include <ATen/ops/max_pool2d_with_indices.h>
#include <ATen/ops/max_pool3d_with_indices.h>
#include <ATen/ops/randint.h>
#include <ATen/ops/randperm.h>
#include <ATen/ops/zeros.h>
#include <ATen/ops/tensor.h>

#include <algorithm>

namespace mimic::replay {
namespace {

struct Args {
    const ValidValueContext& ctx;

    const Value* value(size_t i) const {
        if (i >= ctx.args.size() || ctx.args[i].is_constant) return nullptr;
        return ctx.args[i].recorded;
    }
    const TensorMeta* tensor(size_t i) const {
        const Value* v = value(i);
        if (!v || v->kind != ValueKind::Tensor) return nullptr;
        const TensorMeta& m = ctx.trace.tensor(*v);
        return m.undefined ? nullptr : &m;
    }
    // The layout of recorded tensor argument i; false when it is none or has no layout here.
    bool layout(size_t i, TensorLayout& l) const {
        const TensorMeta* m = tensor(i);
        return m && layout_of(ctx.trace, *m, l).empty();
    }
    bool integral(size_t i) const {
        TensorLayout l;
        return layout(i, l) && c10::isIntegralType(l.dtype, false);
    }
    std::vector<int64_t> shape(size_t i) const {
        const TensorMeta* m = tensor(i);
        if (!m) return {};
        return {ctx.trace.shape(*m), ctx.trace.shape(*m) + m->rank};
    }
    int64_t integer(size_t i, int64_t fallback) const {
        const Value* v = value(i);
        if (v && v->kind == ValueKind::Int) return v->payload.i;
        if (v && v->kind == ValueKind::Bool) return v->payload.b;
        return fallback;
    }
    std::vector<int64_t> ints(size_t i) const {
        const Value* v = value(i);
        std::vector<int64_t> out;
        if (!v) return out;
        if (v->kind == ValueKind::Int) return {v->payload.i};
        if (v->kind != ValueKind::List) return out;
        for (uint32_t k = 0; k < v->payload.range.count; ++k) {
            const Value& e = ctx.trace.values[v->payload.range.begin + k];
            if (e.kind == ValueKind::Int) out.push_back(e.payload.i);
        }
        return out;
    }
    // The shape of a recorded tensor value, or of element 0 of a Tensor[];
    // empty when it is neither.
    std::vector<int64_t> first_tensor_shape_of(const Value* v) const {
        if (v && v->kind == ValueKind::List && v->payload.range.count > 0) v = &ctx.trace.values[v->payload.range.begin];
        if (!v || v->kind != ValueKind::Tensor || ctx.trace.tensor(*v).undefined) return {};
        const TensorMeta& m = ctx.trace.tensor(*v);
        return {ctx.trace.shape(m), ctx.trace.shape(m) + m.rank};
    }
    // The recorded shape of output i (of its first element when it is a Tensor[]).
    std::vector<int64_t> output_shape(size_t i) const {
        const ValueRange& outputs = ctx.trace.nodes[ctx.node.value].outputs;
        return i < outputs.count ? first_tensor_shape_of(ctx.trace.value_ptr(outputs, uint32_t(i))) : std::vector<int64_t>{};
    }
    // The shape of recorded argument i, or of its element 0 when it is a Tensor[].
    std::vector<int64_t> first_tensor_shape(size_t i) const { return first_tensor_shape_of(value(i)); }
    // A fresh tensor shaped like recorded argument i (its pool-style values).
    at::Tensor like(size_t i) const {
        TensorLayout l;
        layout_of(ctx.trace, *tensor(i), l);
        return ctx.pool.fresh(l);
    }
};

int64_t dim_size(const std::vector<int64_t>& shape, int64_t dim) {
    const int64_t rank = int64_t(shape.size());
    if (rank == 0) return 1;  // a 0-d tensor indexes like a 1-element one
    if (dim < 0) dim += rank;
    return dim >= 0 && dim < rank ? shape[size_t(dim)] : -1;
}

int64_t numel(const std::vector<int64_t>& shape) {
    int64_t n = 1;
    for (int64_t s : shape) n *= s;
    return n;
}

using Overrides = std::vector<std::pair<size_t, c10::IValue>>;

// Random indices in [0, high) shaped like argument `i`.
std::string indices(const Args& a, size_t i, int64_t high, Overrides& out) {
    const TensorMeta* m = a.tensor(i);
    if (!m || !a.integral(i)) return {};  // not an index tensor (absent, or float probabilities)
    std::vector<int64_t> shape = a.shape(i);
    TensorLayout l;
    layout_of(a.ctx.trace, *m, l);
    if (numel(shape) > 0 && high <= 0) return "indices into an empty or unknown dimension";
    at::Tensor t = at::randint(0, std::max<int64_t>(high, 1), shape, at::TensorOptions().dtype(l.dtype).device(a.ctx.pool.device()));
    out.emplace_back(i, t);
    return {};
}

at::Tensor offsets_tensor(const Args& a, size_t i, int64_t n_indices, bool include_last) {
    TensorLayout l;
    layout_of(a.ctx.trace, *a.tensor(i), l);
    const int64_t count = numel(a.shape(i));
    std::vector<int64_t> offs = bag_offsets(include_last ? count - 1 : count, n_indices, include_last);
    offs.resize(size_t(count), n_indices);
    return at::tensor(offs, at::TensorOptions().dtype(c10::kLong)).to(l.dtype).to(a.ctx.pool.device());
}

std::string embedding_bag_forward(const Args& a, Overrides& out) {
    // (weight, indices, offsets, scale_grad_by_freq, mode, sparse, per_sample_weights, include_last_offset, padding_idx)
    const int64_t rows = dim_size(a.shape(0), 0);
    std::string why = indices(a, 1, rows, out);
    if (!why.empty() || !a.tensor(2) || !a.integral(2) || a.shape(1).size() != 1) return why;
    out.emplace_back(2, offsets_tensor(a, 2, numel(a.shape(1)), a.integer(7, 0) != 0));
    return {};
}

std::string embedding_bag_backward(const Args& a, Overrides& out) {
    // _embedding_bag_backward(grad, indices, offsets, offset2bag, bag_size, maximum_indices,
    //     num_weights, scale_grad_by_freq, mode, sparse, per_sample_weights, padding_idx)
    // offset2bag, bag_size and maximum_indices must agree with indices and
    // offsets: recompute them with the forward op on a weight of the same shape.
    if (!a.tensor(1) || !a.tensor(2) || !a.tensor(0) || a.shape(1).size() != 1) return "embedding_bag_backward: indices, offsets or grad missing";
    const int64_t rows = a.integer(6, -1);
    std::string why = indices(a, 1, rows, out);
    if (!why.empty()) return why;
    at::Tensor idx = out.back().second.toTensor();
    at::Tensor offs = offsets_tensor(a, 2, idx.numel(), false);
    out.emplace_back(2, offs);
    const int64_t dim = dim_size(a.shape(0), 1);
    at::Tensor weight = at::empty({rows, std::max<int64_t>(dim, 1)}, at::TensorOptions().device(a.ctx.pool.device())).normal_();
    c10::optional<at::Tensor> psw;
    if (a.tensor(10)) psw = a.like(10);
    auto fwd = at::_embedding_bag(weight, idx, offs, false, a.integer(8, 0), false, psw, false, a.integer(11, -1));
    out.emplace_back(3, std::get<1>(fwd));
    out.emplace_back(4, std::get<2>(fwd));
    out.emplace_back(5, std::get<3>(fwd));
    return {};
}

std::string max_pool_backward(const Args& a, bool three_d, Overrides& out) {
    // (grad_output, self, kernel_size, stride, padding, dilation, ceil_mode, indices): the
    // backward scatters through `indices`, so they come from the forward on `self`.
    if (!a.tensor(1)) return "max_pool backward: input not recorded";
    at::Tensor self = a.like(1);
    auto k = a.ints(2), s = a.ints(3), p = a.ints(4), d = a.ints(5);
    const bool ceil = a.integer(6, 0) != 0;
    at::Tensor idx = three_d ? std::get<1>(at::max_pool3d_with_indices(self, k, s, p, d, ceil))
                             : std::get<1>(at::max_pool2d_with_indices(self, k, s, p, d, ceil));
    out.emplace_back(7, idx);
    return {};
}

std::string adaptive_max_pool_backward(const Args& a, Overrides& out) {
    // (grad_output, self, indices)
    if (!a.tensor(1) || !a.tensor(0)) return "adaptive_max_pool2d_backward: input not recorded";
    std::vector<int64_t> g = a.shape(0);
    if (g.size() < 2) return "adaptive_max_pool2d_backward: grad rank < 2";
    out.emplace_back(2, std::get<1>(at::adaptive_max_pool2d(a.like(1), {g[g.size() - 2], g[g.size() - 1]})));
    return {};
}

std::string loss_target(const Args& a, size_t input, size_t target, Overrides& out) {
    std::vector<int64_t> in = a.shape(input);
    const int64_t classes = in.size() == 1 ? in[0] : dim_size(in, 1);
    return indices(a, target, classes, out);
}

// A boolean tensor of `shape` with exactly `count` elements true, at random
// places: a mask that selects as many elements as the original's did, so
// what it selects has the recorded shape.
at::Tensor mask_with_count(const std::vector<int64_t>& shape, int64_t count, c10::Device device) {
    const int64_t n = numel(shape);
    at::Tensor flat = at::zeros({n}, at::TensorOptions().dtype(c10::kBool));
    if (count > 0) flat.index_fill_(0, at::randperm(n, at::TensorOptions().dtype(c10::kLong)).narrow(0, 0, std::min(count, n)), true);
    return flat.view(shape).to(device);
}

std::string advanced_index(const Args& a, bool put, Overrides& out) {
    // index(self, Tensor?[] indices), index_put_(self, indices, values, ...): the k-th index
    // tensor indexes dimension k of self. A boolean mask alone in first place (`x[mask]`)
    // selects as many elements as the recorded result has rows (index) or as the
    // recorded values (index_put); other masks keep their pool values.
    const Value* list = a.value(1);
    if (!list || list->kind != ValueKind::List) return {};
    int64_t selected = -1;
    if (list->payload.range.count == 1) {
        const std::vector<int64_t> result = put ? a.shape(2) : a.output_shape(0);
        if (!result.empty() && (!put || numel(result) > 1)) selected = result[0];
    }
    std::vector<int64_t> self = a.shape(0);
    c10::List<c10::optional<at::Tensor>> rebuilt;
    bool changed = false;
    for (uint32_t k = 0; k < list->payload.range.count; ++k) {
        const Value& e = a.ctx.trace.values[list->payload.range.begin + k];
        const TensorMeta* m = e.kind == ValueKind::Tensor && !a.ctx.trace.tensor(e).undefined ? &a.ctx.trace.tensor(e) : nullptr;
        TensorLayout l;
        if (!m || !layout_of(a.ctx.trace, *m, l).empty()) {
            if (m) return "index list element " + std::to_string(k) + ": " + layout_of(a.ctx.trace, *m, l);
            rebuilt.push_back(c10::nullopt);
            continue;
        }
        if (l.dtype == c10::kBool && k == 0 && selected >= 0 && selected <= l.numel) {
            rebuilt.push_back(mask_with_count(l.sizes, selected, a.ctx.pool.device()));
            changed = true;
            continue;
        }
        if (!c10::isIntegralType(l.dtype, false)) {
            rebuilt.push_back(a.ctx.pool.fresh(l));
            continue;
        }
        const int64_t high = dim_size(self, int64_t(k));
        if (l.numel > 0 && high <= 0) return "index into an empty or unknown dimension";
        rebuilt.push_back(at::randint(0, std::max<int64_t>(high, 1), l.sizes, at::TensorOptions().dtype(l.dtype).device(a.ctx.pool.device())));
        changed = true;
    }
    if (changed) out.emplace_back(1, rebuilt);
    return {};
}

// Probabilities in (0, 1] shaped like argument `i`: multinomial and
// bernoulli refuse the pool's normal values (negative entries), and a
// binary cross-entropy's input and target must lie in [0, 1].
std::string probabilities(const Args& a, size_t i, Overrides& out) {
    TensorLayout l;
    if (!a.layout(i, l) || !c10::isFloatingType(l.dtype)) return {};
    out.emplace_back(i, a.like(i).uniform_(0.05, 1.0));
    return {};
}

// LU pivots shaped like argument `i` (1-based, LAPACK's): the identity
// permutation, the pivots of a matrix that needed no row swaps. The pool's
// values are refused ("pivots ... must all be greater or equal to 1").
std::string lu_pivots(const Args& a, size_t i, Overrides& out) {
    TensorLayout l;
    if (!a.layout(i, l) || !c10::isIntegralType(l.dtype, false) || l.sizes.empty()) return {};
    const int64_t k = l.sizes.back();
    out.emplace_back(i, at::arange(1, k + 1, at::TensorOptions().dtype(l.dtype)).expand(l.sizes).contiguous().to(a.ctx.pool.device()));
    return {};
}

// A symmetric positive-definite matrix (batch) shaped like argument `i`:
// a Cholesky factorization refuses the pool's random square matrices.
std::string positive_definite(const Args& a, size_t i, Overrides& out) {
    TensorLayout l;
    if (!a.layout(i, l) || !c10::isFloatingType(l.dtype) || l.sizes.size() < 2) return {};
    const int64_t n = l.sizes.back();
    if (l.sizes[l.sizes.size() - 2] != n) return {};
    at::Tensor x = a.like(i);
    at::Tensor gram = x.matmul(x.transpose(-2, -1)).div(double(std::max<int64_t>(n, 1)));
    out.emplace_back(i, gram.add(at::eye(n, x.options()).expand(l.sizes)).contiguous());
    return {};
}

// Random indices in [0, high) shaped like argument `i`, the first of them
// high - 1: ops that size their output by the largest index (one_hot with
// no class count, bincount) make the recorded shape.
std::string indices_reaching(const Args& a, size_t i, int64_t high, Overrides& out) {
    std::string why = indices(a, i, high, out);
    if (!why.empty() || out.empty() || out.back().first != i) return why;
    at::Tensor t = out.back().second.toTensor();
    if (t.numel() > 0 && high > 0) t.view({-1}).select(0, 0).fill_(high - 1);
    return {};
}

// Repeats (argument `at`) that make `total`, the recorded output's length,
// over `items` repeated items: one repeat per item summing to it, or a single
// repeat for all of them (total / items each).
std::string repeats_summing_to(const Args& a, size_t at, int64_t total, int64_t items, Overrides& out) {
    const TensorMeta* m = a.tensor(at);
    if (!m || !a.integral(at) || total < 0) return {};
    TensorLayout l;
    layout_of(a.ctx.trace, *m, l);
    const int64_t n = std::max<int64_t>(numel(a.shape(at)), 1);
    if (n == 1 && items > 1) total /= items;
    std::vector<int64_t> repeats(size_t(n), total / n);
    for (int64_t k = 0; k < total % n; ++k) ++repeats[size_t(k)];
    out.emplace_back(at, at::tensor(repeats, at::TensorOptions().dtype(c10::kLong)).view(l.sizes).to(l.dtype).to(a.ctx.pool.device()));
    return {};
}

// Values with exactly `distinct` different ones (each at least once), shaped
// like argument `i`; in runs when `consecutive` (unique_consecutive), else
// shuffled: unique's outputs are as long as the recorded ones.
std::string distinct_values(const Args& a, size_t i, int64_t distinct, bool consecutive, Overrides& out) {
    TensorLayout l;
    if (!a.layout(i, l)) return {};
    const int64_t n = l.numel;
    if (distinct <= 0 || distinct > n) return {};
    at::Tensor v = at::arange(n, at::TensorOptions().dtype(c10::kLong));
    v = consecutive ? v.mul(distinct).div(n, "floor") : v.remainder(distinct).index_select(0, at::randperm(n, at::TensorOptions().dtype(c10::kLong)));
    out.emplace_back(i, v.view(l.sizes).to(l.dtype).to(a.ctx.pool.device()));
    return {};
}

// A dense tensor (argument `i`) with as many nonzero entries as the
// original's: to_sparse keeps the nonzeros, and the pool's normal values
// have none at zero, so a 1%-dense adjacency became a fully dense sparse
// tensor (250,000 entries for 2,496) and the sparse matmul after it 20x
// slower. The count is the output of the nonzero the call made inside.
std::string nonzeros_as_recorded(const Args& a, size_t i, Overrides& out) {
    TensorLayout l;
    if (!a.layout(i, l) || l.sizes.empty()) return {};
    const Trace& trace = a.ctx.trace;
    for (const NodeIndex* c = trace.children_begin(a.ctx.node); c != trace.children_end(a.ctx.node); ++c) {
        const Node& child = trace.nodes[c->value];
        if (trace.name(child) != "aten::nonzero" || child.outputs.count == 0) continue;
        const Value* result = trace.value_ptr(child.outputs, 0);
        if (!result || result->kind != ValueKind::Tensor) return {};
        const TensorMeta& r = trace.tensor(*result);
        if (r.rank != 2 || trace.shape(r)[0] > l.numel) return {};
        at::Tensor mask = mask_with_count(l.sizes, trace.shape(r)[0], a.ctx.pool.device());
        out.emplace_back(i, a.like(i).mul(mask.to(l.dtype)));
        return {};
    }
    return {};
}

// A CPU int64 tensor of `values`: pack_padded_sequence's lengths and a packed
// sequence's batch sizes live on the CPU whatever the data's device.
at::Tensor cpu_longs(const std::vector<int64_t>& values) {
    return at::tensor(values, at::TensorOptions().dtype(c10::kLong));
}

std::string pack_padded_sequence(const Args& a, Overrides& out) {
    // (input, lengths, batch_first) -> (data [total, *], batch_sizes [longest])
    if (!a.tensor(1) || !a.integral(1)) return {};
    const std::vector<int64_t> input = a.shape(0);
    const int64_t padded = dim_size(input, a.integer(2, 0) != 0 ? 1 : 0);
    const int64_t sequences = numel(a.shape(1));
    const std::vector<int64_t> data = a.output_shape(0), batch_sizes = a.output_shape(1);
    const int64_t total = data.empty() ? sequences * padded : data[0];
    const int64_t longest = batch_sizes.size() == 1 ? batch_sizes[0] : padded;
    std::vector<int64_t> lengths = sequence_lengths(sequences, total, std::min(longest, padded));
    if (lengths.empty()) lengths.assign(size_t(std::max<int64_t>(sequences, 0)), padded);  // every sequence full
    out.emplace_back(1, cpu_longs(lengths));
    return {};
}

// Batch sizes (argument `at`) of a packed sequence of `total` rows over
// `sequences` sequences; their count is the recorded argument's.
std::string packed_batch_sizes(const Args& a, size_t at, int64_t total, int64_t sequences, Overrides& out) {
    if (!a.tensor(at) || !a.integral(at)) return {};
    const int64_t longest = numel(a.shape(at));
    const std::vector<int64_t> lengths = sequence_lengths(sequences, total, longest);
    if (lengths.empty())
        return "batch sizes: no " + std::to_string(sequences) + " sequences of at most " + std::to_string(longest) +
               " steps hold the " + std::to_string(total) + " recorded rows";
    out.emplace_back(at, cpu_longs(batch_sizes_of(lengths)));
    return {};
}

// CTC's lengths and targets, which its CPU kernels index by without checking
// them all (the backward reads log_alpha at 2 * target length + 1 per sample
// and the lengths lists as long as the batch it is told): every input as long
// as log_probs' T, target lengths whose longest fills log_alpha's recorded
// width, labels in [0, C) other than the blank. Recorded integer lists that
// already fit are the original's values and stay.
// (log_probs [T, B, C] or [T, C], targets [B, S] or [sum of lengths],
// input_lengths, target_lengths, blank, ...) from argument `first` on;
// `alpha_width` is log_alpha's last dimension where the call shows it, else 0.
std::string ctc_lengths(const Args& a, size_t first, int64_t alpha_width, Overrides& out) {
    const std::vector<int64_t> log_probs = a.shape(first);
    const std::vector<int64_t> targets = a.shape(first + 1);
    if (log_probs.size() < 2 || targets.empty()) return {};
    const int64_t steps = log_probs[0];
    const int64_t batch = log_probs.size() == 3 ? log_probs[1] : 1;
    const int64_t classes = log_probs.back();
    const int64_t blank = a.integer(first + 4, 0);
    if (classes < 2 || blank < 0 || blank >= classes) return "CTC with " + std::to_string(classes) + " classes and blank " + std::to_string(blank);
    const bool padded = targets.size() == 2;
    const int64_t labels = padded ? targets[1] : targets[0];
    int64_t longest = alpha_width > 0 ? (alpha_width - 1) / 2 : (padded ? labels : -1);
    if (longest < 0) longest = batch > 0 ? (labels + batch - 1) / batch : 0;
    longest = std::min({longest, steps, padded ? labels : longest});
    std::vector<int64_t> target_lengths(size_t(std::max<int64_t>(batch, 0)), longest);
    if (!padded) {
        // Concatenated targets: the lengths add up to the labels recorded.
        const std::vector<int64_t> spread = sequence_lengths(batch, labels, longest);
        if (spread.empty()) return "CTC targets of " + std::to_string(labels) + " labels cannot be split over " + std::to_string(batch) +
                                   " samples of at most " + std::to_string(longest);
        target_lengths = spread;
    }
    const std::vector<int64_t> input_lengths(target_lengths.size(), steps);
    const auto fits = [&](const std::vector<int64_t>& recorded, bool inputs) {
        if (recorded.size() != size_t(batch)) return false;
        int64_t most = 0, sum = 0;
        for (int64_t v : recorded) {
            if (v < 0 || v > (inputs ? steps : longest)) return false;
            most = std::max(most, v);
            sum += v;
        }
        return inputs || (padded ? alpha_width <= 0 || most == longest : sum == labels);
    };
    const auto set_lengths = [&](size_t i, const std::vector<int64_t>& values, bool inputs) {
        if (a.tensor(i)) {
            TensorLayout l;
            layout_of(a.ctx.trace, *a.tensor(i), l);
            out.emplace_back(i, cpu_longs(values).to(l.dtype).to(a.ctx.pool.device()));
        } else if (!fits(a.ints(i), inputs)) {
            out.emplace_back(i, c10::IValue(values));
        }
    };
    set_lengths(first + 2, input_lengths, true);
    set_lengths(first + 3, target_lengths, false);
    // Labels other than the blank.
    const TensorMeta* m = a.tensor(first + 1);
    if (!m || !a.integral(first + 1)) return {};
    TensorLayout l;
    layout_of(a.ctx.trace, *m, l);
    std::vector<int64_t> values(size_t(numel(targets)));
    for (size_t k = 0; k < values.size(); ++k) {
        const int64_t v = int64_t(k % size_t(classes - 1));  // every label in turn, the blank left out
        values[k] = v >= blank ? v + 1 : v;
    }
    out.emplace_back(first + 1, cpu_longs(values).view(targets).to(l.dtype).to(a.ctx.pool.device()));
    return {};
}

}  // namespace

std::vector<int64_t> sequence_lengths(int64_t sequences, int64_t total, int64_t longest) {
    if (sequences <= 0 || longest <= 0 || total < longest + sequences - 1 || total > sequences * longest) return {};
    std::vector<int64_t> lengths(size_t(sequences), 0);
    lengths[0] = longest;
    if (sequences == 1) return total == longest ? lengths : std::vector<int64_t>{};
    const int64_t rest = total - longest, others = sequences - 1;
    for (int64_t k = 0; k < others; ++k) lengths[size_t(k + 1)] = rest / others + (k < rest % others ? 1 : 0);
    return lengths;
}

std::vector<int64_t> batch_sizes_of(const std::vector<int64_t>& lengths) {
    std::vector<int64_t> sizes(lengths.empty() ? 0 : size_t(lengths[0]), 0);
    for (int64_t len : lengths)
        for (int64_t t = 0; t < len && size_t(t) < sizes.size(); ++t) ++sizes[size_t(t)];
    return sizes;
}

std::vector<int64_t> bag_offsets(int64_t bags, int64_t n, bool include_last) {
    std::vector<int64_t> offs;
    if (bags <= 0) {
        if (include_last) offs.push_back(n);
        return offs;
    }
    offs.reserve(size_t(bags) + 1);
    for (int64_t b = 0; b < bags; ++b) offs.push_back(b * n / bags);
    if (include_last) offs.push_back(n);
    return offs;
}

std::string valid_values(const ValidValueContext& ctx, Overrides& out) {
    std::string_view name = ctx.op_name;
    if (name.rfind("aten::", 0) == 0) name.remove_prefix(6);
    const Args a{ctx};
    if (name == "embedding") return indices(a, 1, dim_size(a.shape(0), 0), out);
    if (name == "embedding_backward" || name == "embedding_dense_backward" || name == "embedding_sparse_backward")
        return indices(a, 1, a.integer(2, -1), out);
    if (name == "embedding_bag" || name == "_embedding_bag" || name == "_embedding_bag_forward_only")
        return embedding_bag_forward(a, out);
    if (name == "_embedding_bag_backward" || name == "_embedding_bag_dense_backward" || name == "_embedding_bag_sparse_backward")
        return embedding_bag_backward(a, out);
    if (name == "index_select" || name == "gather" || name == "scatter" || name == "scatter_" ||
        name == "scatter_add" || name == "scatter_add_" || name == "scatter_reduce" || name == "scatter_reduce_" ||
        name == "index_add" || name == "index_add_" || name == "index_copy" || name == "index_copy_" ||
        name == "index_fill" || name == "index_fill_")
        return indices(a, 2, dim_size(a.shape(0), a.integer(1, 0)), out);
    if (name == "index_select_backward") {
        std::vector<int64_t> sizes = a.ints(1);
        return indices(a, 3, dim_size(sizes, a.integer(2, 0)), out);
    }
    if (name == "take") return indices(a, 1, numel(a.shape(0)), out);
    if (name == "index") return advanced_index(a, false, out);
    if (name == "index_put" || name == "index_put_" || name == "_index_put_impl_") return advanced_index(a, true, out);
    if (name == "embedding_renorm_") return indices(a, 1, dim_size(a.shape(0), 0), out);
    if (name == "masked_select" && a.tensor(1) && a.shape(1) == a.shape(0)) {
        // (self, mask): as many elements as the recorded result holds.
        const std::vector<int64_t> result = a.output_shape(0);
        const int64_t selected = result.size() == 1 ? result[0] : -1;
        if (selected >= 0 && selected <= numel(a.shape(1)))
            out.emplace_back(1, mask_with_count(a.shape(1), selected, a.ctx.pool.device()));
        return {};
    }
    if ((name == "nonzero" || name == "argwhere" || name == "where" || name == "nonzero_numpy") && a.tensor(0) &&
        ctx.args.size() == 1) {
        // A condition true as many times as the recorded result has rows
        // (nonzero: [count, dims]; where(condition): one [count] per dimension).
        const std::vector<int64_t> result = a.output_shape(0);
        const bool listed = name == "where" || name == "nonzero_numpy";
        if (result.size() == (listed ? 1u : 2u) && result[0] <= numel(a.shape(0))) {
            TensorLayout l;
            layout_of(a.ctx.trace, *a.tensor(0), l);
            out.emplace_back(0, mask_with_count(a.shape(0), result[0], a.ctx.pool.device()).to(l.dtype));
        }
        return {};
    }
    if (name == "multinomial" || (name == "bernoulli" && ctx.schema.overload_name().empty()))
        return probabilities(a, 0, out);
    if (name == "bernoulli_" && ctx.schema.overload_name() == "Tensor") return probabilities(a, 1, out);
    if (name == "binary_cross_entropy") {
        std::string why = probabilities(a, 0, out);
        return why.empty() ? probabilities(a, 1, out) : why;
    }
    if (name == "binary_cross_entropy_backward") {
        std::string why = probabilities(a, 1, out);
        return why.empty() ? probabilities(a, 2, out) : why;
    }
    if (name == "linalg_lu_solve" || name == "lu_unpack") return lu_pivots(a, 1, out);
    if (name == "lu_solve") return lu_pivots(a, 2, out);
    if (name == "linalg_cholesky" || name == "linalg_cholesky_ex" || name == "cholesky") return positive_definite(a, 0, out);
    if (name == "one_hot") {
        const int64_t classes = a.integer(1, -1);
        return classes > 0 ? indices(a, 0, classes, out) : indices_reaching(a, 0, dim_size(a.output_shape(0), -1), out);
    }
    if (name == "bincount") {
        // (self, weights, minlength) -> [max(minlength, largest + 1)]
        const int64_t length = dim_size(a.output_shape(0), 0);
        return length > a.integer(2, 0) ? indices_reaching(a, 0, length, out) : indices(a, 0, length, out);
    }
    if (name == "repeat_interleave") {
        // .Tensor(repeats) -> [sum]; .self_Tensor(self, repeats, dim) -> self repeated along dim (flattened without one)
        const std::vector<int64_t> result = a.output_shape(0);
        if (ctx.schema.overload_name() == "Tensor") return repeats_summing_to(a, 0, dim_size(result, 0), 1, out);
        if (ctx.schema.overload_name() == "self_Tensor") {
            const Value* dim = a.value(2);
            const bool flat = !dim || dim->kind != ValueKind::Int;
            const int64_t items = flat ? numel(a.shape(0)) : dim_size(a.shape(0), a.integer(2, 0));
            return repeats_summing_to(a, 1, flat ? dim_size(result, 0) : dim_size(result, a.integer(2, 0)), items, out);
        }
        return {};
    }
    if (name == "_unique" || name == "_unique2" || name == "unique_consecutive")
        return distinct_values(a, 0, dim_size(a.output_shape(0), 0), name == "unique_consecutive", out);
    if (name == "to_sparse" || name == "_to_sparse") return nonzeros_as_recorded(a, 0, out);
    if (name == "gather_backward") return indices(a, 3, dim_size(a.shape(1), a.integer(2, 0)), out);  // (grad, self, dim, index, sparse_grad)
    if (name == "nll_loss" || name == "nll_loss_nd" || name == "nll_loss2d" || name == "nll_loss_forward" ||
        name == "nll_loss2d_forward" || name == "cross_entropy_loss" || name == "multi_margin_loss" ||
        name == "multilabel_margin_loss")
        return loss_target(a, 0, 1, out);
    if (name == "nll_loss_backward" || name == "nll_loss2d_backward") return loss_target(a, 1, 2, out);
    if (name == "max_pool2d_with_indices_backward") return max_pool_backward(a, false, out);
    if (name == "max_pool3d_with_indices_backward") return max_pool_backward(a, true, out);
    if (name == "adaptive_max_pool2d_backward") return adaptive_max_pool_backward(a, out);
    if (name == "ctc_loss") return ctc_lengths(a, 0, 0, out);
    if (name == "_ctc_loss") return ctc_lengths(a, 0, dim_size(a.output_shape(1), -1), out);
    if (name == "_ctc_loss_backward") return ctc_lengths(a, 1, dim_size(a.shape(6), -1), out);
    if (name == "_pack_padded_sequence") return pack_padded_sequence(a, out);
    if (name == "_pack_padded_sequence_backward") {
        // (grad [total, *], input_size, batch_sizes, batch_first)
        const std::vector<int64_t> sizes = a.ints(1);
        return packed_batch_sizes(a, 2, dim_size(a.shape(0), 0), dim_size(sizes, a.integer(3, 0) != 0 ? 0 : 1), out);
    }
    if (name == "_pad_packed_sequence") {
        // (data [total, *], batch_sizes, ...) -> (padded, lengths [sequences])
        const std::vector<int64_t> lengths = a.output_shape(1);
        if (lengths.size() != 1) return {};
        return packed_batch_sizes(a, 1, dim_size(a.shape(0), 0), lengths[0], out);
    }
    if ((name == "lstm" || name == "gru" || name == "rnn_tanh" || name == "rnn_relu") &&
        ctx.schema.overload_name() == "data") {
        // (data [total, *], batch_sizes, hx [layers x directions, sequences, hidden] or [h, c], ...)
        return packed_batch_sizes(a, 1, dim_size(a.shape(0), 0), dim_size(a.first_tensor_shape(2), 1), out);
    }
    return {};
}

}  // namespace mimic::replay

#include "replay/exec/tensor_pool.h"

#include <algorithm>

#include <ATen/ops/_sparse_coo_tensor_unsafe.h>
#include <ATen/ops/_unique.h>
#include <ATen/ops/arange.h>
#include <ATen/ops/cat.h>
#include <ATen/ops/linspace.h>
#include <ATen/ops/empty.h>
#include <ATen/ops/randint.h>
#include <ATen/record_function.h>
#include <c10/core/GradMode.h>

#include "support/error.h"

namespace mimic::replay {

void fill_replay_values(at::Tensor& t) {
    if (t.numel() == 0) return;
    if (t.scalar_type() == c10::kBool) t.random_(0, 2);
    else if (c10::isIntegralType(t.scalar_type(), /*includeBool=*/false)) t.zero_();
    else t.normal_();
}

bool is_wrapped_scalar(const TensorLayout& layout) {
    return layout.sizes.empty() &&  // 0-d, so never sparse
           (layout.dtype == c10::kDouble || layout.dtype == c10::kLong || layout.dtype == c10::kComplexDouble);
}

TensorPool::Key TensorPool::key_of(const TensorMeta& meta, c10::ScalarType dtype) const {
    // Tensors with no storage id get a buffer of their own (high bit marks the tensor id).
    uint64_t id = meta.storage_id != 0 ? meta.storage_id : (meta.tensor_id | (uint64_t(1) << 63));
    return {id, meta.device.value, int(dtype)};
}

std::string TensorPool::reserve(const TensorMeta& meta) {
    TensorLayout layout;
    std::string why = layout_of(trace_, meta, layout);
    if (!why.empty()) return why;
    if (layout.sparse) return {};  // made whole on first use
    Buffer& b = buffers_[key_of(meta, layout.dtype)];
    if (b.storage_holder.defined() && b.bytes < layout.extent_bytes)
        return "view reaches past a storage already allocated";
    b.bytes = std::max(b.bytes, layout.extent_bytes);
    return {};
}

at::Tensor TensorPool::view(const TensorMeta& meta) {
    TensorLayout layout;
    std::string why = layout_of(trace_, meta, layout);
    if (!why.empty()) fail({trace_.source_path, -1, -1, "tensor"}, why);
    if (layout.sparse) return sparse_view(meta, layout);
    auto it = buffers_.find(key_of(meta, layout.dtype));
    if (it == buffers_.end() || it->second.bytes < layout.extent_bytes)
        fail({trace_.source_path, -1, -1, "tensor"}, "tensor pool: view was not reserved");
    Buffer& b = it->second;
    if (!b.storage_holder.defined()) {
        const int64_t itemsize = int64_t(c10::elementSize(layout.dtype));
        const int64_t elems = int64_t((b.bytes + itemsize - 1) / itemsize);
        b.storage_holder = at::empty({std::max<int64_t>(elems, 1)}, at::TensorOptions().dtype(layout.dtype).device(device_));
        fill_replay_values(b.storage_holder);
        allocated_bytes_ += b.storage_holder.nbytes();
    }
    at::Tensor v = at::empty({0}, at::TensorOptions().dtype(layout.dtype).device(device_));
    v.set_(b.storage_holder.storage(), layout.offset, layout.sizes, layout.strides);
    if (is_wrapped_scalar(layout)) v.unsafeGetTensorImpl()->set_wrapped_number(true);
    return v;
}

const std::unordered_map<uint64_t, TensorPool::SparseShape>& TensorPool::sparse_shapes() {
    if (sparse_shapes_) return *sparse_shapes_;
    sparse_shapes_.emplace();
    for (NodeIndex i : trace_.execution_order()) {
        const Node& n = trace_.nodes[i.value];
        const std::string_view name = trace_.name(n);
        const bool dims = name == "aten::sparse_dim", entries = name == "aten::_nnz", coalesced = name == "aten::is_coalesced";
        if ((!dims && !entries && !coalesced) || n.inputs.count != 1 || n.outputs.count != 1) continue;
        const Value& in = *trace_.value_ptr(n.inputs, 0);
        const Value& out = *trace_.value_ptr(n.outputs, 0);
        if (in.kind != ValueKind::Tensor) continue;
        SparseShape& s = (*sparse_shapes_)[trace_.tensor(in).tensor_id];
        if (coalesced) {
            if (s.coalesced < 0 && out.kind == ValueKind::Bool) s.coalesced = out.payload.b ? 1 : 0;
            continue;
        }
        if (out.kind != ValueKind::Int) continue;
        int64_t& field = dims ? s.sparse_dim : s.nnz;
        if (field < 0) field = out.payload.i;
    }
    return *sparse_shapes_;
}

namespace {

// `nnz` distinct positions of the first `sparse_dim` dimensions of `sizes`,
// in row-major order, as a [sparse_dim, nnz] index tensor: a coalesced
// tensor's indices. Undefined when fewer positions exist than asked for.
at::Tensor distinct_sorted_indices(const std::vector<int64_t>& sizes, int64_t sparse_dim, int64_t nnz,
                                   const at::TensorOptions& longs) {
    int64_t positions = 1;
    for (int64_t d = 0; d < sparse_dim; ++d) {
        if (__builtin_mul_overflow(positions, sizes[size_t(d)], &positions)) return {};
    }
    if (nnz > positions) return {};
    // Draws with a margin for repeats, then the distinct ones (sorted), cut to nnz.
    at::Tensor linear;
    for (int64_t draw = nnz + nnz / 4 + 16; draw <= 64 * (nnz + 16); draw *= 2) {
        linear = std::get<0>(at::_unique(at::randint(positions, {draw}, longs), /*sorted=*/true));
        if (linear.numel() >= nnz) break;
    }
    if (linear.numel() < nnz) linear = at::arange(positions, longs);
    // Keep nnz of them, spread over the whole range, still sorted.
    linear = linear.index_select(0, at::linspace(0, double(linear.numel() - 1), nnz, longs.dtype(c10::kDouble)).to(c10::kLong));
    at::Tensor indices = at::empty({sparse_dim, nnz}, longs);
    for (int64_t d = sparse_dim - 1; d >= 0; --d) {
        indices[d].copy_(linear.remainder(sizes[size_t(d)]));
        linear = linear.div(sizes[size_t(d)], "floor");
    }
    return indices;
}

}  // namespace

at::Tensor TensorPool::sparse_view(const TensorMeta& meta, const TensorLayout& layout) {
    Buffer& b = sparse_[{meta.tensor_id, int(layout.dtype)}];
    if (b.storage_holder.defined()) return b.storage_holder;
    // An embedding's gradient has one sparse dimension (rows) and dense
    // columns; where the trace says otherwise, it wins.
    const int64_t rank = int64_t(layout.sizes.size());
    SparseShape shape;
    if (auto it = sparse_shapes().find(meta.tensor_id); it != sparse_shapes().end()) shape = it->second;
    const int64_t sparse_dim = shape.sparse_dim >= 1 && shape.sparse_dim <= rank ? shape.sparse_dim : 1;
    const int64_t nnz = std::max<int64_t>(shape.nnz, 0);
    c10::AutoGradMode no_grad(false);
    at::DisableRecordFunctionGuard unseen;
    const auto longs = at::TensorOptions().dtype(c10::kLong).device(device_);
    at::Tensor indices = shape.coalesced == 1 ? distinct_sorted_indices(layout.sizes, sparse_dim, nnz, longs)
                                              : at::Tensor();
    const bool distinct = indices.defined();
    if (!distinct) {
        std::vector<at::Tensor> rows;
        for (int64_t d = 0; d < sparse_dim; ++d) rows.push_back(at::randint(layout.sizes[size_t(d)], {1, nnz}, longs));
        indices = rows.empty() ? at::empty({0, nnz}, longs) : at::cat(rows, 0);
    }
    std::vector<int64_t> value_sizes{nnz};
    value_sizes.insert(value_sizes.end(), layout.sizes.begin() + sparse_dim, layout.sizes.end());
    at::Tensor values = at::empty(value_sizes, at::TensorOptions().dtype(layout.dtype).device(device_));
    fill_replay_values(values);
    b.storage_holder = at::_sparse_coo_tensor_unsafe(indices, values, layout.sizes);
    // A tensor the original had coalesced (a graph's adjacency, coalesce()d
    // once) takes the kernels' coalesced paths; its indices are distinct and
    // sorted, so the mark is true. Random ones may repeat: no mark.
    if (distinct) b.storage_holder._coalesced_(true);
    allocated_bytes_ += indices.nbytes() + values.nbytes();
    if (keep_copies_) b.pristine = b.storage_holder.clone();
    return b.storage_holder;
}

void TensorPool::snapshot() {
    if (!keep_copies_) return;
    for (auto& [key, b] : buffers_)
        if (b.storage_holder.defined() && !b.pristine.defined()) {
            b.pristine = b.storage_holder.clone();
            allocated_bytes_ += b.pristine.nbytes();
        }
}

void TensorPool::restore() {
    c10::AutoGradMode no_grad(false);
    at::DisableRecordFunctionGuard unseen;  // replay bookkeeping, not an op of the trace: keep it out of --record-replay
    for (auto& [key, b] : buffers_) {
        if (!b.storage_holder.defined()) continue;
        if (!keep_copies_) fill_replay_values(b.storage_holder);
        else if (b.pristine.defined()) b.storage_holder.copy_(b.pristine);
    }
    // A sparse tensor gets its entries back: accumulation grows them, and
    // zero_grad on a sparse gradient drops them, as the original's did.
    // Cleared first: the iteration may have changed its sparse dimensions
    // (zero_ leaves a gradient with all of them sparse), which copy_ refuses.
    for (auto& [key, b] : sparse_) {
        if (!b.pristine.defined()) continue;
        b.storage_holder.sparse_resize_and_clear_(b.pristine.sizes(), b.pristine.sparse_dim(), b.pristine.dense_dim());
        b.storage_holder.copy_(b.pristine);
    }
    snapshot();
    // The copies leave the buffers in the caches, as the original's previous
    // iteration left its parameters, gradients and optimizer state: measured
    // on a 480 MB-L3 machine (2026-11-23), evicting them after the copy made
    // the replayed zero_grad and optimizer ops 1.5-2.7x slower than the
    // original's untraced ones; left cached, they are 2-8% off
    // (src/replay/README.md, "Per-op times").
}

at::Tensor TensorPool::fresh(const TensorLayout& layout) const {
    at::Tensor t = at::empty(layout.sizes, at::TensorOptions().dtype(layout.dtype).device(device_));
    fill_replay_values(t);
    return t;
}

}  // namespace mimic::replay

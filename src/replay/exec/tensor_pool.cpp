#include "replay/exec/tensor_pool.h"

#include <algorithm>

#include <ATen/ops/empty.h>
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

TensorPool::Key TensorPool::key_of(const TensorMeta& meta, c10::ScalarType dtype) const {
    // Tensors with no storage id get a buffer of their own (high bit marks the tensor id).
    uint64_t id = meta.storage_id != 0 ? meta.storage_id : (meta.tensor_id | (uint64_t(1) << 63));
    return {id, meta.device.value, int(dtype)};
}

std::string TensorPool::reserve(const TensorMeta& meta) {
    TensorLayout layout;
    std::string why = layout_of(trace_, meta, layout);
    if (!why.empty()) return why;
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
    return v;
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

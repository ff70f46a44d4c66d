// Tensors for recorded inputs that no replayed op produces (parameters,
// data, saved activations of nested ops). One buffer per (storage id,
// device, dtype) sized to cover every view of it the replay will take, so
// tensors that shared storage in the original share it here, and no view
// can reach past its buffer. Buffers are allocated on first use and filled
// once (floats from N(0,1), integers 0, booleans random) so that timing does
// not meet denormals, NaNs or out-of-range indices. A sparse COO tensor
// (a gradient of an embedding with sparse=True) is made sparse, with the
// sparse dimensions and entries the trace reports for it, so the ops that
// read it (the optimizer's update, autograd's accumulation) take the sparse
// kernels the original took, not a dense pass over the whole table.
#pragma once

#include <ATen/core/Tensor.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <unordered_map>

#include "replay/exec/tensor_layout.h"
#include "trace/trace.h"

namespace mimic::replay {

class TensorPool {
public:
    TensorPool(const Trace& trace, c10::Device device) : trace_(trace), device_(device) {}

    // Plan phase: make the buffer of this use's storage cover it. Returns the
    // reason the use cannot be laid out, or "".
    std::string reserve(const TensorMeta& meta);
    // A view onto the buffer (allocated on first use); reserve() first.
    at::Tensor view(const TensorMeta& meta);
    // A fresh contiguous tensor of this layout and values, owned by the caller.
    at::Tensor fresh(const TensorLayout& layout) const;

    // Saves every allocated buffer's values; restore() puts them back (and
    // snapshots buffers allocated since). Each timed iteration starts from the
    // same values: without it the replayed optimizer trains the model on
    // arbitrary data, it diverges within a few iterations, and NaNs change
    // the speed of data-dependent kernels (max pooling: 4x).
    void snapshot();
    void restore();
    // Without copies (a trace whose live set fills memory: a second copy of
    // a GPT-2-large's parameters and optimizer state does not fit beside
    // it), snapshot() keeps nothing and restore() fills every buffer again
    // with fresh values of the kinds fill_replay_values gives: each
    // iteration starts from values of the same distribution, not the same
    // values, at the cost of the fill's time between iterations.
    void set_keep_copies(bool keep) { keep_copies_ = keep; }
    c10::Device device() const { return device_; }
    uint64_t allocated_bytes() const { return allocated_bytes_; }
    size_t buffers() const { return buffers_.size(); }

private:
    using Key = std::tuple<uint64_t, uint32_t, int>;  // storage id (or tensor id when none), device, dtype
    struct Buffer {
        uint64_t bytes = 0;
        at::Tensor storage_holder;  // a 1-D tensor owning the storage
        at::Tensor pristine;        // its values at snapshot time
    };
    Key key_of(const TensorMeta& meta, c10::ScalarType dtype) const;
    at::Tensor sparse_view(const TensorMeta& meta, const TensorLayout& layout);
    // Per sparse tensor id, its sparse dimensions, stored entries and whether
    // they are coalesced, where the trace first asks (aten::sparse_dim,
    // aten::_nnz, aten::is_coalesced); built on first use.
    struct SparseShape {
        int64_t sparse_dim = -1;
        int64_t nnz = -1;
        int coalesced = -1;  // aten::is_coalesced's answer: 1, 0, or -1 (never asked)
    };
    const std::unordered_map<uint64_t, SparseShape>& sparse_shapes();

    const Trace& trace_;
    c10::Device device_;
    std::map<Key, Buffer> buffers_;
    // Sparse COO tensors by (tensor id, dtype): no storage to share, so one
    // tensor per recorded tensor, kept and restored like a buffer.
    std::map<std::pair<uint64_t, int>, Buffer> sparse_;
    std::optional<std::unordered_map<uint64_t, SparseShape>> sparse_shapes_;
    uint64_t allocated_bytes_ = 0;
    bool keep_copies_ = true;
};

// A Python number passed where an op takes a tensor: PyTorch wraps it in a
// 0-d double, int64 or complex double tensor marked as a wrapped number,
// which type promotion ignores, and no op produced it, so it comes from the
// pool. The pool's tensors of that kind are marked so too: unmarked, `loss *
// 0.5` on a 0-d float loss came out double, and the backward's float GEMMs
// refused it (a VAE's KL term, 4 GEMMs skipped).
bool is_wrapped_scalar(const TensorLayout& layout);

// Fills a tensor with replay values: floats N(0,1), integers 0, bool random.
void fill_replay_values(at::Tensor& t);

}  // namespace mimic::replay

#include "replay/exec/tensor_layout.h"

#include "replay/exec/dtypes.h"

namespace mimic::replay {
namespace {

constexpr uint64_t kMaxTensorBytes = uint64_t(1) << 40;  // beyond this a recorded size is garbage

bool mul_overflows(uint64_t a, uint64_t b, uint64_t& out) { return __builtin_mul_overflow(a, b, &out); }

}  // namespace

bool is_sparse_use(const Trace& trace, const TensorMeta& meta) {
    if (meta.undefined || meta.storage_id != 0 || meta.numel != 0 || meta.itemsize != 0 || meta.rank == 0) return false;
    const int64_t* shape = trace.shape(meta);
    for (uint16_t d = 0; d < meta.rank; ++d)
        if (shape[d] <= 0) return false;
    return true;
}

std::string layout_of(const Trace& trace, const TensorMeta& meta, TensorLayout& out) {
    std::string_view dtype = trace.str(meta.dtype);
    auto st = parse_dtype(dtype);
    if (!st) return "unknown dtype '" + std::string(dtype) + "'";
    out.dtype = *st;
    const int64_t* shape = trace.shape(meta);
    out.sizes.assign(shape, shape + meta.rank);
    uint64_t numel = 1;
    for (int64_t s : out.sizes) {
        if (s < 0) return "negative size in shape";
        if (mul_overflows(numel, uint64_t(s), numel) || numel > kMaxTensorBytes) return "shape too large";
    }
    if (meta.numel != 0 && meta.numel != numel && !(meta.rank == 0 && meta.numel == 1))
        return "shape contradicts numel " + std::to_string(meta.numel);
    out.numel = int64_t(numel);
    out.sparse = is_sparse_use(trace, meta);
    if (out.sparse) {
        out.strides.clear();
        out.offset = 0;
        out.extent_bytes = 0;
        return {};
    }
    out.strides.assign(meta.rank, 1);
    if (meta.has_strides) {
        const int64_t* strides = trace.strides(meta);
        for (uint16_t d = 0; d < meta.rank; ++d) {
            if (strides[d] < 0) return "negative stride";
            out.strides[d] = strides[d];
        }
    } else {
        for (int d = int(meta.rank) - 2; d >= 0; --d)
            out.strides[d] = out.strides[d + 1] * std::max<int64_t>(out.sizes[d + 1], 1);
    }
    if (meta.offset > kMaxTensorBytes) return "storage offset too large";
    out.offset = int64_t(meta.offset);
    const uint64_t itemsize = c10::elementSize(out.dtype);
    if (meta.itemsize != 0 && meta.itemsize != itemsize)
        return "itemsize " + std::to_string(meta.itemsize) + " contradicts dtype '" + std::string(dtype) + "'";
    uint64_t last = out.offset;  // index of the last element reached, exclusive below
    if (numel == 0) {
        out.extent_bytes = uint64_t(out.offset) * itemsize;
        return {};
    }
    for (size_t d = 0; d < out.sizes.size(); ++d) {
        uint64_t reach = 0;
        if (mul_overflows(uint64_t(out.sizes[d] - 1), uint64_t(out.strides[d]), reach)) return "strides too large";
        last += reach;
        if (last > kMaxTensorBytes) return "strides too large";
    }
    out.extent_bytes = (last + 1) * itemsize;
    if (out.extent_bytes > kMaxTensorBytes) return "tensor too large";
    return {};
}

}  // namespace mimic::replay

// The layout of one recorded tensor use, checked: scalar type, shape,
// strides (contiguous when the trace has none), element offset and the bytes
// of storage it reaches. A use that cannot be laid out (unknown dtype,
// negative sizes, shape that contradicts numel) gives a reason instead.
#pragma once

#include <c10/core/ScalarType.h>

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace mimic::replay {

struct TensorLayout {
    c10::ScalarType dtype = c10::kFloat;
    std::vector<int64_t> sizes;
    std::vector<int64_t> strides;
    int64_t offset = 0;        // in elements
    uint64_t extent_bytes = 0; // bytes of storage from its start that the view touches
    int64_t numel = 0;
    // A sparse COO tensor: the observer writes one as a tensor with no
    // storage (storage id, numel and itemsize 0) and its dense shape. It has
    // no strides or extent; the pool makes it (TensorPool::view).
    bool sparse = false;
};

// The observer's mark of a tensor with no storage of its own (a sparse COO
// tensor on the CPU): storage id, numel and itemsize 0 under a shape that
// holds elements.
bool is_sparse_use(const Trace& trace, const TensorMeta& meta);

// Fills `out` and returns "" or returns why the tensor cannot be built.
std::string layout_of(const Trace& trace, const TensorMeta& meta, TensorLayout& out);

}  // namespace mimic::replay

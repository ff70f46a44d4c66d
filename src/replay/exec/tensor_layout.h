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
};

// Fills `out` and returns "" or returns why the tensor cannot be built.
std::string layout_of(const Trace& trace, const TensorMeta& meta, TensorLayout& out);

}  // namespace mimic::replay

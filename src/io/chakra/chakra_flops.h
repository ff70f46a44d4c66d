// Floating-point operation counts of the ops that dominate compute, from the
// shapes recorded in the trace, for Chakra's `num_ops` (roofline models).
// One multiply-add counts as two operations.
#pragma once

#include <cstdint>

#include "trace/trace.h"

namespace mimic {

// FLOPs of mm, addmm, bmm, baddbmm, matmul, linear, convolutions (any
// aten:: spelling, transposed too) and convolution_backward. -1 when the
// op is not one of these or its shapes are not recorded.
int64_t op_flops(const Trace& trace, const Node& node);

}  // namespace mimic

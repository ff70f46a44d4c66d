// Device time of a GPU trace's operators estimated from a device spec: each
// top-level op's kernels from its FLOPs and bytes (the slower of compute at
// the achievable peak and memory traffic at the achievable bandwidth) plus a
// fixed cost per kernel, compared per op family with the kernels the
// profile recorded. Estimates from nominal peaks, not measurements.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/device_spec.h"
#include "model/op_family.h"
#include "trace/trace.h"

namespace mimic::model {

struct FamilyKernelError {
    size_t ops = 0, kernels = 0;
    double recorded_us = 0, estimated_us = 0;
    double geomean_abs_error_pct = 0;  // over the family's ops, each |estimated / recorded - 1|
};

struct GpuEstimate {
    std::string device;                       // the spec used
    std::map<OpFamily, FamilyKernelError> by_family;
    double recorded_us = 0, estimated_us = 0;
    size_t ops = 0, kernels = 0, ops_without_shapes = 0;
};

// `trace` must be finalized with a profile linked (Trace::device_events).
GpuEstimate estimate_gpu_kernels(const Trace& trace, const DeviceSpec& spec);

}  // namespace mimic::model

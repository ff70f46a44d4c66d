// How long a generated compute step takes on a device: the roofline
//     max(flops / (peak x achievable_compute), bytes / (bandwidth x achievable_bandwidth))
// plus the device's fixed cost per kernel, in whole microseconds (Chakra's
// unit; at least 1, as a step that ran took some time). The same FLOPs and
// bytes go into the node as num_ops and tensor_size, so ASTRA-sim's own
// roofline (roofline-enabled) can time it instead.
#pragma once

#include <cstdint>
#include <string>

#include "model/device_spec.h"

namespace mimic::compose {

class ComputeCost {
public:
    // `dtype`: as a trace spells it ("c10::BFloat16"), for the device's peak.
    ComputeCost(const model::DeviceSpec& spec, const std::string& dtype);
    uint64_t duration_us(uint64_t flops, uint64_t bytes, int kernels) const;

private:
    double flops_per_us_ = 0, bytes_per_us_ = 0, kernel_us_ = 0;
};

}  // namespace mimic::compose

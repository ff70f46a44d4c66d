#include "compose/generate_cost.h"

#include <algorithm>
#include <cmath>

namespace mimic::compose {

ComputeCost::ComputeCost(const model::DeviceSpec& spec, const std::string& dtype)
    : flops_per_us_(spec.peak_flops_per_s(dtype) * spec.achievable_compute / 1e6),
      bytes_per_us_(spec.memory_GBps * 1e9 * spec.achievable_bandwidth / 1e6),
      kernel_us_(spec.kernel_overhead_us) {}

uint64_t ComputeCost::duration_us(uint64_t flops, uint64_t bytes, int kernels) const {
    const double compute = flops_per_us_ > 0 ? static_cast<double>(flops) / flops_per_us_ : 0;
    const double memory = bytes_per_us_ > 0 ? static_cast<double>(bytes) / bytes_per_us_ : 0;
    const double us = std::max(compute, memory) + kernel_us_ * kernels;
    return std::max<uint64_t>(1, static_cast<uint64_t>(std::llround(us)));
}

}  // namespace mimic::compose

// A GPU this machine does not have, as a small JSON file (data/devices/,
// documented in its README): peak FLOP/s per dtype, memory bandwidth, the
// shares of them kernels reach, a fixed cost per kernel, interconnect.
#pragma once

#include <string>
#include <vector>

namespace mimic::model {

struct DeviceSpec {
    std::string name, source;
    std::vector<std::string> match;
    double fp32_tflops = 0, tf32_tflops = 0, fp16_tflops = 0, bf16_tflops = 0;
    double memory_GBps = 0;
    double achievable_compute = 0, achievable_bandwidth = 0;
    double kernel_overhead_us = 0;
    double interconnect_GBps = 0;
    // Peak FLOP/s for a tensor dtype as the trace spells it ("float", "c10::Half"...).
    double peak_flops_per_s(const std::string& dtype) const;
};

// Reads a spec; throws mimic::Error naming the file and the field that is
// missing or impossible (a non-positive peak or bandwidth, a share outside (0, 1]).
DeviceSpec read_device_spec(const std::string& path);
DeviceSpec parse_device_spec(const std::string& text, const std::string& source);

// The specs in a directory (*.json), and the one whose `match` strings fit
// a device name best (the longest match); nullptr when none fits.
std::vector<DeviceSpec> read_device_specs(const std::string& dir);
const DeviceSpec* match_device(const std::vector<DeviceSpec>& specs, const std::string& device_name);

}  // namespace mimic::model

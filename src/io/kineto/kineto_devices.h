// The GPUs a Kineto trace was recorded on (its "deviceProperties" list),
// which the event reader leaves in the file.
#pragma once

#include <string>
#include <vector>

namespace mimic {

// Device names in the order listed; empty when the trace has none (a CPU
// profile). Throws mimic::Error naming the file when it cannot be read.
std::vector<std::string> kineto_device_names(const std::string& path);

}  // namespace mimic

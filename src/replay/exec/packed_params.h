// Objects that a trace records only as "<Object>": the prepacked weights of
// quantized linear layers (`LinearPackedParamsBase`, made once by
// `quantize_dynamic` or a quantized model's conversion, outside the traced
// step). The replay rebuilds one per call from what the call's shapes say:
// the weight is [out_features, in_features] (the input's last dimension, the
// output's last dimension), quantized to int8 per tensor (or kept float for
// the fp16 ops), with a float bias as nn.Linear has by default; the kernels'
// speed depends on those shapes, not on the weight's values.
#pragma once

#include <ATen/core/ivalue.h>

#include <string>
#include <utility>
#include <vector>

#include "replay/exec/valid_values.h"

namespace mimic::replay {

// Appends (argument index, packed object) for every argument of a custom
// class the replay can rebuild; returns "" or why an "<Object>" argument
// cannot be rebuilt (the op is skipped with that reason).
std::string packed_params(const ValidValueContext& ctx, std::vector<std::pair<size_t, c10::IValue>>& overrides);

}  // namespace mimic::replay

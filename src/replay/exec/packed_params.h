// Objects that a trace records only as "<Object>": the prepacked weights of
// dynamically quantized layers (made once by `quantize_dynamic`, outside the
// traced step). The replay rebuilds them from what the call's shapes say; the
// kernels' speed depends on those shapes, not on the weights' values.
// - `LinearPackedParamsBase` (quantized::linear_dynamic and kin): a weight of
//   [out_features, in_features] (the output's and the input's last
//   dimensions), int8 per tensor (float for the fp16 ops), with a float bias
//   as nn.Linear has by default.
// - `CellParamsBase[]` (aten::quantized_lstm, aten::quantized_gru): per layer
//   and direction, the gates' input and hidden weights, from the input's
//   features, the hidden state's size and `bidirectional`.
// A convolution's packed weight also holds its kernel size, stride and
// padding, which no recorded shape gives: such calls are skipped, named.
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

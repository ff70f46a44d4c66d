// Operators that exist only for one device (cuDNN's batch norm and
// convolution, CUDA's fused dropout) have a portable twin that computes the
// same thing with the same shapes. When replaying on a device the recorded
// op has no kernel for, the call is rewritten to the twin: arguments are
// reordered and the ones the twin needs but the original lacks are filled.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "replay/exec/step_builder.h"
#include "trace/trace.h"

namespace mimic::replay {

struct Substitute {
    c10::OperatorHandle op;
    std::vector<ArgSource> args;
    std::vector<const Value*> outputs;  // recorded output standing for each return of `op`
};

// The portable twin of a device-only op recorded with `inputs` and
// `outputs`, or nullopt when `op_name` has none.
std::optional<Substitute> substitute_for(std::string_view op_name, const Trace& trace, const Node& node);

}  // namespace mimic::replay

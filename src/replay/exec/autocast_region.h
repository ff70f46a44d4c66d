// Ops the original ran under torch.autocast. The dispatcher's autocast layer
// records the op twice: the outer call with the inputs as the model passed
// them, and inside it the casts of those inputs (aten::to / aten::_to_copy)
// and the op again on the cast tensors. The replay runs the outer call; run
// without autocast it would compute in the inputs' dtype (a float linear
// where the original's was bfloat16), and the ops after it (its backward,
// recorded in bfloat16) would refuse the mix of dtypes. So such a step runs
// under autocast to the dtype its inputs were cast to.
#pragma once

#include <c10/core/ScalarType.h>

#include "trace/trace.h"

namespace mimic::replay {

// The reduced-precision dtype the autocast layer cast `node`'s inputs to, or
// ScalarType::Undefined when the node did not run under autocast. An op on
// autocast's float32 list (its inputs cast up only) gives BFloat16, CPU
// autocast's own default, since its result does not depend on the dtype.
c10::ScalarType autocast_dtype(const Trace& trace, NodeIndex node);

// CPU autocast to `dtype` for the enclosed calls, as torch.autocast("cpu")
// sets it. On exit it drops autocast's cache of cast weights: the original's
// region dropped it at its end, once per step, and a cache kept across
// iterations would leave later iterations without their weight casts.
// Throws c10::Error, changing nothing, for a dtype CPU autocast does not take
// (torch 1.13: all but bfloat16); the step builder gives it none such.
class AutocastScope {
public:
    explicit AutocastScope(c10::ScalarType dtype);
    ~AutocastScope();
    AutocastScope(const AutocastScope&) = delete;
    AutocastScope& operator=(const AutocastScope&) = delete;

private:
    bool was_enabled_;
    c10::ScalarType previous_dtype_;
};

}  // namespace mimic::replay

// One planned operator call: the dispatcher handle, a template of its boxed
// arguments (constants and pool tensors already in place) and the tensors to
// patch in at run time from earlier ops' outputs (real data flow). Kept
// small and flat: the run loop copies the template, patches, calls.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/ivalue.h>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "replay/exec/tensor_layout.h"
#include "replay/exec/unboxed_calls.h"
#include "trace/ids.h"

namespace mimic::replay {

constexpr int32_t kWholeArg = -1;

// A tensor argument (or list element) that an earlier step produces.
struct TensorPatch {
    uint16_t arg = 0;
    int32_t elem = kWholeArg;   // index inside a Tensor[] / Tensor?[] argument
    uint32_t slot = 0;          // Replayer slot written by the producing step
    uint32_t tensor_index = 0;  // the consumer's TensorMeta in Trace::tensors (for fallbacks)
    int32_t view = -1;          // index into Plan::views when the consumer is a different view of the storage
    bool dead = false;          // replaced by a pool tensor after a failed check
};

// An output of the step that later steps read.
struct OutputBinding {
    uint16_t ret = 0;
    int32_t elem = kWholeArg;
    uint32_t slot = 0;
    uint32_t tensor_index = 0;  // recorded TensorMeta, to check the produced shape
};

struct Step {
    NodeIndex node;
    std::optional<c10::OperatorHandle> op;  // none for a communication call
    UnboxedCall unboxed = nullptr;          // set for the ops unboxed_calls.h calls unboxed
    int32_t collective = -1;  // index into the Replayer's collectives, for a communication call
    // Collectives still in flight whose buffers this step touches: they are
    // waited for first, as DDP waits for a bucket before reading it.
    std::vector<uint32_t> wait_for;
    std::string name;  // the recorded op name (a substitute keeps the original's name)
    std::vector<c10::IValue> args;
    std::vector<TensorPatch> patches;
    std::vector<OutputBinding> outputs;
    bool has_list_patches = false;  // lists are copied before patching
    // Autograd recorded this op in the original (the ET gave it a sequence
    // number): it runs with grad mode on, so composite ops take the same
    // paths (max_pool2d keeps indices, convolution keeps what backward needs)
    // and pay the same graph-building cost.
    bool grad_mode = false;
    // The original ran this op under torch.autocast to this dtype
    // (autocast_region.h); Undefined when it did not.
    c10::ScalarType autocast = c10::ScalarType::Undefined;
    bool skipped = false;           // threw during the check run; left out since
    std::string skip_reason;
    explicit Step(c10::OperatorHandle h) : op(std::move(h)) {}
    Step() = default;
};

}  // namespace mimic::replay

// Turns recorded operator calls into Steps: converts each recorded value to
// the IValue its schema argument wants (defaults for missing trailing
// arguments), and decides where each input tensor comes from: the output of
// an earlier step when the same tensor (or another view of its storage) was
// produced by one, else the tensor pool. Ops whose values cannot be built
// are refused with a reason; nothing is guessed silently.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "replay/exec/step.h"
#include "replay/exec/tensor_pool.h"
#include "trace/trace.h"

namespace mimic::replay {

// One argument for the target schema: a recorded value, or a constant
// (substitutes fill arguments the recorded op did not have).
struct ArgSource {
    const Value* recorded = nullptr;
    c10::IValue constant;
    bool is_constant = false;
    static ArgSource of(const Value* v) { return {v, {}, false}; }
    static ArgSource fixed(c10::IValue v) { return {nullptr, std::move(v), true}; }
};

class StepBuilder {
public:
    StepBuilder(const Trace& trace, TensorPool& pool) : trace_(trace), pool_(pool) {}

    // Plans `node` as a call of `op` with `args`; `outputs[r]` is the recorded
    // output value that return r of `op` stands for (nullptr: not read later).
    // On success appends to `steps` and returns ""; else returns the reason.
    std::string build(NodeIndex node, const c10::OperatorHandle& op, const std::vector<ArgSource>& args,
                      const std::vector<const Value*>& outputs, std::vector<Step>& steps);

    uint32_t slot_count() const { return next_slot_; }
    std::vector<TensorLayout>& views() { return views_; }

private:
    struct Produced {
        uint32_t slot = 0;
        uint32_t tensor_index = 0;
    };
    struct Conversion;  // per-step scratch, defined in the .cpp

    std::string convert(Conversion& c, uint16_t arg, const c10::TypePtr& type, const Value& v, c10::IValue& out);
    std::string tensor_arg(Conversion& c, uint16_t arg, int32_t elem, const Value& v, at::Tensor& out);
    bool same_view(const TensorMeta& a, const TensorMeta& b) const;

    const Trace& trace_;
    TensorPool& pool_;
    std::unordered_map<uint64_t, std::unordered_map<uint64_t, Produced>> by_tensor_;  // tensor id -> storage id -> producer
    std::unordered_map<uint64_t, Produced> by_storage_;
    std::vector<TensorLayout> views_;
    uint32_t next_slot_ = 0;
};

}  // namespace mimic::replay

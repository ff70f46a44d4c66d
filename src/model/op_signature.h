// What an operator call's cost depends on, as one string: its name and each
// input's dtype and shape (tensors), value (scalars, small int lists) or
// kind; two calls with the same signature cost the same on one machine.
#pragma once

#include <cstdint>
#include <string>

#include "trace/trace.h"

namespace mimic::model {

std::string op_signature(const Trace& trace, const Node& node);

// What a cost model needs of a call beyond its signature.
struct OpFacts {
    std::string name;
    std::string signature;
    int64_t flops = -1;   // -1: no FLOP formula for this op
    uint64_t bytes = 0;   // tensor bytes read and written (inputs + outputs)
    uint64_t output_bytes = 0;
    // Every output is one of the inputs and the op is not in-place: a view,
    // or a conversion with nothing to do (to() of the dtype it has).
    bool moves_nothing = false;
};
OpFacts op_facts(const Trace& trace, const Node& node);

}  // namespace mimic::model

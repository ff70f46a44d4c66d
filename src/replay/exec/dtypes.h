// Tensor element types as the execution trace spells them ("float",
// "c10::Half", "long int"...) mapped to c10 scalar types.
#pragma once

#include <c10/core/ScalarType.h>

#include <optional>
#include <string_view>

namespace mimic::replay {

// The scalar type of a trace dtype string (the text inside "Tensor(...)"),
// or nullopt for one this replayer does not know (quantized types, "nullptr
// (uninitialized)", garbage): the op using it is skipped with that reason.
std::optional<c10::ScalarType> parse_dtype(std::string_view trace_dtype);

}  // namespace mimic::replay

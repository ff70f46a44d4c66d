#include "replay/exec/dtypes.h"

#include <utility>

namespace mimic::replay {

std::optional<c10::ScalarType> parse_dtype(std::string_view s) {
    // Spellings written by PyTorch's ET observer (c10's demangled C++ type
    // names) and by Chakra converters (short names).
    static constexpr std::pair<std::string_view, c10::ScalarType> kNames[] = {
        {"float", c10::kFloat},
        {"double", c10::kDouble},
        {"c10::Half", c10::kHalf},
        {"c10::BFloat16", c10::kBFloat16},
        {"long int", c10::kLong},
        {"long", c10::kLong},
        {"int64_t", c10::kLong},
        {"long long", c10::kLong},
        {"int", c10::kInt},
        {"short int", c10::kShort},
        {"short", c10::kShort},
        {"signed char", c10::kChar},
        {"unsigned char", c10::kByte},
        {"bool", c10::kBool},
        {"c10::complex<float>", c10::kComplexFloat},
        {"c10::complex<double>", c10::kComplexDouble},
        {"c10::complex<c10::Half>", c10::kComplexHalf},
        {"half", c10::kHalf},
        {"bfloat16", c10::kBFloat16},
        {"int8", c10::kChar},
        {"uint8", c10::kByte},
        {"int32", c10::kInt},
        {"int64", c10::kLong},
        {"float32", c10::kFloat},
        {"float64", c10::kDouble},
    };
    for (const auto& [name, type] : kNames)
        if (name == s) return type;
    return std::nullopt;
}

}  // namespace mimic::replay

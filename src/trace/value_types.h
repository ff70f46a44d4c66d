// What a recorded type string says ("Tensor(float)", "GenericList[Int,Int]",
// "Tuple[String,String]", "Int", ...): the one reading of PyTorch's type
// strings, shared by the ET reader and the Chakra IOInfo decoder.
#pragma once

#include <string_view>
#include <memory>
#include <vector>

#include "support/interner.h"
#include "trace/value.h"

namespace mimic {

struct ValueTypeInfo {
    ValueKind kind = ValueKind::Unknown;  // Unknown: read the value by its own syntax
    StrId dtype;                          // tensors: the element type inside Tensor(...)
    bool undefined_tensor = false;        // Tensor(nullptr (uninitialized))
    std::vector<StrId> elements;          // lists and tuples: the element type strings
};

// Splits "A,B[C,D],E(F,G)" at top-level commas (brackets and parentheses nest).
std::vector<std::string_view> split_type_list(std::string_view list);

ValueTypeInfo describe_value_type(std::string_view type, StringInterner& strings);

// Parses each distinct type string once; a trace repeats a few hundred of them.
// Looked up once per value read, so by the string's dense id, not by hash.
class ValueTypeTable {
public:
    const ValueTypeInfo& of(StrId type, StringInterner& strings) {
        if (type.value < by_id_.size() && by_id_[type.value]) return *by_id_[type.value];
        return describe(type, strings);
    }

private:
    const ValueTypeInfo& describe(StrId type, StringInterner& strings);
    std::vector<std::unique_ptr<ValueTypeInfo>> by_id_;  // owned one by one: references stay valid
};

}  // namespace mimic

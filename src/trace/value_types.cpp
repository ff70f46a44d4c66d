#include "trace/value_types.h"

namespace mimic {

namespace {
// "Prefix[inner]" -> inner, when s has that prefix and closing character.
bool strip(std::string_view s, std::string_view prefix, char close, std::string_view& inner) {
    if (s.size() < prefix.size() + 1 || s.substr(0, prefix.size()) != prefix || s.back() != close) return false;
    inner = s.substr(prefix.size(), s.size() - prefix.size() - 1);
    return true;
}
}  // namespace

std::vector<std::string_view> split_type_list(std::string_view list) {
    std::vector<std::string_view> out;
    int depth = 0;
    size_t begin = 0;
    for (size_t i = 0; i < list.size(); ++i) {
        char c = list[i];
        if (c == '[' || c == '(') ++depth;
        else if (c == ']' || c == ')') --depth;
        else if (c == ',' && depth == 0) {
            out.push_back(list.substr(begin, i - begin));
            begin = i + 1;
        }
    }
    if (begin < list.size()) out.push_back(list.substr(begin));
    return out;
}

ValueTypeInfo describe_value_type(std::string_view t, StringInterner& strings) {
    ValueTypeInfo info;
    std::string_view inner;
    if (strip(t, "Tensor(", ')', inner)) {
        info.kind = ValueKind::Tensor;
        info.undefined_tensor = inner.substr(0, 7) == "nullptr";
        info.dtype = strings.intern(inner);
    } else if (t == "Tensor") {
        info.kind = ValueKind::Tensor;
    } else if (strip(t, "GenericList[", ']', inner) || strip(t, "Tuple[", ']', inner) ||
               strip(t, "TensorList[", ']', inner) || strip(t, "List[", ']', inner)) {
        info.kind = ValueKind::List;
        for (std::string_view e : split_type_list(inner)) info.elements.push_back(strings.intern(e));
    } else if (t == "Int" || t == "SymInt" || t == "Layout" || t == "ScalarType" || t == "MemoryFormat") {
        info.kind = ValueKind::Int;
    } else if (t == "Double" || t == "Float") {
        info.kind = ValueKind::Double;
    } else if (t == "Bool") {
        info.kind = ValueKind::Bool;
    } else if (t == "String") {
        info.kind = ValueKind::String;
    } else if (t == "Device") {
        info.kind = ValueKind::Device;
    } else if (t == "None") {
        info.kind = ValueKind::None;
    } else if (t == "Object") {
        info.kind = ValueKind::Object;
    } else if (t == "Generator") {
        info.kind = ValueKind::Generator;
    }
    return info;
}

const ValueTypeInfo& ValueTypeTable::describe(StrId type, StringInterner& strings) {
    if (type.value >= by_id_.size()) by_id_.resize(type.value + 1);
    by_id_[type.value] = std::make_unique<ValueTypeInfo>(describe_value_type(strings.view(type), strings));
    return *by_id_[type.value];
}

}  // namespace mimic

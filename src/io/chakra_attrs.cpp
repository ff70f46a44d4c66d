#include "io/chakra_attrs.h"

#include <cstring>

#include "et_def.pb.h"
#include "io/chakra_wire.h"

namespace mimic {

namespace {

using ChakraProtoMsg::AttributeProto;

// Oneof field names by field number (3..32), as Chakra's schema names them.
constexpr std::array<std::string_view, 33> kFieldNames = {
    "",           "",              "",          "double",     "double_list", "float",         "float_list",
    "int32",      "int32_list",    "int64",     "int64_list", "uint32",      "uint32_list",   "uint64",
    "uint64_list", "sint32",       "sint32_list", "sint64",   "sint64_list", "fixed32",       "fixed32_list",
    "fixed64",    "fixed64_list",  "sfixed32",  "sfixed32_list", "sfixed64", "sfixed64_list", "bool",
    "bool_list",  "string",        "string_list", "bytes",    "bytes_list"};

bool is_list_field(int field) { return field >= 3 && field % 2 == 0; }
bool is_int_field(int field) { return field >= 7 && field <= 26; }

int32_t zigzag32(uint64_t v) { return static_cast<int32_t>((static_cast<uint32_t>(v) >> 1) ^ -(static_cast<uint32_t>(v) & 1)); }
int64_t zigzag64(uint64_t v) { return static_cast<int64_t>((v >> 1) ^ -(v & 1)); }

// A scalar oneof field's raw bits as a Value (kind and payload).
Value scalar_value(int field, uint64_t bits) {
    Value v;
    switch (field) {
        case AttributeProto::kDoubleVal:
            v.kind = ValueKind::Double;
            std::memcpy(&v.payload.d, &bits, 8);
            break;
        case AttributeProto::kFloatVal: {
            float f;
            const uint32_t b32 = static_cast<uint32_t>(bits);
            std::memcpy(&f, &b32, 4);
            v.kind = ValueKind::Double;
            v.payload.d = f;
            break;
        }
        case AttributeProto::kInt32Val:
        case AttributeProto::kSfixed32Val: v.kind = ValueKind::Int; v.payload.i = static_cast<int32_t>(bits); break;
        case AttributeProto::kUint32Val:
        case AttributeProto::kFixed32Val: v.kind = ValueKind::Int; v.payload.i = static_cast<uint32_t>(bits); break;
        case AttributeProto::kSint32Val: v.kind = ValueKind::Int; v.payload.i = zigzag32(bits); break;
        case AttributeProto::kSint64Val: v.kind = ValueKind::Int; v.payload.i = zigzag64(bits); break;
        case AttributeProto::kBoolVal: v.kind = ValueKind::Bool; v.payload.b = bits != 0; break;
        // int64, uint64, fixed64, sfixed64: the bits; the type string says whether to read them unsigned.
        default: v.kind = ValueKind::Int; v.payload.i = static_cast<int64_t>(bits); break;
    }
    return v;
}

// The wire type of a list's elements (field: the *List field number).
int element_wire_type(int list_field) {
    switch (list_field) {
        case AttributeProto::kDoubleList:
        case AttributeProto::kFixed64List:
        case AttributeProto::kSfixed64List: return 1;
        case AttributeProto::kFloatList:
        case AttributeProto::kFixed32List:
        case AttributeProto::kSfixed32List: return 5;
        default: return 0;
    }
}

}  // namespace

StrId ChakraAttrReader::type_of(int field) {
    if (field < 3 || field > 32) return StrId{};
    StrId& id = field_types_[static_cast<size_t>(field)];
    if (id.value == 0) id = trace_.strings.intern(kFieldNames[static_cast<size_t>(field)]);
    return id;
}

StrId ChakraAttrReader::name_of(std::string_view name, size_t position) {
    if (position < names_by_position_.size() && names_by_position_[position].first == name)
        return names_by_position_[position].second;
    StrId id = trace_.strings.intern(name);
    if (position >= names_by_position_.size()) names_by_position_.resize(position + 1);
    names_by_position_[position] = {std::string(name), id};
    return id;
}

bool ChakraAttrReader::read(const ChakraAttrView& a, size_t position, Attr& out) {
    out.name = name_of(a.name, position);
    Value& v = out.value;
    v = Value{};
    const int field = a.field;
    if (field == 0) return true;  // no value set: None
    v.type = type_of(field);
    if (field == AttributeProto::kStringVal || field == AttributeProto::kBytesVal) {
        v.kind = ValueKind::String;
        v.payload.str = trace_.strings.intern(a.bytes);
        return true;
    }
    if (!is_list_field(field)) {
        const StrId type = v.type;
        v = scalar_value(field, a.bits);
        v.type = type;
        return true;
    }
    // A list: its elements carry the scalar field's name ("int64").
    const StrId element_type = type_of(field - 1);
    const uint32_t begin = static_cast<uint32_t>(trace_.values.size());
    if (field == AttributeProto::kStringList || field == AttributeProto::kBytesList) {
        strings_.clear();
        if (!decode_attr_list_bytes(a, strings_)) return false;
        for (std::string_view s : strings_) {
            Value e;
            e.kind = ValueKind::String;
            e.type = element_type;
            e.payload.str = trace_.strings.intern(s);
            trace_.values.push_back(e);
        }
    } else {
        scalars_.clear();
        if (!decode_attr_list_scalars(a, element_wire_type(field), scalars_)) return false;
        for (uint64_t bits : scalars_) {
            Value e = scalar_value(field - 1, bits);
            e.type = element_type;
            trace_.values.push_back(e);
        }
    }
    v.kind = ValueKind::List;
    v.payload.range = {begin, static_cast<uint32_t>(trace_.values.size() - begin)};
    return true;
}

int ChakraAttrWriter::field_for(StrId type) {
    if (type.value >= field_by_type_.size()) field_by_type_.resize(trace_.strings.size() > type.value ? trace_.strings.size() : type.value + 1, -2);
    int8_t& f = field_by_type_[type.value];
    if (f == -2) {
        f = -1;
        const std::string_view name = trace_.str(type);
        for (int k = 3; k <= 32; ++k)
            if (kFieldNames[static_cast<size_t>(k)] == name) f = static_cast<int8_t>(k);
    }
    return f;
}

namespace {

// The field that fits a value of this kind when its type names none.
int field_for_kind(const Trace& trace, const Value& v) {
    switch (v.kind) {
        case ValueKind::Int: return AttributeProto::kInt64Val;
        case ValueKind::Double: return AttributeProto::kDoubleVal;
        case ValueKind::Bool: return AttributeProto::kBoolVal;
        case ValueKind::List: {
            int element = 0;
            for (uint32_t j = 0; j < v.payload.range.count; ++j) {
                const ValueKind k = trace.values[v.payload.range.begin + j].kind;
                int f = k == ValueKind::Int ? AttributeProto::kInt64Val
                        : k == ValueKind::Double ? AttributeProto::kDoubleVal
                        : k == ValueKind::Bool ? AttributeProto::kBoolVal
                                               : AttributeProto::kStringVal;
                if (element == 0) element = f;
                else if (element != f) element = AttributeProto::kStringVal;
            }
            return (element == 0 ? AttributeProto::kInt64Val : element) + 1;
        }
        case ValueKind::None: return 0;
        default: return AttributeProto::kStringVal;
    }
}

// A scalar value as text, for string fields holding non-string values.
std::string value_as_text(const Trace& trace, const Value& v) {
    switch (v.kind) {
        case ValueKind::Int: return std::to_string(v.payload.i);
        case ValueKind::Double: return std::to_string(v.payload.d);
        case ValueKind::Bool: return v.payload.b ? "true" : "false";
        case ValueKind::String:
        case ValueKind::Device:
        case ValueKind::Unknown: return std::string(trace.str(v.payload.str));
        case ValueKind::None: return "<None>";
        case ValueKind::Object: return "<Object>";
        case ValueKind::Generator: return "<Generator>";
        default: return "";
    }
}

bool fits(const Value& v, int field) {
    if (field <= 0) return false;
    if (is_list_field(field)) return v.kind == ValueKind::List;
    if (is_int_field(field)) return v.kind == ValueKind::Int || v.kind == ValueKind::Bool;
    if (field <= 6) return v.kind == ValueKind::Double || v.kind == ValueKind::Int;
    if (field == AttributeProto::kBoolVal) return v.kind == ValueKind::Bool || v.kind == ValueKind::Int;
    return v.kind != ValueKind::List && v.kind != ValueKind::Tensor;  // string, bytes
}

int64_t as_int(const Value& v) {
    if (v.kind == ValueKind::Bool) return v.payload.b;
    if (v.kind == ValueKind::Double) return static_cast<int64_t>(v.payload.d);
    return v.kind == ValueKind::Int ? v.payload.i : 0;
}

double as_double(const Value& v) { return v.kind == ValueKind::Double ? v.payload.d : static_cast<double>(as_int(v)); }

void set_scalar(const Trace& trace, const Value& v, int field, AttributeProto& out) {
    switch (field) {
        case AttributeProto::kDoubleVal: out.set_double_val(as_double(v)); break;
        case AttributeProto::kFloatVal: out.set_float_val(static_cast<float>(as_double(v))); break;
        case AttributeProto::kInt32Val: out.set_int32_val(static_cast<int32_t>(as_int(v))); break;
        case AttributeProto::kInt64Val: out.set_int64_val(as_int(v)); break;
        case AttributeProto::kUint32Val: out.set_uint32_val(static_cast<uint32_t>(as_int(v))); break;
        case AttributeProto::kUint64Val: out.set_uint64_val(static_cast<uint64_t>(as_int(v))); break;
        case AttributeProto::kSint32Val: out.set_sint32_val(static_cast<int32_t>(as_int(v))); break;
        case AttributeProto::kSint64Val: out.set_sint64_val(as_int(v)); break;
        case AttributeProto::kFixed32Val: out.set_fixed32_val(static_cast<uint32_t>(as_int(v))); break;
        case AttributeProto::kFixed64Val: out.set_fixed64_val(static_cast<uint64_t>(as_int(v))); break;
        case AttributeProto::kSfixed32Val: out.set_sfixed32_val(static_cast<int32_t>(as_int(v))); break;
        case AttributeProto::kSfixed64Val: out.set_sfixed64_val(as_int(v)); break;
        case AttributeProto::kBoolVal: out.set_bool_val(as_int(v) != 0); break;
        case AttributeProto::kBytesVal: out.set_bytes_val(value_as_text(trace, v)); break;
        default: out.set_string_val(value_as_text(trace, v)); break;
    }
}

void set_list(const Trace& trace, const Value& v, int field, AttributeProto& out) {
    const ValueRange r = v.payload.range;
    auto each = [&](auto&& add) {
        for (uint32_t j = 0; j < r.count; ++j) add(trace.values[r.begin + j]);
    };
    switch (field) {
        case AttributeProto::kDoubleList: each([&](const Value& e) { out.mutable_double_list()->add_values(as_double(e)); }); out.mutable_double_list(); break;
        case AttributeProto::kFloatList: each([&](const Value& e) { out.mutable_float_list()->add_values(static_cast<float>(as_double(e))); }); out.mutable_float_list(); break;
        case AttributeProto::kInt32List: each([&](const Value& e) { out.mutable_int32_list()->add_values(static_cast<int32_t>(as_int(e))); }); out.mutable_int32_list(); break;
        case AttributeProto::kInt64List: each([&](const Value& e) { out.mutable_int64_list()->add_values(as_int(e)); }); out.mutable_int64_list(); break;
        case AttributeProto::kUint32List: each([&](const Value& e) { out.mutable_uint32_list()->add_values(static_cast<uint32_t>(as_int(e))); }); out.mutable_uint32_list(); break;
        case AttributeProto::kUint64List: each([&](const Value& e) { out.mutable_uint64_list()->add_values(static_cast<uint64_t>(as_int(e))); }); out.mutable_uint64_list(); break;
        case AttributeProto::kSint32List: each([&](const Value& e) { out.mutable_sint32_list()->add_values(static_cast<int32_t>(as_int(e))); }); out.mutable_sint32_list(); break;
        case AttributeProto::kSint64List: each([&](const Value& e) { out.mutable_sint64_list()->add_values(as_int(e)); }); out.mutable_sint64_list(); break;
        case AttributeProto::kFixed32List: each([&](const Value& e) { out.mutable_fixed32_list()->add_values(static_cast<uint32_t>(as_int(e))); }); out.mutable_fixed32_list(); break;
        case AttributeProto::kFixed64List: each([&](const Value& e) { out.mutable_fixed64_list()->add_values(static_cast<uint64_t>(as_int(e))); }); out.mutable_fixed64_list(); break;
        case AttributeProto::kSfixed32List: each([&](const Value& e) { out.mutable_sfixed32_list()->add_values(static_cast<int32_t>(as_int(e))); }); out.mutable_sfixed32_list(); break;
        case AttributeProto::kSfixed64List: each([&](const Value& e) { out.mutable_sfixed64_list()->add_values(as_int(e)); }); out.mutable_sfixed64_list(); break;
        case AttributeProto::kBoolList: each([&](const Value& e) { out.mutable_bool_list()->add_values(as_int(e) != 0); }); out.mutable_bool_list(); break;
        case AttributeProto::kBytesList: each([&](const Value& e) { out.mutable_bytes_list()->add_values(value_as_text(trace, e)); }); out.mutable_bytes_list(); break;
        default: each([&](const Value& e) { out.mutable_string_list()->add_values(value_as_text(trace, e)); }); out.mutable_string_list(); break;
    }
}

}  // namespace

void ChakraAttrWriter::write(const Value& value, AttributeProto& out) {
    int field = value.type.value != 0 ? field_for(value.type) : -1;
    if (!fits(value, field)) field = field_for_kind(trace_, value);
    if (field <= 0) return;  // None: no value
    if (is_list_field(field)) set_list(trace_, value, field, out);
    else set_scalar(trace_, value, field, out);
}

}  // namespace mimic

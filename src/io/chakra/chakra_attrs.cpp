#include "io/chakra/chakra_attrs.h"

#include <cstring>

#include "et_def.pb.h"
#include "io/chakra/chakra_wire.h"
#include "io/chakra/chakra_wire_encoder.h"

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

// The bits of a value written as the scalar field `field` (not string or
// bytes), in that field's wire type: what protobuf's setter and serialiser
// would make of it.
uint64_t scalar_bits(const Value& v, int field) {
    switch (field) {
        case AttributeProto::kDoubleVal: {
            const double d = as_double(v);
            uint64_t bits;
            std::memcpy(&bits, &d, 8);
            return bits;
        }
        case AttributeProto::kFloatVal: {
            const float f = static_cast<float>(as_double(v));
            uint32_t bits;
            std::memcpy(&bits, &f, 4);
            return bits;
        }
        // A negative int32 goes on the wire sign-extended to ten bytes.
        case AttributeProto::kInt32Val:
            return static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(as_int(v))));
        case AttributeProto::kUint32Val:
        case AttributeProto::kFixed32Val:
        case AttributeProto::kSfixed32Val: return static_cast<uint32_t>(as_int(v));
        case AttributeProto::kSint32Val: {
            const int32_t i = static_cast<int32_t>(as_int(v));
            return (static_cast<uint32_t>(i) << 1) ^ static_cast<uint32_t>(i >> 31);
        }
        case AttributeProto::kSint64Val: {
            const int64_t i = as_int(v);
            return (static_cast<uint64_t>(i) << 1) ^ static_cast<uint64_t>(i >> 63);
        }
        case AttributeProto::kBoolVal: return as_int(v) != 0;
        default: return static_cast<uint64_t>(as_int(v));  // int64, uint64, fixed64, sfixed64
    }
}

void write_text(const Trace& trace, const Value& v, int field, ChakraWireEncoder& out) {
    if (v.kind == ValueKind::String || v.kind == ValueKind::Device || v.kind == ValueKind::Unknown)
        out.bytes_field(field, trace.str(v.payload.str));
    else
        out.bytes_field(field, value_as_text(trace, v));
}

void write_scalar(const Value& v, int field, ChakraWireEncoder& out) {
    const uint64_t bits = scalar_bits(v, field);
    switch (element_wire_type(field + 1)) {
        case 1: out.fixed64_field(field, bits); break;
        case 5: out.fixed32_field(field, static_cast<uint32_t>(bits)); break;
        default: out.varint_field(field, bits); break;
    }
}

// A *List message: its values as field 1, packed unless strings.
void write_list(const Trace& trace, const Value& v, int field, ChakraWireEncoder& out) {
    const ValueRange r = v.payload.range;
    const Value* elements = trace.values.data() + r.begin;
    const int element_field = field - 1;
    const ChakraWireEncoder::Mark list = out.begin_message(field);
    if (field == AttributeProto::kStringList || field == AttributeProto::kBytesList) {
        for (uint32_t j = 0; j < r.count; ++j) write_text(trace, elements[j], 1, out);
    } else if (r.count > 0) {
        const int wire_type = element_wire_type(field);
        if (wire_type == 0) {
            out.packed_varints(1, r.count, [&](size_t j) { return scalar_bits(elements[j], element_field); });
        } else {
            const int bytes = wire_type == 1 ? 8 : 4;
            out.length_header(1, static_cast<size_t>(r.count) * static_cast<size_t>(bytes));
            for (uint32_t j = 0; j < r.count; ++j) out.fixed(scalar_bits(elements[j], element_field), bytes);
        }
    }
    out.end_message(list);
}

}  // namespace

void ChakraAttrWriter::write(const Value& value, ChakraWireEncoder& out) {
    int field = value.type.value != 0 ? field_for(value.type) : -1;
    if (!fits(value, field)) field = field_for_kind(trace_, value);
    if (field <= 0) return;  // None: no value
    if (is_list_field(field))
        write_list(trace_, value, field, out);
    else if (field == AttributeProto::kStringVal || field == AttributeProto::kBytesVal)
        write_text(trace_, value, field, out);
    else
        write_scalar(value, field, out);
}

}  // namespace mimic

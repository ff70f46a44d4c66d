#include "io/pytorch_et/et_value_parser.h"

#include <cmath>
#include <string>

#include "io/chakra/chakra_literal.h"

namespace mimic {

using simdjson::dom::element;
using simdjson::dom::element_type;

namespace {

constexpr int kMaxDepth = 32;

bool as_array(const element* e, simdjson::dom::array& out) {
    return e != nullptr && e->get_array().get(out) == simdjson::SUCCESS;
}

// Element i of an optional array, or null when either is missing.
const element* item_of(bool have, simdjson::dom::array list, size_t i, element& storage) {
    return have && list.at(i).get(storage) == simdjson::SUCCESS ? &storage : nullptr;
}

// A double JSON cannot hold: PyTorch's observer writes a non-finite float
// argument (masked_fill's -inf in causal attention) as the string "-inf"
// beside its recorded type "Double". Read as a number, the op replays; read
// as a string, the schema's Scalar refused it.
bool get_non_finite(element e, double& out) {
    std::string_view s;
    if (e.get_string().get(s) != simdjson::SUCCESS) return false;
    LiteralCursor cursor;
    cursor.reset(s);
    Scalar v;
    if (!cursor.read_scalar(v) || v.kind != LiteralKind::Double || cursor.peek() != '\0' || std::isfinite(v.d)) return false;
    out = v.d;
    return true;
}

// Integers in traces are ids and sizes; some writers emit them as unsigned.
bool get_integer(element e, int64_t& out) {
    switch (e.type()) {
        case element_type::INT64:
            out = int64_t(e);
            return true;
        case element_type::UINT64:
            out = static_cast<int64_t>(uint64_t(e));
            return true;
        default:
            return false;
    }
}

std::string json_kind_name(element e) {
    switch (e.type()) {
        case element_type::ARRAY: return "an array";
        case element_type::OBJECT: return "an object";
        case element_type::INT64:
        case element_type::UINT64: return "an integer";
        case element_type::DOUBLE: return "a number";
        case element_type::STRING: return "a string";
        case element_type::BOOL: return "a boolean";
        case element_type::NULL_VALUE: return "null";
    }
    return "a value";
}

}  // namespace

void ParsePlace::fail(const std::string& message) const {
    ErrorLocation loc{file ? *file : std::string(), node_id, byte_offset, std::string(field)};
    if (!subfield.empty()) loc.field += "." + std::string(subfield);
    mimic::fail(loc, message);
}

ValueRange EtValueParser::parse_side(simdjson::dom::array values, const element* types, const element* shapes,
                                     const element* strides, const ParsePlace& where) {
    size_t n = values.size();
    if (n > kMaxListElements) where.fail("has " + std::to_string(n) + " values; more than the limit of " +
                                              std::to_string(kMaxListElements));
    simdjson::dom::array type_list, shape_list, stride_list;
    bool have_types = as_array(types, type_list);
    bool have_shapes = as_array(shapes, shape_list);
    bool have_strides = as_array(strides, stride_list);
    ValueRange range{static_cast<uint32_t>(trace_.values.size()), static_cast<uint32_t>(n)};
    trace_.values.resize(trace_.values.size() + n);
    size_t i = 0;
    for (element v : values) {
        StrId type;
        element shape_storage, stride_storage;
        std::string_view ts;
        if (have_types && type_list.at(i).get_string().get(ts) == simdjson::SUCCESS) type = trace_.strings.intern(ts);
        parse_value(range.begin + static_cast<uint32_t>(i), v, type, item_of(have_shapes, shape_list, i, shape_storage),
                    item_of(have_strides, stride_list, i, stride_storage), where, 0);
        ++i;
    }
    return range;
}

void EtValueParser::parse_value(uint32_t slot, element value, StrId type, const element* shape, const element* stride,
                                const ParsePlace& where, int depth) {
    if (depth > kMaxDepth) where.fail("values nested deeper than " + std::to_string(kMaxDepth) + " levels");
    const ValueTypeInfo& info = types_.of(type, trace_.strings);
    Value out;
    out.type = type;
    switch (info.kind) {
        case ValueKind::Tensor:
            if (value.is_array()) {
                parse_tensor(out, value, info, shape, stride, where);
                trace_.values[slot] = out;
                return;
            }
            break;
        case ValueKind::List:
            if (value.is_array()) {
                simdjson::dom::array items = value.get_array().value_unsafe();
                size_t n = items.size();
                if (n > kMaxListElements)
                    where.fail("a list of " + std::to_string(n) + " elements is more than the limit of " +
                                    std::to_string(kMaxListElements));
                out.kind = ValueKind::List;
                out.payload.range = {static_cast<uint32_t>(trace_.values.size()), static_cast<uint32_t>(n)};
                trace_.values[slot] = out;
                uint32_t first = out.payload.range.begin;
                trace_.values.resize(trace_.values.size() + n);
                simdjson::dom::array shape_items, stride_items;
                bool have_shapes = as_array(shape, shape_items);
                bool have_strides = as_array(stride, stride_items);
                // Lists of one element type may name it once or per element.
                const std::vector<StrId> elements = info.elements;
                size_t i = 0;
                for (element item : items) {
                    StrId item_type = i < elements.size() ? elements[i]
                                                          : (elements.size() == 1 ? elements[0] : StrId{});
                    element shape_storage, stride_storage;
                    parse_value(first + static_cast<uint32_t>(i), item, item_type,
                                item_of(have_shapes, shape_items, i, shape_storage),
                                item_of(have_strides, stride_items, i, stride_storage), where, depth + 1);
                    ++i;
                }
                return;
            }
            break;
        case ValueKind::Int: {
            int64_t i;
            if (get_integer(value, i)) {
                out.kind = ValueKind::Int;
                out.payload.i = i;
                trace_.values[slot] = out;
                return;
            }
            break;
        }
        case ValueKind::Double: {
            double d;
            int64_t i;
            if (value.get_double().get(d) == simdjson::SUCCESS || (get_integer(value, i) && ((d = double(i)), true)) ||
                get_non_finite(value, d)) {
                out.kind = ValueKind::Double;
                out.payload.d = d;
                trace_.values[slot] = out;
                return;
            }
            break;
        }
        case ValueKind::Bool: {
            bool b;
            int64_t i;
            if (value.get_bool().get(b) == simdjson::SUCCESS || (get_integer(value, i) && ((b = i != 0), true))) {
                out.kind = ValueKind::Bool;
                out.payload.b = b;
                trace_.values[slot] = out;
                return;
            }
            break;
        }
        case ValueKind::String:
        case ValueKind::Device: {
            std::string_view s;
            if (value.get_string().get(s) == simdjson::SUCCESS) {
                out.kind = info.kind;
                out.payload.str = trace_.strings.intern(s);
                trace_.values[slot] = out;
                return;
            }
            break;
        }
        case ValueKind::None:
        case ValueKind::Object:
        case ValueKind::Generator:
            out.kind = info.kind;
            trace_.values[slot] = out;
            return;
        case ValueKind::Unknown:
            break;
    }
    // The type string is unknown or disagrees with the JSON: read the value by
    // its JSON kind so nothing is lost, and keep the recorded type string.
    parse_untyped(out, value, where);
    if (out.kind == ValueKind::List) {
        // Untyped list: elements are read by their JSON kinds too.
        simdjson::dom::array items = value.get_array().value_unsafe();
        size_t n = items.size();
        if (n > kMaxListElements)
            where.fail("a list of " + std::to_string(n) + " elements is more than the limit of " +
                            std::to_string(kMaxListElements));
        out.payload.range = {static_cast<uint32_t>(trace_.values.size()), static_cast<uint32_t>(n)};
        trace_.values[slot] = out;
        trace_.values.resize(trace_.values.size() + n);
        uint32_t i = 0;
        for (element item : items) {
            parse_value(out.payload.range.begin + i, item, StrId{}, nullptr, nullptr, where, depth + 1);
            ++i;
        }
        return;
    }
    trace_.values[slot] = out;
}

void EtValueParser::parse_untyped(Value& out, element value, const ParsePlace& where) {
    switch (value.type()) {
        case element_type::INT64:
        case element_type::UINT64:
            out.kind = ValueKind::Int;
            get_integer(value, out.payload.i);
            return;
        case element_type::DOUBLE:
            out.kind = ValueKind::Double;
            out.payload.d = double(value);
            return;
        case element_type::BOOL:
            out.kind = ValueKind::Bool;
            out.payload.b = bool(value);
            return;
        case element_type::NULL_VALUE:
            out.kind = ValueKind::None;
            return;
        case element_type::STRING: {
            std::string_view s = std::string_view(value);
            if (s == "<None>") out.kind = ValueKind::None;
            else if (s == "<Object>") out.kind = ValueKind::Object;
            else if (s == "<Generator>") out.kind = ValueKind::Generator;
            else {
                out.kind = ValueKind::String;
                out.payload.str = trace_.strings.intern(s);
            }
            return;
        }
        case element_type::ARRAY:
            out.kind = ValueKind::List;
            return;
        case element_type::OBJECT:
            out.kind = ValueKind::Unknown;
            out.payload.str = trace_.strings.intern(simdjson::minify(value));
            return;
    }
    where.fail("unreadable value");
}

void EtValueParser::parse_tensor(Value& out, element value, const ValueTypeInfo& info, const element* shape,
                                 const element* stride,
                                 const ParsePlace& where) {
    simdjson::dom::array tuple = value.get_array().value_unsafe();
    size_t n = tuple.size();
    if (n != 5 && n != 6)
        where.fail("a tensor must be [tensor_id, storage_id, offset, numel, itemsize(, device)], got " +
                        std::to_string(n) + " items");
    TensorMeta t;
    int64_t fields[5];
    size_t i = 0;
    for (element item : tuple) {
        if (i < 5) {
            if (!get_integer(item, fields[i]))
                where.fail("tensor item " + std::to_string(i) + " must be an integer, got " + json_kind_name(item));
        } else {
            std::string_view device;
            if (item.get_string().get(device) != simdjson::SUCCESS)
                where.fail("tensor device must be a string, got " + json_kind_name(item));
            t.device = trace_.strings.intern(device);
        }
        ++i;
    }
    const char* names[5] = {"tensor_id", "storage_id", "offset", "numel", "itemsize"};
    for (int k = 2; k < 5; ++k)
        if (fields[k] < 0) where.fail(std::string("tensor ") + names[k] + " is negative (" + std::to_string(fields[k]) + ")");
    t.tensor_id = static_cast<uint64_t>(fields[0]);
    t.storage_id = static_cast<uint64_t>(fields[1]);
    t.offset = static_cast<uint64_t>(fields[2]);
    t.numel = static_cast<uint64_t>(fields[3]);
    if (fields[4] > 64) where.fail("tensor itemsize " + std::to_string(fields[4]) + " is not a real element size");
    t.itemsize = static_cast<uint32_t>(fields[4]);
    t.dtype = info.dtype;
    t.undefined = info.undefined_tensor;
    t.dims_begin = static_cast<uint32_t>(trace_.dims.size());
    simdjson::dom::array dims;
    if (as_array(shape, dims)) {
        if (dims.size() > kMaxRank) where.fail("tensor rank " + std::to_string(dims.size()) + " is above 64");
        for (element d : dims) {
            int64_t v;
            if (!get_integer(d, v)) where.fail("tensor shape must hold integers, got " + json_kind_name(d));
            if (v < 0) where.fail("tensor shape has a negative size (" + std::to_string(v) + ")");
            trace_.dims.push_back(v);
        }
        t.rank = static_cast<uint16_t>(dims.size());
        simdjson::dom::array st;
        if (as_array(stride, st) && st.size() == dims.size()) {
            bool ok = true;
            for (element s : st) {
                int64_t v;
                if (!get_integer(s, v)) {
                    ok = false;
                    break;
                }
                trace_.dims.push_back(v);
            }
            if (ok) t.has_strides = true;
            else trace_.dims.resize(t.dims_begin + t.rank);
        }
    }
    out.kind = ValueKind::Tensor;
    out.payload.index = static_cast<uint32_t>(trace_.tensors.size());
    trace_.tensors.push_back(t);
}

}  // namespace mimic

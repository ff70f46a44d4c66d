#include "io/chakra/chakra_values.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

namespace mimic {

StrId ChakraIoDecoder::intern_device(std::string_view device) {
    // Nearly every tensor of a trace is on the same device: skip the hash.
    if (last_device_id_.value != 0 && device == last_device_) return last_device_id_;
    last_device_id_ = trace_.strings.intern(device);
    last_device_ = trace_.str(last_device_id_);
    return last_device_id_;
}

void ChakraIoDecoder::parse_types(std::string_view types) {
    for (RecentTypes& r : recent_types_) {
        if (r.ids && r.text == types) {
            type_ids_ = r.ids;
            std::swap(r, recent_types_[0]);  // most recent first
            return;
        }
    }
    auto cached = type_lists_.find(types);
    if (cached != type_lists_.end()) {
        type_ids_ = &cached->second;
        recent_types_[1] = recent_types_[0];
        recent_types_[0] = {cached->first, type_ids_};
        return;
    }
    constexpr size_t kMaxCachedBytes = size_t(16) << 20;
    std::vector<StrId>* ids = &uncached_types_;
    if (type_list_bytes_ + types.size() <= kMaxCachedBytes) {
        type_list_bytes_ += types.size();
        ids = &type_lists_[type_list_texts_.emplace_back(types)];
    }
    ids->clear();
    type_ids_ = ids;
    types_cursor_.reset(types);
    if (!types_cursor_.open_list()) return;
    Scalar s;
    while (types_cursor_.next_element()) {
        if (!types_cursor_.read_scalar(s) || s.kind != LiteralKind::String) {
            ids->clear();
            return;
        }
        ids->push_back(trace_.strings.intern(s.s));
    }
    if (!types_cursor_.finished()) ids->clear();
}

void ChakraIoDecoder::copy_seen(const ChakraSeenSides::Where& seen, ValueRange& out) {
    // The copy lands after everything decoded since: shift its references.
    // Each column grows once, then is written by index (no growth checks).
    const uint32_t value_shift = static_cast<uint32_t>(trace_.values.size()) - seen.values_begin;
    const uint32_t tensor_shift = static_cast<uint32_t>(trace_.tensors.size()) - seen.tensors_begin;
    const uint32_t dims_shift = static_cast<uint32_t>(trace_.dims.size()) - seen.dims_begin;
    const auto grow = [](auto& column, uint32_t begin, uint32_t end) {
        const size_t at = column.size();
        column.resize(at + (end - begin));
        std::copy(column.begin() + begin, column.begin() + end, column.begin() + static_cast<std::ptrdiff_t>(at));
        return column.data() + at;
    };
    grow(trace_.dims, seen.dims_begin, seen.dims_end);
    TensorMeta* tensors = grow(trace_.tensors, seen.tensors_begin, seen.tensors_end);
    for (uint32_t i = 0; i < seen.tensors_end - seen.tensors_begin; ++i) tensors[i].dims_begin += dims_shift;
    Value* values = grow(trace_.values, seen.values_begin, seen.values_end);
    for (uint32_t i = 0; i < seen.values_end - seen.values_begin; ++i) {
        Value& v = values[i];
        if (v.kind == ValueKind::List) v.payload.range.begin += value_shift;
        else if (v.kind == ValueKind::Tensor) v.payload.index += tensor_shift;
    }
    out = {seen.out.begin + value_shift, seen.out.count};
}

bool ChakraIoDecoder::decode(std::string_view values, std::string_view shapes, std::string_view types,
                             ValueRange& out) {
    out = {static_cast<uint32_t>(trace_.values.size()), 0};
    last_copied_ = false;
    if (values.empty()) return true;
    // A side met before, with the same three texts, is copied from its first
    // decoding (see chakra_seen_sides.h), in traces where sides repeat.
    if (!seen_.worth_looking_up(values)) return decode_new(values, shapes, types, out);
    const uint64_t hash = ChakraSeenSides::hash(values, shapes, types);
    if (const ChakraSeenSides::Where* seen = seen_.find(hash, values, shapes, types)) {
        copy_seen(*seen, out);
        last_copied_ = true;
        return true;
    }
    ChakraSeenSides::Where where;
    where.values_begin = static_cast<uint32_t>(trace_.values.size());
    where.tensors_begin = static_cast<uint32_t>(trace_.tensors.size());
    where.dims_begin = static_cast<uint32_t>(trace_.dims.size());
    if (!decode_new(values, shapes, types, out)) return false;
    where.values_end = static_cast<uint32_t>(trace_.values.size());
    where.tensors_end = static_cast<uint32_t>(trace_.tensors.size());
    where.dims_end = static_cast<uint32_t>(trace_.dims.size());
    where.out = out;
    seen_.remember(hash, values, shapes, types, where);
    return true;
}

bool ChakraIoDecoder::decode_new(std::string_view values, std::string_view shapes, std::string_view types,
                                 ValueRange& out) {
    const size_t values_before = trace_.values.size(), tensors_before = trace_.tensors.size(),
                 dims_before = trace_.dims.size();
    parse_types(types);
    shapes_.reset(shapes);
    bool shapes_open = !shapes.empty() && shapes_.open_list();
    values_.reset(values);
    pending_.clear();
    bool ok = values_.open_list();
    uint32_t count = 0;
    while (ok && values_.next_element()) {
        const StrId type = count < type_ids_->size() ? (*type_ids_)[count] : StrId{};
        const bool shaped = shapes_open && shapes_.next_element();
        if (!shaped) shapes_open = false;
        Value v;
        if (!decode_value(type, shaped, v)) {
            ok = false;
            break;
        }
        pending_.push_back(v);
        ++count;
    }
    if (!ok || !values_.finished()) {
        // Not a literal we read: undo what was appended.
        trace_.values.resize(values_before);
        trace_.tensors.resize(tensors_before);
        trace_.dims.resize(dims_before);
        return false;
    }
    out = {static_cast<uint32_t>(trace_.values.size()), count};
    trace_.values.insert(trace_.values.end(), pending_.begin(), pending_.end());
    return true;
}

bool ChakraIoDecoder::decode_value(StrId type, bool shaped, Value& out) {
    const TypeInfo* info = type.value != 0 ? &types_.of(type, trace_.strings) : nullptr;
    if (info && info->kind == ValueKind::Tensor) {
        // Most of a trace's values: read the usual tuple spelling straight
        // away (it consumes nothing when the text is spelled otherwise).
        int64_t f[5];
        std::string_view device;
        if (values_.read_tensor_tuple(f, device)) {
            add_tensor(*info, f, device.data() ? intern_device(device) : StrId{}, shaped, out);
            out.type = type;
            return true;
        }
    }
    if (values_.at_list_open()) {
        if (info && info->kind == ValueKind::Tensor) {
            const LiteralCursor::Mark at = values_.mark();
            const LiteralCursor::Mark shape_at = shapes_.mark();
            if (try_tensor(*info, shaped, out)) {
                out.type = type;
                return true;
            }
            values_.restore(at);  // not a tensor tuple after all: read it as a list
            shapes_.restore(shape_at);
        }
        return decode_list(type, info, shaped, out);
    }
    Scalar s;
    if (!values_.read_scalar(s)) return false;
    if (shaped && !shapes_.skip_value()) shapes_.reset({});
    out = Value{};
    out.type = type;
    const ValueKind want = info ? info->kind : ValueKind::Unknown;
    if (want == ValueKind::None || want == ValueKind::Object || want == ValueKind::Generator) {
        out.kind = want;
        return true;
    }
    switch (s.kind) {
        case LiteralKind::Null: out.kind = ValueKind::None; break;
        case LiteralKind::Bool:
            out.kind = ValueKind::Bool;
            out.payload.b = s.b;
            break;
        case LiteralKind::Int:
            if (want == ValueKind::Double) {
                out.kind = ValueKind::Double;
                out.payload.d = static_cast<double>(s.i);
            } else if (want == ValueKind::Bool) {
                out.kind = ValueKind::Bool;
                out.payload.b = s.i != 0;
            } else {
                out.kind = ValueKind::Int;
                out.payload.i = s.i;
            }
            break;
        case LiteralKind::Double:
            out.kind = ValueKind::Double;
            out.payload.d = s.d;
            break;
        case LiteralKind::String:
            // The ET spells these three as strings.
            if (s.s == "<None>") out.kind = ValueKind::None;
            else if (s.s == "<Object>") out.kind = ValueKind::Object;
            else if (s.s == "<Generator>") out.kind = ValueKind::Generator;
            else {
                out.kind = want == ValueKind::Device ? ValueKind::Device : ValueKind::String;
                out.payload.str = trace_.strings.intern(s.s);
            }
            break;
    }
    return true;
}

bool ChakraIoDecoder::decode_list(StrId type, const TypeInfo* info, bool shaped, Value& out) {
    values_.open_list();
    // The shape of a list is a list of its elements' shapes.
    bool shapes_open = false;
    if (shaped) {
        if (shapes_.at_list_open()) shapes_open = shapes_.open_list();
        else if (!shapes_.skip_value()) shapes_.reset({});
    }
    const std::vector<StrId>* elements = info && info->kind == ValueKind::List ? &info->elements : nullptr;
    const size_t base = pending_.size();
    uint32_t count = 0;
    while (values_.next_element()) {
        // Lists of one element type may name it once or per element.
        StrId element;
        if (elements) {
            if (count < elements->size()) element = (*elements)[count];
            else if (elements->size() == 1) element = (*elements)[0];
        }
        const bool child_shaped = shapes_open && shapes_.next_element();
        if (!child_shaped) shapes_open = false;
        Value child;
        if (!decode_value(element, child_shaped, child)) return false;
        pending_.push_back(child);
        ++count;
    }
    if (!values_.ok()) return false;
    // A shape list longer than the value list: step over the rest.
    while (shapes_open && shapes_.next_element())
        if (!shapes_.skip_value()) break;
    out = Value{};
    out.kind = ValueKind::List;
    out.type = type;
    out.payload.range = {static_cast<uint32_t>(trace_.values.size()), count};
    trace_.values.insert(trace_.values.end(), pending_.begin() + static_cast<std::ptrdiff_t>(base), pending_.end());
    pending_.resize(base);
    return true;
}

bool ChakraIoDecoder::try_tensor(const TypeInfo& info, bool shaped, Value& out) {
    // [tensor_id, storage_id, offset, numel, itemsize(, device)] spelled
    // unusually: odd spacing, '+' signs, escapes in the device.
    int64_t f[5];
    StrId device;
    values_.open_list();
    for (int64_t& field : f)
        if (!values_.next_element() || !values_.read_int(field)) return false;
    if (values_.next_element()) {
        Scalar d;
        if (!values_.read_scalar(d) || d.kind != LiteralKind::String) return false;
        device = intern_device(d.s);
        if (values_.next_element() || !values_.ok()) return false;  // more than six items
    } else if (!values_.ok()) {
        return false;
    }
    add_tensor(info, f, device, shaped, out);
    return true;
}

void ChakraIoDecoder::add_tensor(const TypeInfo& info, const int64_t (&f)[5], StrId device, bool shaped, Value& out) {
    TensorMeta t;
    t.tensor_id = static_cast<uint64_t>(f[0]);
    t.storage_id = static_cast<uint64_t>(f[1]);
    t.offset = static_cast<uint64_t>(f[2]);
    t.numel = static_cast<uint64_t>(f[3]);
    t.itemsize = static_cast<uint32_t>(f[4]);
    t.device = device;
    t.dtype = info.dtype;
    t.undefined = info.undefined_tensor;
    read_dims(shaped, t);
    out = Value{};
    out.kind = ValueKind::Tensor;
    out.payload.index = static_cast<uint32_t>(trace_.tensors.size());
    trace_.tensors.push_back(t);
}

void ChakraIoDecoder::read_dims(bool shaped, TensorMeta& t) {
    t.dims_begin = static_cast<uint32_t>(trace_.dims.size());
    if (!shaped) return;
    if (shapes_.read_int_list(trace_.dims, kMaxRank)) {
        t.rank = static_cast<uint16_t>(trace_.dims.size() - t.dims_begin);
        return;
    }
    const LiteralCursor::Mark at = shapes_.mark();
    if (shapes_.open_list()) {
        int64_t d;
        size_t rank = 0;
        bool ints = true;
        while (shapes_.next_element()) {
            if (rank == kMaxRank || !shapes_.read_int(d)) {
                ints = false;
                break;
            }
            trace_.dims.push_back(d);
            ++rank;
        }
        if (ints && shapes_.ok()) {
            t.rank = static_cast<uint16_t>(rank);
            return;
        }
    }
    // Not a list of integers: no shape for this tensor; step over it.
    trace_.dims.resize(t.dims_begin);
    shapes_.restore(at);
    if (!shapes_.skip_value()) shapes_.reset({});
}

namespace {

void put(GrowBuffer& out, std::string_view s) { out.append(s.data(), s.size()); }

// A number's decimal digits at p (room for 20 made by the caller); returns their end.
template <typename Int>
char* put_int(char* p, Int v) {
    return std::to_chars(p, p + 20, v).ptr;
}

void append_double(GrowBuffer& out, double d) {
    // Python's json spelling for the values JSON has none for.
    if (std::isnan(d)) return put(out, "NaN");
    if (std::isinf(d)) return put(out, d > 0 ? "Infinity" : "-Infinity");
    char* const p = out.prepare(32);
    const char* end = std::to_chars(p, p + 32, d).ptr;
    const std::string_view text(p, static_cast<size_t>(end - p));
    out.commit(text.size());
    // Keep it a float when read back: "1" would read as an Int.
    if (text.find_first_of(".eE") == std::string_view::npos) put(out, ".0");
}

std::string_view kind_type_name(ValueKind k) {
    switch (k) {
        case ValueKind::None: return "None";
        case ValueKind::Int: return "Int";
        case ValueKind::Double: return "Double";
        case ValueKind::Bool: return "Bool";
        case ValueKind::String: return "String";
        case ValueKind::Device: return "Device";
        case ValueKind::Object: return "Object";
        case ValueKind::Generator: return "Generator";
        default: return "";
    }
}

}  // namespace

void ChakraIoEncoder::tensor_text(const TensorMeta& t, GrowBuffer& values, GrowBuffer& shapes) const {
    // [tensor_id,storage_id,offset,numel,itemsize,"device"] and [d0,d1,...]
    const std::string& device = quoted(t.device);
    char* const v0 = values.prepare(2 + 5 * 21 + device.size());
    char* p = v0;
    *p++ = '[';
    for (uint64_t field : {t.tensor_id, t.storage_id, t.offset, t.numel, uint64_t{t.itemsize}}) {
        p = put_int(p, field);
        *p++ = ',';
    }
    std::memcpy(p, device.data(), device.size());
    p += device.size();
    *p++ = ']';
    values.commit(static_cast<size_t>(p - v0));

    char* const s0 = shapes.prepare(2 + size_t{t.rank} * 21);
    p = s0;
    *p++ = '[';
    const int64_t* dims = trace_.shape(t);
    for (uint16_t k = 0; k < t.rank; ++k) {
        if (k) *p++ = ',';
        p = put_int(p, dims[k]);
    }
    *p++ = ']';
    shapes.commit(static_cast<size_t>(p - s0));
}

void ChakraIoEncoder::value_text(const Value& v, GrowBuffer& values, GrowBuffer& shapes, int depth) const {
    switch (v.kind) {
        case ValueKind::None:
            put(values, "\"<None>\"");
            break;
        case ValueKind::Int: {
            char* const p = values.prepare(20);
            values.commit(static_cast<size_t>(put_int(p, v.payload.i) - p));
            break;
        }
        case ValueKind::Double: append_double(values, v.payload.d); break;
        case ValueKind::Bool: put(values, v.payload.b ? "true" : "false"); break;
        case ValueKind::String:
        case ValueKind::Device:
        case ValueKind::Unknown: put(values, quoted(v.payload.str)); break;
        case ValueKind::Object: put(values, "\"<Object>\""); break;
        case ValueKind::Generator: put(values, "\"<Generator>\""); break;
        case ValueKind::Tensor: return tensor_text(trace_.tensors[v.payload.index], values, shapes);
        case ValueKind::List: {
            values.push_back('[');
            shapes.push_back('[');
            for (uint32_t j = 0; j < v.payload.range.count; ++j) {
                if (j) {
                    values.push_back(',');
                    shapes.push_back(',');
                }
                if (depth < 64) value_text(trace_.values[v.payload.range.begin + j], values, shapes, depth + 1);
            }
            values.push_back(']');
            shapes.push_back(']');
            return;
        }
    }
    put(shapes, "[]");
}

void ChakraIoEncoder::type_text(const Value& v, GrowBuffer& types) const {
    if (v.type.value != 0) return put(types, quoted(v.type));
    // No type string: one made from the value (rare; readers always set it).
    scratch_.clear();
    if (v.kind == ValueKind::Tensor) {
        std::string t = "Tensor(";
        t += trace_.str(trace_.tensors[v.payload.index].dtype);
        t += ')';
        append_json_string(scratch_, t);
    } else {
        append_json_string(scratch_, v.kind == ValueKind::List ? "GenericList[]" : kind_type_name(v.kind));
    }
    put(types, scratch_);
}

const std::string& ChakraIoEncoder::quoted(StrId id) const {
    if (id.value >= quoted_.size()) quoted_.resize(trace_.strings.size() > id.value ? trace_.strings.size() : id.value + 1);
    std::string& q = quoted_[id.value];
    if (q.empty()) append_json_string(q, trace_.str(id));  // never empty once filled: it has its quotes
    return q;
}

void ChakraIoEncoder::encode(ValueRange range, GrowBuffer& values, GrowBuffer& shapes, GrowBuffer& types) const {
    values.clear();
    shapes.clear();
    types.clear();
    if (range.count == 0) return;  // absent inputs stay absent, as Chakra writes them
    values.push_back('[');
    shapes.push_back('[');
    types.push_back('[');
    for (uint32_t i = 0; i < range.count; ++i) {
        if (i) {
            values.push_back(',');
            shapes.push_back(',');
            types.push_back(',');
        }
        const Value& v = trace_.values[range.begin + i];
        value_text(v, values, shapes, 0);
        type_text(v, types);
    }
    values.push_back(']');
    shapes.push_back(']');
    types.push_back(']');
}

uint64_t tensor_bytes(const Trace& trace, ValueRange range) {
    uint64_t total = 0;
    for_each_tensor(trace, range, [&](const TensorMeta& t) { total += t.numel * t.itemsize; });
    return total;
}

}  // namespace mimic

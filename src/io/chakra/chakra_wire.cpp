#include "io/chakra/chakra_wire.h"

#include <cstdio>
#include <cstring>

#include "support/utf8.h"

namespace mimic {

namespace {

enum WireType { kVarint = 0, kFixed64 = 1, kLength = 2, kFixed32 = 5 };

class Wire {
public:
    explicit Wire(std::string_view data)
        : begin_(reinterpret_cast<const uint8_t*>(data.data())), p_(begin_), end_(begin_ + data.size()) {}

    bool done() const { return p_ >= end_; }
    size_t offset() const { return static_cast<size_t>(p_ - begin_); }

    bool varint(uint64_t& v) {
        // Fast paths: one byte (tags, small ids, most lengths), two (ids and
        // dependencies below 16384, tags of fields 16 and up).
        if (p_ < end_ && *p_ < 0x80) {
            v = *p_++;
            return true;
        }
        if (end_ - p_ >= 2 && p_[1] < 0x80) {
            v = (p_[0] & 0x7fu) | (uint64_t(p_[1]) << 7);
            p_ += 2;
            return true;
        }
        uint64_t result = 0;
        for (int shift = 0; shift < 70; shift += 7) {
            if (p_ >= end_) return false;
            const uint8_t byte = *p_++;
            result |= uint64_t(byte & 0x7f) << shift;
            if (!(byte & 0x80)) {
                v = result;
                return true;
            }
        }
        return false;  // more than 10 bytes
    }
    // A field tag as protobuf reads one: a varint of at most 5 bytes below
    // 2^32, and field number 0 is no field (protobuf refuses the message).
    bool tag(uint64_t& t) {
        if (p_ < end_ && *p_ < 0x80) {
            t = *p_++;
            return t >= 8;
        }
        const uint8_t* start = p_;
        return varint(t) && p_ - start <= 5 && t <= UINT32_MAX && t >= 8;
    }
    bool fixed(int bytes, uint64_t& v) {
        if (end_ - p_ < bytes) return false;
        v = 0;
        std::memcpy(&v, p_, static_cast<size_t>(bytes));  // little-endian host, as protobuf assumes
        p_ += bytes;
        return true;
    }
    bool bytes(std::string_view& out) {
        uint64_t n = 0;
        if (!varint(n) || n > static_cast<uint64_t>(end_ - p_)) return false;
        out = std::string_view(reinterpret_cast<const char*>(p_), static_cast<size_t>(n));
        p_ += n;
        return true;
    }
    bool skip(int wire_type) {
        uint64_t v;
        std::string_view s;
        switch (wire_type) {
            case kVarint: return varint(v);
            case kFixed64: return fixed(8, v);
            case kLength: return bytes(s);
            case kFixed32: return fixed(4, v);
            default: return false;  // groups (3, 4) do not occur in this schema
        }
    }

private:
    const uint8_t* begin_;
    const uint8_t* p_;
    const uint8_t* end_;
};

bool fail_at(ChakraWireError& error, const Wire& w, const char* what) {
    if (error.offset >= 0) return false;  // invalid UTF-8 inside, already described
    error.what = std::string(what) + " at byte " + std::to_string(w.offset()) + " of the message";
    return false;
}

// Checks that the string fields of one message are UTF-8, as protobuf does
// when it parses them; on the first that is not, records the field and the
// bad byte's place in the message. Without an error to fill (format
// detection, which looks at structure only) it checks nothing.
class TextCheck {
public:
    TextCheck(std::string_view message, ChakraWireError* error, IoTextCheck io = IoTextCheck::InDecoder)
        : message_(message.data()), error_(error), io_by_caller_(io == IoTextCheck::ByCaller) {}

    // Whether the IOInfo texts that stay in the view are left to the caller.
    bool io_by_caller() const { return io_by_caller_; }

    // `name` is the field; `parent`/`index` its enclosing field, e.g. attr[2].
    bool ok(std::string_view text, const char* name, const char* parent = nullptr, int index = -1) {
        if (!error_) return true;
        const size_t bad = find_invalid_utf8(text);
        return bad == std::string_view::npos || record(text, bad, name, parent, index);
    }

private:
    bool record(std::string_view text, size_t bad, const char* name, const char* parent, int index) {
        std::string field;
        if (parent) {
            field = parent;
            if (index >= 0) field += "[" + std::to_string(index) + "]";
            field += ".";
        }
        field += name;
        error_->offset = text.data() + bad - message_;
        char byte[8];
        std::snprintf(byte, sizeof byte, "0x%02x", static_cast<unsigned char>(text[bad]));
        error_->what = "string field " + field + " is not valid UTF-8 (byte " + byte + " at byte " +
                       std::to_string(error_->offset) + " of the message), which protobuf refuses";
        error_->field = std::move(field);
        return false;
    }

    const char* message_;
    ChakraWireError* error_;
    bool io_by_caller_;
};

// Repeated uint64: packed (one length-delimited run) or one varint per tag.
bool repeated_varints(Wire& w, int wire_type, std::vector<uint64_t>& out) {
    uint64_t v;
    if (wire_type == kVarint) {
        if (!w.varint(v)) return false;
        out.push_back(v);
        return true;
    }
    if (wire_type != kLength) return false;
    std::string_view packed;
    if (!w.bytes(packed)) return false;
    out.reserve(out.size() + packed.size());  // at least a byte a value: no growth inside the loop
    // Dependencies are node ids, mostly one or two bytes each (below 16384):
    // eight bytes that hold eight one-byte or four two-byte varints are
    // decoded at once, anything else one varint at a time.
    const char* p = packed.data();
    const char* end = p + packed.size();
    while (end - p >= 8) {
        uint64_t word;
        std::memcpy(&word, p, 8);
        const uint64_t continued = word & 0x8080808080808080ull;
        if (continued == 0) {
            for (int k = 0; k < 8; ++k) out.push_back((word >> (8 * k)) & 0xff);
            p += 8;
        } else if (continued == 0x0080008000800080ull) {
            for (int k = 0; k < 4; ++k) {
                const uint64_t pair = word >> (16 * k);
                out.push_back((pair & 0x7f) | ((pair >> 1) & 0x3f80));
            }
            p += 8;
        } else {
            Wire one(std::string_view(p, static_cast<size_t>(end - p)));
            if (!one.varint(v)) return false;
            out.push_back(v);
            p += one.offset();
        }
    }
    Wire inner(std::string_view(p, static_cast<size_t>(end - p)));
    while (!inner.done()) {
        if (!inner.varint(v)) return false;
        out.push_back(v);
    }
    return true;
}

// `side` is "inputs" or "outputs", to name a field in an error.
bool decode_io(std::string_view data, ChakraIoView& io, bool& unknown, TextCheck& text, const char* side) {
    static constexpr const char* kNames[] = {"", "values", "shapes", "types"};
    io.present = true;
    Wire w(data);
    while (!w.done()) {
        uint64_t tag;
        if (!w.tag(tag)) return false;
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        std::string_view* target = field == 1 ? &io.values : field == 2 ? &io.shapes : field == 3 ? &io.types : nullptr;
        if (target && wt == kLength) {
            // A text a later occurrence replaces never reaches the caller,
            // but protobuf checked it: check it here, whoever checks the rest.
            if (text.io_by_caller() && target->data() && !text.ok(*target, kNames[field], side)) return false;
            if (!w.bytes(*target) || (!text.io_by_caller() && !text.ok(*target, kNames[field], side))) return false;
        } else {
            unknown = true;
            if (!w.skip(wt)) return false;
        }
    }
    return true;
}

// The wire type each oneof field is written with (3..32); another wire type
// makes the field unknown to protobuf, which skips it.
int oneof_wire_type(int field) {
    if (field % 2 == 0) return kLength;  // the *List messages
    switch (field) {
        case 3: case 21: case 25: return kFixed64;
        case 5: case 19: case 23: return kFixed32;
        case 29: case 31: return kLength;
        default: return kVarint;
    }
}

constexpr int kStringVal = 29, kStringList = 30, kBytesList = 32;

// The values of a string_list payload, checked as protobuf checks them when
// it parses the list (bytes_list values are not text).
bool string_list_ok(std::string_view list, TextCheck& text, int index) {
    Wire w(list);
    while (!w.done()) {
        uint64_t tag;
        if (!w.tag(tag)) return false;
        std::string_view value;
        if (tag == ((1 << 3) | kLength)) {
            if (!w.bytes(value) || !text.ok(value, "string_list", "attr", index)) return false;
        } else if (!w.skip(static_cast<int>(tag & 7))) {
            return false;
        }
    }
    return true;
}

// A *List payload that a later oneof field replaces is dropped here, but
// protobuf parsed it and refuses the message if it is malformed; so must we.
// (A list that stays is decoded, as strictly, when the attr is read.)
bool replaced_list_ok(const ChakraAttrView& a) {
    if (a.field < 4 || a.field % 2 != 0) return true;
    std::vector<std::string_view> strings;
    std::vector<uint64_t> scalars;
    return a.field == kStringList || a.field == kBytesList
               ? decode_attr_list_bytes(a, strings)
               : decode_attr_list_scalars(a, oneof_wire_type(a.field - 1), scalars);
}

// `index` is the attr's place in its message, to name a field in an error.
bool decode_attr(std::string_view data, ChakraAttrView& a, bool& unknown, TextCheck& text, int index) {
    a = ChakraAttrView{};
    Wire w(data);
    while (!w.done()) {
        uint64_t tag;
        if (!w.tag(tag)) return false;
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        if (field == 1 && wt == kLength) {
            if (!w.bytes(a.name) || !text.ok(a.name, "name", "attr", index)) return false;
            continue;
        }
        if (field >= 3 && field <= 32 && wt == oneof_wire_type(field)) {
            // The oneof: the last field on the wire wins, as in protobuf,
            // except that a *List message seen again is merged into the first.
            const bool list_again = wt == kLength && field % 2 == 0 && a.field == field;
            if (list_again) {
                std::string_view more;
                if (!w.bytes(more)) return false;
                if (field == kStringList && !string_list_ok(more, text, index)) return false;
                a.merged.push_back(more);
                continue;
            }
            if (!replaced_list_ok(a)) return false;
            a.field = field;
            a.wire_type = wt;
            a.bytes = {};
            a.bits = 0;
            a.merged.clear();
            bool ok = wt == kVarint ? w.varint(a.bits)
                      : wt == kFixed64 ? w.fixed(8, a.bits)
                      : wt == kFixed32 ? w.fixed(4, a.bits)
                      : wt == kLength ? w.bytes(a.bytes)
                                      : false;
            if (!ok) return false;
            // A string a later oneof field replaces is still checked, as protobuf does.
            if (field == kStringVal && !text.ok(a.bytes, "string_val", "attr", index)) return false;
            if (field == kStringList && !string_list_ok(a.bytes, text, index)) return false;
            continue;
        }
        if (field == 2 && wt == kLength) {  // doc_string: known, checked, and dropped
            std::string_view doc;
            if (!w.bytes(doc) || !text.ok(doc, "doc_string", "attr", index)) return false;
            continue;
        }
        unknown = true;
        if (!w.skip(wt)) return false;
    }
    return true;
}

// Decoders with the UTF-8 check on (`error` given) or off (format detection).
bool decode_metadata(std::string_view message, ChakraMetadataView& out, ChakraWireError& error, bool check_text) {
    error = ChakraWireError{};
    TextCheck text(message, check_text ? &error : nullptr);
    out.version = {};
    out.attrs.clear();
    out.unknown_fields = false;
    Wire w(message);
    while (!w.done()) {
        uint64_t tag;
        if (!w.tag(tag)) return fail_at(error, w, "bad field tag");
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        std::string_view bytes;
        if (field == 1 && wt == kLength) {
            if (!w.bytes(out.version)) return fail_at(error, w, "version runs past the end");
            if (!text.ok(out.version, "version")) return false;
        } else if (field == 2 && wt == kLength) {
            out.attrs.emplace_back();
            if (!w.bytes(bytes) ||
                !decode_attr(bytes, out.attrs.back(), out.unknown_fields, text, static_cast<int>(out.attrs.size() - 1)))
                return fail_at(error, w, "bad attr");
        } else {
            out.unknown_fields = true;
            if (!w.skip(wt)) return fail_at(error, w, "bad field");
        }
    }
    return true;
}

bool decode_node(std::string_view message, ChakraNodeView& out, ChakraWireError& error, bool check_text,
                 IoTextCheck io_text = IoTextCheck::InDecoder) {
    if (error.offset >= 0 || !error.what.empty()) error = ChakraWireError{};
    TextCheck text(message, check_text ? &error : nullptr, io_text);
    out.id = 0;
    out.name = {};
    out.type = 0;
    out.ctrl_deps.clear();
    out.data_deps.clear();
    out.start_time_micros = out.duration_micros = 0;
    out.inputs = out.outputs = ChakraIoView{};
    out.attrs.clear();
    out.unknown_fields = false;
    Wire w(message);
    while (!w.done()) {
        uint64_t tag;
        if (!w.tag(tag)) return fail_at(error, w, "bad field tag");
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        uint64_t v = 0;
        std::string_view bytes;
        switch (field) {
            case 1:
            case 3:
            case 6:
            case 7:
                if (wt != kVarint) break;
                if (!w.varint(v)) return fail_at(error, w, "truncated varint");
                if (field == 1) out.id = v;
                else if (field == 3) out.type = static_cast<int32_t>(v);
                else if (field == 6) out.start_time_micros = v;
                else out.duration_micros = v;
                continue;
            case 2:
                if (wt != kLength) break;
                if (!w.bytes(out.name)) return fail_at(error, w, "name runs past the end");
                if (!text.ok(out.name, "name")) return false;
                continue;
            case 4:
            case 5:
                if (wt != kVarint && wt != kLength) break;
                if (!repeated_varints(w, wt, field == 4 ? out.ctrl_deps : out.data_deps))
                    return fail_at(error, w, field == 4 ? "bad ctrl_deps" : "bad data_deps");
                continue;
            case 8:
            case 9:
                if (wt != kLength) break;
                // A repeated occurrence of a message field merges; the last text of each wins.
                if (!w.bytes(bytes) || !decode_io(bytes, field == 8 ? out.inputs : out.outputs, out.unknown_fields, text,
                                                  field == 8 ? "inputs" : "outputs"))
                    return fail_at(error, w, field == 8 ? "bad inputs" : "bad outputs");
                continue;
            case 10:
                if (wt != kLength) break;
                out.attrs.emplace_back();
                if (!w.bytes(bytes) || !decode_attr(bytes, out.attrs.back(), out.unknown_fields, text,
                                                    static_cast<int>(out.attrs.size() - 1)))
                    return fail_at(error, w, "bad attr");
                continue;
            default:
                break;
        }
        out.unknown_fields = true;
        if (!w.skip(wt)) return fail_at(error, w, "bad field");
    }
    return true;
}

}  // namespace

bool decode_chakra_metadata(std::string_view message, ChakraMetadataView& out, ChakraWireError& error) {
    return decode_metadata(message, out, error, true);
}

bool decode_chakra_node(std::string_view message, ChakraNodeView& out, ChakraWireError& error, IoTextCheck io_text) {
    return decode_node(message, out, error, true, io_text);
}

bool check_chakra_io_text(std::string_view message, const ChakraIoView& io, const char* side, ChakraWireError& error) {
    TextCheck text(message, &error);
    return text.ok(io.values, "values", side) && text.ok(io.shapes, "shapes", side) && text.ok(io.types, "types", side);
}

bool decode_list_scalars(std::string_view list, int wire_type, std::vector<uint64_t>& out) {
    Wire w(list);
    while (!w.done()) {
        uint64_t tag, v;
        if (!w.tag(tag)) return false;
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        if (field != 1) {
            if (!w.skip(wt)) return false;
            continue;
        }
        if (wt == wire_type) {
            if (!(wire_type == kVarint ? w.varint(v) : w.fixed(wire_type == kFixed64 ? 8 : 4, v))) return false;
            out.push_back(v);
        } else if (wt == kLength) {
            std::string_view packed;
            if (!w.bytes(packed)) return false;
            Wire inner(packed);
            while (!inner.done()) {
                if (!(wire_type == kVarint ? inner.varint(v) : inner.fixed(wire_type == kFixed64 ? 8 : 4, v)))
                    return false;
                out.push_back(v);
            }
        } else {
            return false;
        }
    }
    return true;
}

bool decode_list_bytes(std::string_view list, std::vector<std::string_view>& out) {
    Wire w(list);
    while (!w.done()) {
        uint64_t tag;
        if (!w.tag(tag)) return false;
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        if (field == 1 && wt == kLength) {
            std::string_view s;
            if (!w.bytes(s)) return false;
            out.push_back(s);
        } else if (!w.skip(wt)) {
            return false;
        }
    }
    return true;
}

bool looks_like_chakra(std::string_view head) {
    // One frame of the head: its length prefix read, its message if whole.
    size_t pos = 0;
    auto next_frame = [&](std::string_view& message, bool& whole) {
        Wire w(head.substr(pos));
        uint64_t length = 0;
        if (!w.varint(length) || length > UINT32_MAX) return false;
        const size_t body = pos + w.offset();
        whole = length <= head.size() - body;
        if (whole) message = head.substr(body, length);
        pos = body + (whole ? length : 0);
        return true;
    };
    std::string_view message;
    bool whole = false;
    if (!next_frame(message, whole)) return false;
    if (!whole) {
        // The metadata does not fit in the head: check the fields it holds,
        // each a version or an attr (length-delimited), up to the cut.
        Wire w(head.substr(pos));
        bool unknown = false;
        while (!w.done()) {
            uint64_t tag = 0;
            if (!w.varint(tag)) return true;  // cut inside a tag
            if (tag != 0x0a && tag != 0x12) return false;
            std::string_view field;
            if (!w.bytes(field)) return true;  // cut inside the field
            ChakraAttrView attr;
            TextCheck structure_only({}, nullptr);
            if (tag == 0x12 && (!decode_attr(field, attr, unknown, structure_only, 0) || unknown)) return false;
        }
        return true;
    }
    // Structure only: a string that is not UTF-8 is the reader's to report, naming its place.
    ChakraWireError error;
    ChakraMetadataView meta;
    if (!decode_metadata(message, meta, error, false) || meta.unknown_fields) return false;
    if (pos == head.size()) return true;  // metadata only, or a head cut right after it
    const size_t frame = pos;
    if (!next_frame(message, whole)) return head.size() - frame < 10;  // a prefix cut by the end of the head
    if (!whole) return true;  // the first node does not fit in the head
    ChakraNodeView node;
    return decode_node(message, node, error, false) && !node.unknown_fields;
}

bool decode_attr_list_scalars(const ChakraAttrView& a, int wire_type, std::vector<uint64_t>& out) {
    if (!decode_list_scalars(a.bytes, wire_type, out)) return false;
    for (std::string_view more : a.merged)
        if (!decode_list_scalars(more, wire_type, out)) return false;
    return true;
}

bool decode_attr_list_bytes(const ChakraAttrView& a, std::vector<std::string_view>& out) {
    if (!decode_list_bytes(a.bytes, out)) return false;
    for (std::string_view more : a.merged)
        if (!decode_list_bytes(more, out)) return false;
    return true;
}

}  // namespace mimic

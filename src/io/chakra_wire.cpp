#include "io/chakra_wire.h"

#include <cstring>

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
        // Fast path: one byte (tags, small ids, most lengths).
        if (p_ < end_ && *p_ < 0x80) {
            v = *p_++;
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

bool fail_at(std::string& error, const Wire& w, const char* what) {
    error = std::string(what) + " at byte " + std::to_string(w.offset()) + " of the message";
    return false;
}

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
    Wire inner(packed);
    while (!inner.done()) {
        if (!inner.varint(v)) return false;
        out.push_back(v);
    }
    return true;
}

bool decode_io(std::string_view data, ChakraIoView& io, bool& unknown) {
    io.present = true;
    Wire w(data);
    while (!w.done()) {
        uint64_t tag;
        if (!w.varint(tag)) return false;
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        std::string_view* target = field == 1 ? &io.values : field == 2 ? &io.shapes : field == 3 ? &io.types : nullptr;
        if (target && wt == kLength) {
            if (!w.bytes(*target)) return false;
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

bool decode_attr(std::string_view data, ChakraAttrView& a, bool& unknown) {
    a = ChakraAttrView{};
    Wire w(data);
    while (!w.done()) {
        uint64_t tag;
        if (!w.varint(tag)) return false;
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        if (field == 1 && wt == kLength) {
            if (!w.bytes(a.name)) return false;
            continue;
        }
        if (field >= 3 && field <= 32 && wt == oneof_wire_type(field)) {
            // The oneof: the last field on the wire wins, as in protobuf,
            // except that a *List message seen again is merged into the first.
            const bool list_again = wt == kLength && field % 2 == 0 && a.field == field;
            if (list_again) {
                std::string_view more;
                if (!w.bytes(more)) return false;
                a.merged.push_back(more);
                continue;
            }
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
            continue;
        }
        if (!(field == 2 && wt == kLength)) unknown = true;  // doc_string is known, and dropped
        if (!w.skip(wt)) return false;
    }
    return true;
}

}  // namespace

bool decode_chakra_metadata(std::string_view message, ChakraMetadataView& out, std::string& error) {
    out.version = {};
    out.attrs.clear();
    out.unknown_fields = false;
    Wire w(message);
    while (!w.done()) {
        uint64_t tag;
        if (!w.varint(tag)) return fail_at(error, w, "bad field tag");
        const int field = static_cast<int>(tag >> 3), wt = static_cast<int>(tag & 7);
        std::string_view bytes;
        if (field == 1 && wt == kLength) {
            if (!w.bytes(out.version)) return fail_at(error, w, "version runs past the end");
        } else if (field == 2 && wt == kLength) {
            out.attrs.emplace_back();
            if (!w.bytes(bytes) || !decode_attr(bytes, out.attrs.back(), out.unknown_fields))
                return fail_at(error, w, "bad attr");
        } else {
            out.unknown_fields = true;
            if (field == 0 || !w.skip(wt)) return fail_at(error, w, "bad field");
        }
    }
    return true;
}

bool decode_chakra_node(std::string_view message, ChakraNodeView& out, std::string& error) {
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
        if (!w.varint(tag)) return fail_at(error, w, "bad field tag");
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
                if (!w.bytes(bytes) || !decode_io(bytes, field == 8 ? out.inputs : out.outputs, out.unknown_fields))
                    return fail_at(error, w, field == 8 ? "bad inputs" : "bad outputs");
                continue;
            case 10:
                if (wt != kLength) break;
                out.attrs.emplace_back();
                if (!w.bytes(bytes) || !decode_attr(bytes, out.attrs.back(), out.unknown_fields))
                    return fail_at(error, w, "bad attr");
                continue;
            default:
                break;
        }
        out.unknown_fields = true;
        if (field == 0 || !w.skip(wt)) return fail_at(error, w, "bad field");
    }
    return true;
}

bool decode_list_scalars(std::string_view list, int wire_type, std::vector<uint64_t>& out) {
    Wire w(list);
    while (!w.done()) {
        uint64_t tag, v;
        if (!w.varint(tag)) return false;
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
        if (!w.varint(tag)) return false;
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
            if (tag == 0x12 && (!decode_attr(field, attr, unknown) || unknown)) return false;
        }
        return true;
    }
    std::string error;
    ChakraMetadataView meta;
    if (!decode_chakra_metadata(message, meta, error) || meta.unknown_fields) return false;
    if (pos == head.size()) return true;  // metadata only, or a head cut right after it
    const size_t frame = pos;
    if (!next_frame(message, whole)) return head.size() - frame < 10;  // a prefix cut by the end of the head
    if (!whole) return true;  // the first node does not fit in the head
    ChakraNodeView node;
    return decode_chakra_node(message, node, error) && !node.unknown_fields;
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

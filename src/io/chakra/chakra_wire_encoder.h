// The protobuf wire format written by hand, for the Chakra writer's hot
// path. Filling a reused protobuf Node and serialising it cost a copy of
// every string into the message, a size pass and a serialise pass per node;
// here each field goes once, straight into one large byte buffer that the
// writer hands to the file in big writes.
//
// What comes out is what protobuf itself writes for the same message, byte
// for byte: the caller writes fields in field-number order and leaves out
// proto3 defaults, repeated scalars go packed, and every length is a minimal
// varint (a nested message's length is filled in when it ends, moving its
// bytes only when the length needs more or fewer bytes than were set
// aside). Tests parse the output with protobuf and serialise it again to
// check this on the real traces. (chakra_wire.h is the matching decoder.)
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

#include "support/grow_buffer.h"

namespace mimic {

enum ChakraWireType : uint8_t { kWireVarint = 0, kWireFixed64 = 1, kWireLength = 2, kWireFixed32 = 5 };

// Bytes of the varint encoding of v (1..10): 7 bits a byte, so
// ceil(significant bits / 7), with 9/64 standing in for 1/7 (exact for
// 1..64 bits), and v | 1 so that zero takes one byte.
inline size_t varint_size(uint64_t v) {
    const unsigned top_bit = 63u ^ static_cast<unsigned>(__builtin_clzll(v | 1));
    return static_cast<size_t>((top_bit * 9 + 73) / 64);
}

class ChakraWireEncoder {
public:
    const char* data() const { return buf_.data(); }
    size_t size() const { return buf_.size(); }
    void clear() { buf_.clear(); }

    // --- fields; each is written even when its value is the default (the
    // caller leaves out what proto3 leaves out; a oneof member is kept).
    void varint_field(int field, uint64_t v) {
        char* p = buf_.prepare(20);
        p = put_varint(p, tag(field, kWireVarint));
        commit_to(put_varint(p, v));
    }
    // int32 and enum values are sign-extended to 64 bits, as protobuf does.
    void int32_field(int field, int32_t v) { varint_field(field, static_cast<uint64_t>(static_cast<int64_t>(v))); }
    void fixed64_field(int field, uint64_t bits) {
        char* p = buf_.prepare(18);
        commit_to(put_fixed(put_varint(p, tag(field, kWireFixed64)), bits, 8));
    }
    void fixed32_field(int field, uint32_t bits) {
        char* p = buf_.prepare(14);
        commit_to(put_fixed(put_varint(p, tag(field, kWireFixed32)), bits, 4));
    }
    void bytes_field(int field, std::string_view s) {
        char* p = buf_.prepare(20 + s.size());
        p = put_varint(put_varint(p, tag(field, kWireLength)), s.size());
        std::memcpy(p, s.data(), s.size());
        commit_to(p + s.size());
    }
    // The tag and length of a length-delimited field whose `length` bytes
    // the caller writes next (a message whose size it knows beforehand).
    void length_header(int field, size_t length) {
        char* p = buf_.prepare(20);
        commit_to(put_varint(put_varint(p, tag(field, kWireLength)), length));
    }

    // A packed repeated varint field of count values; value(i) gives the i-th
    // as uint64_t. Nothing is written for no values (protobuf leaves out an
    // empty packed field). One pass: the length bytes set aside are those of
    // `count` values the size of the first (the ids in one node are alike),
    // fixed up by end_message() when that guess was wrong.
    template <typename ValueAt>
    void packed_varints(int field, size_t count, ValueAt&& value) {
        if (count == 0) return;
        commit_to(put_varint(buf_.prepare(10), tag(field, kWireLength)));
        const uint64_t first = value(0);
        const Mark mark = set_length_aside(varint_size(count * varint_size(first)));
        char* p = put_varint(buf_.prepare(count * 10), first);
        for (size_t i = 1; i < count; ++i) p = put_varint(p, value(i));
        commit_to(p);
        end_message(mark);
    }

    // --- pieces of a field the caller frames itself (a packed run of fixed-size values).
    void fixed(uint64_t bits, int bytes) { commit_to(put_fixed(buf_.prepare(8), bits, bytes)); }

    // A nested message of unknown size: begin_message() writes the tag and
    // sets length bytes aside; end_message() fills the length in and returns
    // it (the message's bytes, without tag and length).
    struct Mark {
        size_t at;        // where the length goes
        size_t reserved;  // bytes set aside for it
    };
    Mark begin_message(int field) {
        commit_to(put_varint(buf_.prepare(10), tag(field, kWireLength)));
        return set_length_aside(1);  // attributes and the like are under 128 bytes
    }
    size_t end_message(Mark mark) {
        const size_t body = mark.at + mark.reserved;
        const size_t length = buf_.size() - body;
        const size_t need = varint_size(length);
        if (need > mark.reserved) {
            buf_.prepare(need - mark.reserved);
            std::memmove(buf_.data() + mark.at + need, buf_.data() + body, length);
            buf_.commit(need - mark.reserved);
        } else if (need < mark.reserved) {
            std::memmove(buf_.data() + mark.at + need, buf_.data() + body, length);
            buf_.truncate(mark.at + need + length);
        }
        put_varint(buf_.data() + mark.at, length);
        return length;
    }

    // --- top-level records: a message preceded by its length as a varint,
    // the framing of a Chakra .et file. As many length bytes are set aside
    // as the previous record needed: the nodes of a trace are alike in size.
    Mark begin_record() { return set_length_aside(record_length_bytes_); }
    size_t end_record(Mark mark) {
        const size_t length = end_message(mark);
        record_length_bytes_ = varint_size(length);
        return length;
    }

private:
    static uint64_t tag(int field, ChakraWireType wire_type) {
        return (static_cast<uint64_t>(field) << 3) | wire_type;
    }
    Mark set_length_aside(size_t bytes) {
        buf_.prepare(bytes);
        const Mark mark{buf_.size(), bytes};
        buf_.commit(bytes);
        return mark;
    }
    // Counts the bytes written from the end of the buffer up to p.
    void commit_to(const char* p) { buf_.commit(static_cast<size_t>(p - (buf_.data() + buf_.size()))); }
    static char* put_varint(char* p, uint64_t v) {
        while (v >= 0x80) {
            *p++ = static_cast<char>(v | 0x80);
            v >>= 7;
        }
        *p++ = static_cast<char>(v);
        return p;
    }
    static char* put_fixed(char* p, uint64_t bits, int bytes) {
        std::memcpy(p, &bits, static_cast<size_t>(bytes));  // little-endian host, as protobuf assumes
        return p + bytes;
    }

    GrowBuffer buf_;
    size_t record_length_bytes_ = 2;  // nodes are mostly 128 bytes to 16 KiB
};

}  // namespace mimic

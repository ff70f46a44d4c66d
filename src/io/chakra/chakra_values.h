// Chakra keeps a node's inputs and outputs as three texts (values, shapes,
// types) in the PyTorch ET encoding: a tensor is [tensor_id, storage_id,
// offset, numel, itemsize, device], lists nest, types name each value.
// These two classes turn such texts into flat Trace values and back.
#pragma once

#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "io/chakra/chakra_literal.h"
#include "io/chakra/chakra_seen_sides.h"
#include "support/grow_buffer.h"
#include "trace/trace.h"
#include "trace/value_types.h"

namespace mimic {

class ChakraIoDecoder {
public:
    explicit ChakraIoDecoder(Trace& trace) : trace_(trace) {}

    // Appends the values of one side and returns their range. Returns false
    // (appending nothing) when `values` is not a list literal in JSON or
    // Python syntax; the caller keeps the text raw then. Types and shapes
    // that do not parse or do not match are ignored from where they stop
    // matching: kinds are inferred from the values.
    bool decode(std::string_view values, std::string_view shapes, std::string_view types, ValueRange& out);
    // Whether the last decode() copied a side met before: its three texts
    // are byte for byte ones decoded (and checked) earlier.
    bool last_side_copied() const { return last_copied_; }

    static constexpr size_t kMaxRank = 64;

private:
    using TypeInfo = ValueTypeInfo;
    // Appends a copy of a side decoded before, its references shifted.
    void copy_seen(const ChakraSeenSides::Where& seen, ValueRange& out);
    bool decode_new(std::string_view values, std::string_view shapes, std::string_view types, ValueRange& out);

    // Reads one value at the values cursor; `shaped`: the shapes cursor is
    // at this value's shape.
    bool decode_value(StrId type, bool shaped, Value& out);
    bool decode_list(StrId type, const TypeInfo* info, bool shaped, Value& out);
    bool try_tensor(const TypeInfo& info, bool shaped, Value& out);
    void add_tensor(const TypeInfo& info, const int64_t (&fields)[5], StrId device, bool shaped, Value& out);
    void read_dims(bool shaped, TensorMeta& t);
    void parse_types(std::string_view types);
    StrId intern_device(std::string_view device);

    Trace& trace_;
    LiteralCursor values_;
    LiteralCursor shapes_;
    LiteralCursor types_cursor_;
    std::vector<Value> pending_;  // children of the lists being read, before they are placed contiguously
    // The types text of each side parsed once: a trace has a few dozen
    // distinct ones (55 in Chakra's feeder sample, for 7,328 sides), and
    // inputs and outputs alternate, so remembering only the last misses.
    // Entries: the type ids, empty when the text is not a list of strings.
    std::unordered_map<std::string_view, std::vector<StrId>> type_lists_;  // keys view type_list_texts_
    std::deque<std::string> type_list_texts_;
    size_t type_list_bytes_ = 0;  // cached text, bounded: unique texts on every node must not double memory
    std::vector<StrId> uncached_types_;
    const std::vector<StrId>* type_ids_ = &uncached_types_;
    // The two texts met last (a node's inputs' and outputs'), compared before
    // hashing: the next node's are mostly the same, and some are 4 KB long.
    struct RecentTypes {
        std::string_view text;
        const std::vector<StrId>* ids = nullptr;
    };
    RecentTypes recent_types_[2];
    ValueTypeTable types_;
    ChakraSeenSides seen_;
    bool last_copied_ = false;
    std::string_view last_device_;
    StrId last_device_id_;
};

// Writes Trace values as the three JSON texts of a Chakra IOInfo. The texts
// go into byte buffers through raw pointers, with room made once per value:
// this is most of the work of writing a Chakra node.
class ChakraIoEncoder {
public:
    explicit ChakraIoEncoder(const Trace& trace) : trace_(trace) {}
    // Replaces the three texts with those of `range` (all empty for no values).
    void encode(ValueRange range, GrowBuffer& values, GrowBuffer& shapes, GrowBuffer& types) const;

private:
    void value_text(const Value& v, GrowBuffer& values, GrowBuffer& shapes, int depth) const;
    void tensor_text(const TensorMeta& t, GrowBuffer& values, GrowBuffer& shapes) const;
    void type_text(const Value& v, GrowBuffer& types) const;
    // The JSON spelling of an interned string, made once: devices, type
    // strings and string values repeat on nearly every node.
    const std::string& quoted(StrId id) const;
    const Trace& trace_;
    mutable std::vector<std::string> quoted_;
    mutable std::string scratch_;
};

// Byte size of every tensor in a range of values, lists included.
uint64_t tensor_bytes(const Trace& trace, ValueRange range);

// Calls fn(const TensorMeta&) for every defined tensor in a range, lists included.
template <typename Fn>
void for_each_tensor(const Trace& trace, ValueRange range, Fn&& fn) {
    for_each_tensor_index(trace, range, [&](uint32_t index) {
        const TensorMeta& t = trace.tensors[index];
        if (!t.undefined) fn(t);
    });
}

}  // namespace mimic

// Chakra AttributeProto <-> Trace attribute values. A value's type string
// keeps the oneof field it came from ("int64", "uint64", "bool_list"...), so
// an attribute reads and writes back with the same wire type; ET attributes
// carry the ET's own type names ("uint64", "int64", "string"), which map
// onto the same fields.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace mimic {

struct ChakraAttrView;
class ChakraWireEncoder;

class ChakraAttrReader {
public:
    explicit ChakraAttrReader(Trace& trace) : trace_(trace) {}

    // Reads one attribute (list elements appended to Trace::values). An
    // attribute with no value set reads as None. `position` is the
    // attribute's index in its node: nodes repeat the same names in the same
    // order, so the name of the previous node's attribute at that position
    // is tried before the interner's hash table.
    // Returns false when a list payload is malformed.
    bool read(const ChakraAttrView& attr, size_t position, Attr& out);

private:
    StrId type_of(int field);
    StrId name_of(std::string_view name, size_t position);

    Trace& trace_;
    std::array<StrId, 33> field_types_{};
    std::vector<std::pair<std::string, StrId>> names_by_position_;
    std::vector<uint64_t> scalars_;
    std::vector<std::string_view> strings_;
};

class ChakraAttrWriter {
public:
    explicit ChakraAttrWriter(const Trace& trace) : trace_(trace) {}
    // Writes the value of an AttributeProto being encoded into `out` (its
    // name is left to the caller): the oneof field named by the value's type
    // string when it names one and fits the value, else the field that fits
    // the value's kind; nothing for None.
    void write(const Value& value, ChakraWireEncoder& out);

private:
    int field_for(StrId type);

    const Trace& trace_;
    std::vector<int8_t> field_by_type_;  // indexed by StrId; -2 not yet looked up, -1 none
};

}  // namespace mimic

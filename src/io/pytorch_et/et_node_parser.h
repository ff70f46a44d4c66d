// Parses one ET node (a simdjson DOM object) into the Trace, whichever shape
// it has: flat (1.0.1: inputs, input_shapes, input_types side by side) or
// nested (1.0.2+: inputs {values, shapes, types, strides} and attrs).
#pragma once

#include <simdjson.h>

#include <string>

#include "io/pytorch_et/et_value_parser.h"
#include "trace/trace.h"

namespace mimic {

class EtNodeParser {
public:
    EtNodeParser(Trace& trace, std::string file) : trace_(trace), values_(trace), file_(std::move(file)) {}

    // Appends the node; `byte_offset` locates it in the input for errors.
    void parse(simdjson::dom::element node, uint64_t byte_offset);

    size_t flat_nodes() const { return flat_nodes_; }
    size_t nested_nodes() const { return nested_nodes_; }

private:
    void parse_attrs(Node& node, simdjson::dom::array attrs, const ParsePlace& where);
    Value attr_value(simdjson::dom::element value, std::string_view type, const ParsePlace& where);

    Trace& trace_;
    EtValueParser values_;
    std::string file_;
    size_t flat_nodes_ = 0;
    size_t nested_nodes_ = 0;
};

}  // namespace mimic

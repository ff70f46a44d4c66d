// Turns one recorded input or output (its JSON value, type string, shape and
// strides) into flat Values of a Trace. Shared by the flat (1.0.1) and nested
// (1.0.2+) node shapes, which differ only in where these four come from.
#pragma once

#include <simdjson.h>

#include <string_view>
#include <unordered_map>
#include <vector>

#include "support/error.h"
#include "trace/trace.h"
#include "trace/value_types.h"

namespace mimic {

// Where the parser is. Set per node and per field, so it holds no owned
// strings; an ErrorLocation is built only when an error is thrown.
struct ParsePlace {
    const std::string* file = nullptr;
    int64_t node_id = -1;
    int64_t byte_offset = -1;
    std::string_view field;
    std::string_view subfield;  // e.g. the attr name under "attrs"
    [[noreturn]] void fail(const std::string& message) const;
};

class EtValueParser {
public:
    explicit EtValueParser(Trace& trace) : trace_(trace) {}

    // Appends the node's values for one side (inputs or outputs) and returns
    // their range. `shapes`/`strides` may be null elements when absent.
    // `types`, `shapes` and `strides` are null when the trace does not have them.
    ValueRange parse_side(simdjson::dom::array values, const simdjson::dom::element* types,
                          const simdjson::dom::element* shapes, const simdjson::dom::element* strides,
                          const ParsePlace& where);

    // Limits that keep memory bounded on hostile input.
    static constexpr size_t kMaxListElements = 1 << 20;
    static constexpr size_t kMaxRank = 64;

private:
    void parse_value(uint32_t slot, simdjson::dom::element value, StrId type, const simdjson::dom::element* shape,
                     const simdjson::dom::element* stride, const ParsePlace& where, int depth);
    void parse_tensor(Value& out, simdjson::dom::element value, const ValueTypeInfo& info,
                      const simdjson::dom::element* shape, const simdjson::dom::element* stride,
                      const ParsePlace& where);
    void parse_untyped(Value& out, simdjson::dom::element value, const ParsePlace& where);

    Trace& trace_;
    ValueTypeTable types_;
};

}  // namespace mimic

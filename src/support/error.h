// Errors that cross library boundaries. The library throws mimic::Error with
// enough context (file, node id or byte offset, field) for the command line to
// print one line and exit nonzero; nothing below tools/ exits or aborts.
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

namespace mimic {

class Error : public std::runtime_error {
public:
    explicit Error(std::string message) : std::runtime_error(std::move(message)) {}
};

// Where in an input a problem sits; each part is optional.
struct ErrorLocation {
    std::string file;
    int64_t node_id = -1;       // node id as written in the trace, -1 if unknown
    int64_t byte_offset = -1;   // offset into the (uncompressed) input, -1 if unknown
    std::string field;
};

// Builds "file: node 12: field 'inputs': message" (parts left out when unknown).
std::string format_error(const ErrorLocation& where, const std::string& message);

[[noreturn]] void fail(const ErrorLocation& where, const std::string& message);

}  // namespace mimic

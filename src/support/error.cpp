#include "support/error.h"

namespace mimic {

std::string format_error(const ErrorLocation& where, const std::string& message) {
    std::string out;
    if (!where.file.empty()) out += where.file + ": ";
    if (where.node_id >= 0) out += "node " + std::to_string(where.node_id) + ": ";
    if (where.byte_offset >= 0) out += "byte " + std::to_string(where.byte_offset) + ": ";
    if (!where.field.empty()) out += "field '" + where.field + "': ";
    out += message;
    return out;
}

void fail(const ErrorLocation& where, const std::string& message) {
    throw Error(format_error(where, message));
}

}  // namespace mimic

// Reads a file that is a sequence of JSON objects written one after another
// with nothing (or only whitespace) between them, as protobuf's MessageToJson
// output appended message by message is: Chakra's jsonizer writes a trace this
// way. Objects are handed over one at a time, so the file need not fit in
// memory; only the largest single object must.
#pragma once

#include <cstdint>
#include <functional>
#include <string_view>

#include "support/byte_source.h"

namespace mimic {

// Calls `on_object(text, offset, index)` for each top-level object in order,
// `offset` being its first byte in the uncompressed input. Throws
// mimic::Error naming the file and byte offset on anything between objects
// that is not whitespace, on an object cut short by the end of the input, and
// on one larger than `max_object_bytes`.
void for_each_json_object(ByteSource& source,
                          const std::function<void(std::string_view text, uint64_t offset, uint64_t index)>& on_object,
                          size_t max_object_bytes = size_t(256) << 20);

}  // namespace mimic

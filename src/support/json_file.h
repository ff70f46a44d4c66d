// A small JSON file read whole (meta.json and the probe's files beside it).
#pragma once

#include <simdjson.h>

#include <cstdint>
#include <string>
#include <string_view>

namespace mimic {

// The file's top-level object; `text` holds the file and must outlive it.
// Throws mimic::Error naming the file when it is not a JSON object.
simdjson::dom::object parse_json_object_file(const std::string& path, simdjson::dom::parser& parser,
                                             simdjson::padded_string& text);

// The non-negative integer after `"key":` at or after `from` in JSON text
// that may be cut short (a file's head); -1 when there is none.
int64_t json_int_after_key(std::string_view text, std::string_view key, size_t from = 0);

// A JSON number (double, signed, unsigned or bool) as a double; throws
// mimic::Error naming `path` and `field` for any other kind of value.
double json_number(const simdjson::dom::element& value, const std::string& path, const std::string& field);

}  // namespace mimic

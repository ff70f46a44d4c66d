#include "support/json_file.h"

#include "support/byte_source.h"
#include "support/error.h"

namespace mimic {

simdjson::dom::object parse_json_object_file(const std::string& path, simdjson::dom::parser& parser,
                                             simdjson::padded_string& text) {
    text = simdjson::padded_string(read_whole_file(path));
    simdjson::dom::object doc;
    if (parser.parse(text).get_object().get(doc) != simdjson::SUCCESS) fail({path, -1, -1, ""}, "not a JSON object");
    return doc;
}

}  // namespace mimic

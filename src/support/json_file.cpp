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

double json_number(const simdjson::dom::element& value, const std::string& path, const std::string& field) {
    double d;
    int64_t i;
    uint64_t u;
    bool b;
    if (value.get(d) == simdjson::SUCCESS) return d;
    if (value.get(i) == simdjson::SUCCESS) return static_cast<double>(i);
    if (value.get(u) == simdjson::SUCCESS) return static_cast<double>(u);
    if (value.get(b) == simdjson::SUCCESS) return b ? 1 : 0;
    fail({path, -1, -1, field}, "expected a number");
}

}  // namespace mimic

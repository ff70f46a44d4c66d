#include "support/json_file.h"

#include <cctype>

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

int64_t json_int_after_key(std::string_view text, std::string_view key, size_t from) {
    const std::string quoted = "\"" + std::string(key) + "\"";
    size_t at = text.find(quoted, from);
    if (at == std::string_view::npos) return -1;
    size_t p = text.find(':', at);
    if (p == std::string_view::npos) return -1;
    ++p;
    while (p < text.size() && (text[p] == ' ' || text[p] == '\n' || text[p] == '\t' || text[p] == '\r')) ++p;
    if (p >= text.size() || !std::isdigit(static_cast<unsigned char>(text[p]))) return -1;
    int64_t v = 0;
    while (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p])) && v < (INT64_MAX - 9) / 10)
        v = v * 10 + (text[p++] - '0');
    return v;
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

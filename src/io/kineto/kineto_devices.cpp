#include "io/kineto/kineto_devices.h"

#include <simdjson.h>

#include "support/byte_source.h"
#include "support/error.h"

namespace mimic {

std::vector<std::string> kineto_device_names(const std::string& path) {
    ByteSource source(path);
    std::vector<char> text;
    while (source.read(text, 4 << 20) > 0) {
    }
    const std::string_view all(text.data(), text.size());
    const size_t key = all.find("\"deviceProperties\"");
    std::vector<std::string> names;
    if (key == std::string_view::npos) return names;
    const size_t open = all.find('[', key);
    if (open == std::string_view::npos) return names;
    // The list's end: brackets outside strings.
    int depth = 0;
    bool in_string = false;
    size_t close = std::string_view::npos;
    for (size_t i = open; i < all.size(); ++i) {
        const char c = all[i];
        if (in_string) {
            if (c == '\\') ++i;
            else if (c == '"') in_string = false;
        } else if (c == '"') {
            in_string = true;
        } else if (c == '[') {
            ++depth;
        } else if (c == ']' && --depth == 0) {
            close = i;
            break;
        }
    }
    if (close == std::string_view::npos) fail({path, static_cast<int64_t>(open), -1, "deviceProperties"}, "unterminated list");
    simdjson::dom::parser parser;
    simdjson::padded_string list(all.substr(open, close - open + 1));
    simdjson::dom::array devices;
    if (parser.parse(list).get(devices) != simdjson::SUCCESS) fail({path, -1, -1, "deviceProperties"}, "not a JSON list");
    for (auto d : devices) {
        std::string_view name;
        if (d["name"].get(name) == simdjson::SUCCESS) names.emplace_back(name);
    }
    return names;
}

}  // namespace mimic

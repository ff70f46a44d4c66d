// Small text tests shared by every layer.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace mimic {

inline bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
inline bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
// "a, b, c" from {"a", "b", "c"} and ", ".
inline std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (const std::string& item : items) {
        if (!out.empty()) out += separator;
        out += item;
    }
    return out;
}
// JSON's whitespace (RFC 8259): space, tab, line feed, carriage return.
inline bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace mimic

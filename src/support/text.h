// Small text tests shared by every layer.
#pragma once

#include <string_view>

namespace mimic {

inline bool starts_with(std::string_view s, std::string_view prefix) { return s.substr(0, prefix.size()) == prefix; }
inline bool ends_with(std::string_view s, std::string_view suffix) {
    return s.size() >= suffix.size() && s.substr(s.size() - suffix.size()) == suffix;
}
// JSON's whitespace (RFC 8259): space, tab, line feed, carriage return.
inline bool is_json_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

}  // namespace mimic

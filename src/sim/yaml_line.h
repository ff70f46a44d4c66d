// The line-level YAML mimic reads in ASTRA-sim's inputs (the network file,
// the per-node custom-implementation file): flat keys and values, comments,
// quotes. No YAML library: these files use nothing more.
#pragma once

#include <string>

namespace mimic::sim {

// A line without its comment and surrounding blanks.
inline std::string yaml_trim(std::string s) {
    const auto comment = s.find('#');
    if (comment != std::string::npos) s.erase(comment);
    const auto first = s.find_first_not_of(" \t\r");
    if (first == std::string::npos) return {};
    const auto last = s.find_last_not_of(" \t\r");
    return s.substr(first, last - first + 1);
}

// A scalar without the quotes around it, if it has a matching pair.
inline std::string yaml_unquote(std::string s) {
    if (s.size() >= 2 && (s.front() == '"' || s.front() == '\'') && s.back() == s.front()) return s.substr(1, s.size() - 2);
    return s;
}

}  // namespace mimic::sim

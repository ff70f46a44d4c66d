#include "support/memory_budget.h"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace mimic {

uint64_t parse_memory_size(const std::string& text, const std::string& option) {
    const auto bad = [&]() -> uint64_t {
        fail({"", -1, -1, option}, "'" + text + "' is not a memory size (examples: 4G, 512M, 1.5GiB, 1000000)");
    };
    size_t end = 0;
    double value = 0;
    try {
        value = std::stod(text, &end);
    } catch (const std::exception&) {
        return bad();
    }
    if (!(value >= 0) || !std::isfinite(value)) return bad();
    std::string unit = text.substr(end);
    for (char& c : unit) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    if (unit.size() > 1 && unit.back() == 'B') unit.pop_back();
    if (unit.size() > 1 && unit.back() == 'I') unit.pop_back();
    double scale = 1;
    if (unit.empty() || unit == "B") scale = 1;
    else if (unit == "K") scale = 1024.0;
    else if (unit == "M") scale = 1024.0 * 1024;
    else if (unit == "G") scale = 1024.0 * 1024 * 1024;
    else if (unit == "T") scale = 1024.0 * 1024 * 1024 * 1024;
    else return bad();
    return static_cast<uint64_t>(value * scale);
}

uint64_t available_memory_bytes() {
    std::ifstream in("/proc/meminfo");
    std::string line;
    while (std::getline(in, line)) {
        if (line.rfind("MemAvailable:", 0) != 0) continue;
        std::istringstream fields(line.substr(13));
        uint64_t kib = 0;
        fields >> kib;
        return kib * 1024;
    }
    return 0;
}

std::string format_mib(uint64_t bytes) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1f MiB", static_cast<double>(bytes) / (1024.0 * 1024.0));
    return buf;
}

}  // namespace mimic

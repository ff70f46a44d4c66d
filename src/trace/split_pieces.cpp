#include "trace/split_pieces.h"

#include <charconv>
#include <string>

namespace mimic {
namespace {

// BASE and k of "BASE(k)", or false.
bool parse_piece(std::string_view name, std::string_view& base, uint32_t& k) {
    if (name.size() < 4 || name.back() != ')') return false;
    const size_t open = name.rfind('(');
    if (open == std::string_view::npos || open == 0) return false;
    const std::string_view digits = name.substr(open + 1, name.size() - open - 2);
    if (digits.empty() || digits.size() > 6) return false;
    for (char c : digits)
        if (c < '0' || c > '9') return false;
    std::from_chars(digits.data(), digits.data() + digits.size(), k);
    base = name.substr(0, open);
    // An operator's name ("aten::mm", "c10d::allreduce_"), not a kernel's
    // signature ("void f<...>(float*, int)") or a label.
    return base.find("::") != std::string_view::npos && base.find(' ') == std::string_view::npos;
}

}  // namespace

std::string_view split_piece_base(std::string_view name) {
    std::string_view base;
    uint32_t k = 0;
    return parse_piece(name, base, k) ? base : name;
}

std::string_view first_piece_base(std::string_view name) {
    std::string_view base;
    uint32_t k = 0;
    return parse_piece(name, base, k) && k == 0 ? base : name;
}

std::vector<uint8_t> later_split_pieces(const Trace& trace) {
    std::vector<uint8_t> later(trace.nodes.size(), 0);
    if (trace.format != TraceFormat::Chakra) return later;
    for (size_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& node = trace.nodes[i];
        std::string_view base;
        uint32_t k = 0;
        if (!parse_piece(trace.name(node), base, k) || k == 0) continue;
        const std::string previous = std::string(base) + "(" + std::to_string(k - 1) + ")";
        for (uint32_t e = 0; e < node.data_deps.count && !later[i]; ++e) {
            const NodeIndex dep = trace.find(trace.edges[node.data_deps.begin + e]);
            if (dep != kNoNode && trace.name(trace.nodes[dep.value]) == previous) later[i] = 1;
        }
    }
    return later;
}

}  // namespace mimic

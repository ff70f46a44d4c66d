#include "analysis/comm_values.h"

#include <cctype>
#include <utility>

namespace mimic::analysis {

std::optional<uint32_t> dtype_size_bytes(std::string_view t) {
    static constexpr std::pair<std::string_view, uint32_t> kSizes[] = {
        {"Byte", 1},         {"Char", 1},          {"Bool", 1},         {"QInt8", 1},
        {"QUInt8", 1},       {"QUInt4x2", 1},      {"QUInt2x4", 1},     {"Float8_e5m2", 1},
        {"Float8_e4m3fn", 1}, {"Float8_e5m2fnuz", 1}, {"Float8_e4m3fnuz", 1}, {"UInt8", 1},
        {"Int8", 1},         {"Short", 2},         {"Half", 2},         {"BFloat16", 2},
        {"UInt16", 2},       {"Int", 4},           {"Float", 4},        {"QInt32", 4},
        {"ComplexHalf", 4},  {"UInt32", 4},        {"Long", 8},         {"Double", 8},
        {"ComplexFloat", 8}, {"UInt64", 8},        {"ComplexDouble", 16},
    };
    for (const auto& [name, size] : kSizes)
        if (name == t) return size;
    return std::nullopt;
}

std::string normalize_collective_name(std::string_view raw) {
    // "c10d::allreduce_(0)" -> "allreduce_": drop a namespace and a Chakra split suffix.
    if (size_t colons = raw.rfind("::"); colons != std::string_view::npos) raw.remove_prefix(colons + 2);
    if (size_t colon = raw.find(':'); colon != std::string_view::npos) raw.remove_prefix(colon + 1);  // nccl:all_reduce
    if (size_t paren = raw.find('('); paren != std::string_view::npos) raw = raw.substr(0, paren);
    std::string squashed;  // lowercase, no underscores: "allgatherbase"
    for (char c : raw)
        if (c != '_') squashed.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    static constexpr std::pair<std::string_view, std::string_view> kByPrefix[] = {
        {"allreduce", "all_reduce"},         {"allgather", "all_gather"},   {"reducescatter", "reduce_scatter"},
        {"alltoall", "all_to_all"},          {"broadcast", "broadcast"},    {"barrier", "barrier"},
        {"reduce", "reduce"},                {"gather", "gather"},          {"scatter", "scatter"},
        {"send", "send"},                    {"recv", "recv"},
    };
    for (const auto& [prefix, name] : kByPrefix)
        if (squashed.compare(0, prefix.size(), prefix) == 0) return std::string(name);
    std::string lower;
    for (char c : raw) lower.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
    return lower;
}

std::string_view chakra_comm_type_name(int64_t comm_type) {
    static constexpr std::string_view kNames[] = {"all_reduce", "reduce",         "all_gather",
                                                  "gather",     "scatter",        "broadcast",
                                                  "all_to_all", "reduce_scatter", "reduce_scatter_block",
                                                  "barrier"};
    if (comm_type < 0 || comm_type >= static_cast<int64_t>(std::size(kNames))) return {};
    return kNames[comm_type];
}

std::vector<std::string_view> schema_argument_names(std::string_view schema) {
    std::vector<std::string_view> names;
    const size_t open = schema.find('(');
    if (open == std::string_view::npos) return names;
    int depth = 0;
    size_t piece_start = open + 1;
    auto take = [&](size_t end) {
        std::string_view piece = schema.substr(piece_start, end - piece_start);
        if (size_t eq = piece.find('='); eq != std::string_view::npos) piece = piece.substr(0, eq);
        while (!piece.empty() && std::isspace(static_cast<unsigned char>(piece.back()))) piece.remove_suffix(1);
        while (!piece.empty() && std::isspace(static_cast<unsigned char>(piece.front()))) piece.remove_prefix(1);
        const size_t space = piece.find_last_of(" \t");
        if (space == std::string_view::npos) return;  // "*" (keyword-only marker) or an empty list
        names.push_back(piece.substr(space + 1));
    };
    for (size_t i = open + 1; i < schema.size(); ++i) {
        const char c = schema[i];
        if (c == '(' || c == '[' || c == '<') {
            ++depth;
        } else if (c == ')' || c == ']' || c == '>') {
            if (c == ')' && depth == 0) {
                take(i);
                return names;
            }
            if (depth > 0) --depth;  // a '>' in "->" cannot occur before the closing ')'
        } else if (c == ',' && depth == 0) {
            take(i);
            piece_start = i + 1;
        }
    }
    return {};  // no closing parenthesis: not a schema
}

bool embedding_batch_argument(std::string_view name) {
    return name == "indices" || name == "offsets" || name == "input" || name == "per_sample_weights" || name == "indice_weights";
}

std::optional<uint64_t> tensor_bytes(const Trace& trace, const Value& value) {
    bool any = false;
    uint64_t total = 0;
    std::vector<const Value*> stack{&value};
    while (!stack.empty()) {
        const Value* v = stack.back();
        stack.pop_back();
        if (v->kind == ValueKind::Tensor) {
            const TensorMeta& t = trace.tensor(*v);
            any = true;
            uint64_t bytes = 0;
            // Saturate rather than wrap on absurd sizes from a damaged trace.
            if (!t.undefined && (__builtin_mul_overflow(t.numel, uint64_t{t.itemsize}, &bytes) ||
                                 __builtin_add_overflow(total, bytes, &total)))
                total = UINT64_MAX;
        } else if (v->kind == ValueKind::List) {
            for (uint32_t i = 0; i < v->payload.range.count; ++i) stack.push_back(trace.value_ptr(v->payload.range, i));
        }
    }
    if (!any) return std::nullopt;
    return total;
}

}  // namespace mimic::analysis

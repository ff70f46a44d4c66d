#include "compose/owner_names.h"

#include "compose/obfuscate_names.h"
#include "support/error.h"

namespace mimic::compose {
namespace {

constexpr std::string_view kAutogradPrefix = "autograd::engine::evaluate_function: ";

std::regex compile(const std::string& pattern, const std::string& path) {
    try {
        return std::regex(pattern.empty() ? std::string("$^") : pattern);
    } catch (const std::regex_error& e) {
        fail({path, -1, -1, "--keep"}, "not a valid regular expression: " + pattern + " (" + e.what() + ")");
    }
}

}  // namespace

OwnerNames::OwnerNames(AliasMap& map, const std::string& keep_regex, const std::string& path)
    : map_(map), keep_(compile(keep_regex, path)), has_keep_(!keep_regex.empty()) {}

void OwnerNames::learn_op(std::string_view name) {
    if (classify_name(name) != NameKind::FrameworkOp) return;
    std::string_view op = name.substr(name.find("::") + 2);
    aten_ops_.insert(squash_op_name(op.substr(0, op.find('.'))));
}

NameVerdict OwnerNames::rewrite(JsonValue& name_value) {
    const std::string name = name_value.as_string();
    if (has_keep_ && std::regex_search(name, keep_)) return NameVerdict::Kept;
    switch (classify_name(name)) {
        case NameKind::FrameworkOp:
        case NameKind::FrameworkLabel: return NameVerdict::Kept;
        case NameKind::AutogradNode: {
            bool prefixed = name.rfind(kAutogradPrefix, 0) == 0;
            std::string function = prefixed ? name.substr(kAutogradPrefix.size()) : name;
            if (autograd_function_is_builtin(function, aten_ops_)) return NameVerdict::Kept;
            name_value.mutable_string() = (prefixed ? std::string(kAutogradPrefix) : "") + map_.alias(function, "fn");
            return NameVerdict::Renamed;
        }
        case NameKind::OptimizerLabel: {
            std::string cls(optimizer_class(name));
            if (is_torch_optimizer(cls)) return NameVerdict::Kept;
            std::string out = name;
            const std::string alias = map_.alias(cls, "class");
            for (size_t at = out.find(cls); at != std::string::npos; at = out.find(cls, at + alias.size()))
                out.replace(at, cls.size(), alias);
            name_value.mutable_string() = out;
            return NameVerdict::Renamed;
        }
        case NameKind::CustomOp:
            name_value.mutable_string() = map_.alias(name, "op");
            return NameVerdict::RenamedCustomOp;
        case NameKind::UserLabel:
            name_value.mutable_string() = map_.alias(name, "label");
            return NameVerdict::Renamed;
    }
    return NameVerdict::Kept;
}

}  // namespace mimic::compose

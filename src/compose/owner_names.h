// The renaming of operator and label names shared by an ET's nodes and its
// profile's events, so both name an op the same way after obfuscation (the
// linker pairs them by name).
#pragma once

#include <regex>
#include <string>
#include <string_view>
#include <unordered_set>

#include "compose/alias_map.h"
#include "compose/json_tree.h"

namespace mimic::compose {

enum class NameVerdict : uint8_t {
    Kept,             // PyTorch's (or kept by --keep): its arguments stay too
    Renamed,          // the owner's label, autograd function or optimizer class
    RenamedCustomOp,  // a custom op: the caller anonymizes its schema
};

class OwnerNames {
public:
    // Throws mimic::Error naming `path` and --keep when the regex is invalid.
    OwnerNames(AliasMap& map, const std::string& keep_regex, const std::string& path);

    // Notes an ATen op the trace runs, by which autograd function names are
    // known to be PyTorch's (AddmmBackward0 once aten::addmm is seen).
    void learn_op(std::string_view name);
    // Renames the string `name` in place when it is the owner's.
    NameVerdict rewrite(JsonValue& name);

private:
    AliasMap& map_;
    std::regex keep_;
    bool has_keep_;
    std::unordered_set<std::string> aten_ops_;
};

}  // namespace mimic::compose

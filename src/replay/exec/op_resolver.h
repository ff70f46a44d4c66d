// Finds the dispatcher operator an ET node names: its op_schema string is
// parsed (name and overload) and looked up among the registered operators.
// Results are cached per interned schema string: traces repeat a few hundred
// schemas over millions of nodes.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>

#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "support/interner.h"

namespace mimic::replay {

struct ResolvedOp {
    std::optional<c10::OperatorHandle> handle;  // empty when not found
    std::string skip_reason;                     // why, when empty
};

class OpResolver {
public:
    // `schema_id` keys the cache; `schema` is its text.
    const ResolvedOp& resolve(StrId schema_id, std::string_view schema);
    // Uncached lookup by qualified name and overload ("aten::add", "Tensor").
    static std::optional<c10::OperatorHandle> find(const std::string& name, const std::string& overload);

private:
    std::unordered_map<StrId, ResolvedOp> cache_;
};

}  // namespace mimic::replay

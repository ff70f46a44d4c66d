#include "replay/exec/op_resolver.h"

#include <torch/csrc/jit/frontend/function_schema_parser.h>

namespace mimic::replay {

std::optional<c10::OperatorHandle> OpResolver::find(const std::string& name, const std::string& overload) {
    auto h = c10::Dispatcher::singleton().findSchema({name, overload});
    if (!h) return std::nullopt;
    return *h;
}

const ResolvedOp& OpResolver::resolve(StrId schema_id, std::string_view schema) {
    auto it = cache_.find(schema_id);
    if (it != cache_.end()) return it->second;
    ResolvedOp r;
    if (schema.empty()) {
        r.skip_reason = "no op_schema";
    } else {
        try {
            c10::FunctionSchema parsed = torch::jit::parseSchema(std::string(schema));
            r.handle = find(parsed.name(), parsed.overload_name());
            if (!r.handle) {
                std::string full = parsed.name();
                if (!parsed.overload_name().empty()) full += "." + parsed.overload_name();
                r.skip_reason = "operator not registered: " + full;
            }
        } catch (const c10::Error& e) {
            r.skip_reason = "op_schema does not parse";
        } catch (const std::exception& e) {
            // The schema parser reports syntax errors as plain runtime errors.
            r.skip_reason = "op_schema does not parse";
        }
    }
    return cache_.emplace(schema_id, std::move(r)).first->second;
}

}  // namespace mimic::replay

#include "replay/exec/op_registry.h"

#include <string>
#include <unordered_map>

#include <ATen/core/dispatch/Dispatcher.h>
#include <torch/csrc/jit/frontend/function_schema_parser.h>
#include <torch/csrc/api/include/torch/version.h>

namespace mimic::replay {
namespace {

// Kernels a replay on this machine can reach: the CPU backend itself, its
// sparse COO kernels (the pool makes the tensors the observer wrote without
// storage sparse), and composite kernels, which are written in terms of
// other ops and so run on whatever backend those ops have.
constexpr c10::DispatchKey kCpuRunnableKeys[] = {
    c10::DispatchKey::CPU,
    c10::DispatchKey::SparseCPU,
    c10::DispatchKey::CompositeImplicitAutograd,
    c10::DispatchKey::CompositeExplicitAutograd,
    c10::DispatchKey::CompositeExplicitAutogradNonFunctional,
};

// "ns::name.overload(...) -> ..." -> {"ns::name", "overload"}, for schemas the
// parser rejects (a type this libtorch does not know, say): the dispatcher
// finds operators by name alone.
c10::OperatorName name_from_text(std::string_view schema) {
    std::string_view head = schema.substr(0, schema.find('('));
    while (!head.empty() && head.back() == ' ') head.remove_suffix(1);
    const size_t colons = head.find("::");
    const size_t dot = head.find('.', colons == std::string_view::npos ? 0 : colons + 2);
    if (dot == std::string_view::npos) return c10::OperatorName(std::string(head), "");
    return c10::OperatorName(std::string(head.substr(0, dot)), std::string(head.substr(dot + 1)));
}

OpLookup look_up(const std::string& schema) {
    OpLookup out;
    c10::OperatorName name("", "");
    try {
        c10::FunctionSchema parsed = torch::jit::parseSchema(schema);
        name = parsed.operator_name();
        out.parsed = true;
    } catch (const c10::Error& e) {
        out.problem = std::string("schema does not parse: ") + e.what_without_backtrace();
        name = name_from_text(schema);
    } catch (const std::exception& e) {
        // The schema parser reports syntax errors as torch::jit::ErrorReport,
        // which is a std::exception but no c10::Error.
        std::string what = e.what();
        out.problem = "schema does not parse: " + what.substr(0, what.find('\n'));
        name = name_from_text(schema);
    }
    if (name.name.empty() || name.name.find("::") == std::string::npos) {
        if (out.problem.empty()) out.problem = "no namespace::name in the schema";
        return out;
    }
    auto handle = c10::Dispatcher::singleton().findSchema({name.name, name.overload_name});
    if (!handle) {
        out.problem = "not registered in this libtorch";
        return out;
    }
    out.registered = true;
    for (c10::DispatchKey key : kCpuRunnableKeys) {
        if (handle->hasKernelForDispatchKey(key)) {
            out.cpu_kernel = true;
            out.kernel_key = c10::toString(key);
            out.problem.clear();
            return out;
        }
    }
    out.problem = "registered without a CPU or composite kernel";
    return out;
}

}  // namespace

struct OpRegistry::Cache {
    std::unordered_map<std::string, OpLookup> by_schema;
};

OpRegistry::OpRegistry() : cache_(std::make_unique<Cache>()) {}
OpRegistry::~OpRegistry() = default;

const OpLookup& OpRegistry::lookup(std::string_view op_schema) {
    std::string key(op_schema);
    auto it = cache_->by_schema.find(key);
    if (it != cache_->by_schema.end()) return it->second;
    OpLookup result = look_up(key);
    return cache_->by_schema.emplace(std::move(key), std::move(result)).first->second;
}

OpKernelTable build_kernel_table() {
    OpKernelTable table;
    table.set_libtorch_version(TORCH_VERSION);
    for (const c10::OperatorName& name : c10::Dispatcher::singleton().getAllOpNames()) {
        auto handle = c10::Dispatcher::singleton().findOp(name);
        if (!handle) continue;
        bool cpu = false;
        for (c10::DispatchKey key : kCpuRunnableKeys) cpu = cpu || handle->hasKernelForDispatchKey(key);
        std::string key = name.overload_name.empty() ? name.name : name.name + "." + name.overload_name;
        table.add(std::move(key), cpu ? OpKernel::CpuKernel : OpKernel::NoCpuKernel);
    }
    return table;
}

}  // namespace mimic::replay

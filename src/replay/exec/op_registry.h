// Asks this process's libtorch whether an operator schema from a trace is
// registered with a kernel that runs on the CPU, so an analysis can say how
// much of a trace a replay here could run. Only libtorch headers in the .cpp:
// this header stays cheap to include.
#pragma once

#include <memory>
#include <string>
#include <string_view>

namespace mimic::replay {

struct OpLookup {
    bool parsed = false;      // the schema string parsed as a FunctionSchema
    bool registered = false;  // the dispatcher knows the operator (name and overload)
    bool cpu_kernel = false;  // a CPU kernel, or a composite kernel (which runs on CPU too)
    std::string kernel_key;   // the dispatch key that answered, e.g. "CPU", "CompositeImplicitAutograd"
    std::string problem;      // why not, in words, when cpu_kernel is false
};

class OpRegistry {
public:
    OpRegistry();
    ~OpRegistry();
    OpRegistry(const OpRegistry&) = delete;
    OpRegistry& operator=(const OpRegistry&) = delete;

    // Looks a schema string up; answers are cached by the string, since a
    // trace repeats a few hundred schemas over many nodes. Never throws on a
    // malformed schema: that is an answer (parsed = false).
    const OpLookup& lookup(std::string_view op_schema);
    bool has_cpu_kernel(std::string_view op_schema) { return lookup(op_schema).cpu_kernel; }

private:
    struct Cache;
    std::unique_ptr<Cache> cache_;
};

}  // namespace mimic::replay

#include "io/op_kernel_table.h"

namespace mimic::replay {

// Every operator this libtorch registers, with whether it runs on the CPU:
// what `mimic-torch list-ops` writes for the torch-free commands.
OpKernelTable build_kernel_table();

}  // namespace mimic::replay

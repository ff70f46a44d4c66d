// mimic list-ops: which operators this libtorch registers and whether each
// runs on the CPU. The build writes it beside the binaries as
// mimic-cpu-ops.tsv, so torch-free commands know it without loading libtorch.
#ifdef MIMIC_HAVE_TORCH
#include <cstdio>
#include <fstream>
#include <memory>

#include "command.h"
#include "replay/exec/op_registry.h"
#include "support/error.h"

namespace mimic::cli {
namespace {

struct ListOpsArgs {
    std::string out;
};

int run(const ListOpsArgs& args) {
    const std::string text = replay::build_kernel_table().to_text();
    if (args.out.empty()) {
        std::fwrite(text.data(), 1, text.size(), stdout);
        return 0;
    }
    std::ofstream file(args.out, std::ios::binary | std::ios::trunc);
    file.write(text.data(), static_cast<std::streamsize>(text.size()));
    if (!file) fail({args.out, -1, -1, ""}, "cannot write the op table");
    return 0;
}

const Registrar registrar{{
    "list-ops",
    "List the operators this libtorch registers and whether each has a CPU kernel",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<ListOpsArgs>();
        app.add_option("-o,--out", args->out, "write the table to FILE instead of stdout");
        app.footer("Example: mimic list-ops --out cpu_ops.tsv");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli
#endif  // MIMIC_HAVE_TORCH

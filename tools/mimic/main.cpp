// mimic's entry point: main() alone decides the exit code. Library errors
// arrive as mimic::Error and become one line on stderr and exit code 1.
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>

#include "command.h"
#include "support/error.h"

namespace mimic::cli {
std::vector<Command>& commands() {
    static std::vector<Command> all;
    return all;
}
}  // namespace mimic::cli

namespace {

// Commands whose code needs libtorch. The torch-free `mimic` hands them to
// `mimic-torch` beside it (see CMakeLists.txt for why there are two binaries).
constexpr const char* kTorchCommands[] = {"replay", "list-ops", "calibrate"};

#ifndef MIMIC_HAVE_TORCH
bool is_torch_command(const char* name) {
    for (const char* c : kTorchCommands)
        if (std::strcmp(c, name) == 0) return true;
    return false;
}

int hand_over_to_torch_binary(char** argv) {
    std::error_code ec;
    auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    std::string torch_binary = ec ? std::string("mimic-torch") : (exe.parent_path() / "mimic-torch").string();
    if (std::filesystem::exists(torch_binary)) {
        argv[0] = const_cast<char*>(torch_binary.c_str());
        execv(torch_binary.c_str(), argv);
        std::fprintf(stderr, "mimic: error: cannot start %s: %s\n", torch_binary.c_str(), std::strerror(errno));
        return 1;
    }
    std::fprintf(stderr,
                 "mimic: error: '%s' needs libtorch, and this build has none (install libtorch-dev, "
                 "e.g. with scripts/install-deps.sh, and rebuild)\n",
                 argv[1]);
    return 1;
}
#endif

}  // namespace

int main(int argc, char** argv) {
    using namespace mimic::cli;
#ifndef MIMIC_HAVE_TORCH
    if (argc > 1 && is_torch_command(argv[1])) return hand_over_to_torch_binary(argv);
#endif
    CLI::App app{"mimic: execution traces of PyTorch jobs as benchmarks and predictions"};
    app.require_subcommand(1);
    app.set_version_flag("--version", "mimic 0.1.0");
    auto& all = commands();
    std::sort(all.begin(), all.end(), [](const Command& a, const Command& b) { return a.name < b.name; });
    std::map<CLI::App*, RunFn> runners;
    for (auto& c : all) {
        CLI::App* sub = app.add_subcommand(c.name, c.help);
        runners[sub] = c.setup(*sub);
    }
#ifndef MIMIC_HAVE_TORCH
    // Listed in --help; running them never reaches here (handed over above).
    for (const char* name : kTorchCommands)
        app.add_subcommand(name, "(runs in mimic-torch, which has libtorch)")->allow_extras();
#endif
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        return app.exit(e);
    }
    try {
        for (auto& [sub, run] : runners)
            if (sub->parsed()) return run();
    } catch (const mimic::Error& e) {
        std::fprintf(stderr, "mimic: error: %s\n", e.what());
        return 1;
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "mimic: error: out of memory\n");
        return 1;
    } catch (const std::exception& e) {
        std::fprintf(stderr, "mimic: internal error: %s\n", e.what());
        return 2;
    }
    return 0;
}

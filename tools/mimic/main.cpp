// mimic's entry point: main() alone decides the exit code. Library errors
// arrive as mimic::Error and become one line on stderr and exit code 1.
#include <algorithm>
#include <cstdio>
#include <exception>
#include <map>

#include "command.h"
#include "support/error.h"

namespace mimic::cli {
std::vector<Command>& commands() {
    static std::vector<Command> all;
    return all;
}
}  // namespace mimic::cli

int main(int argc, char** argv) {
    using namespace mimic::cli;
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

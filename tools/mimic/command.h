// Each subcommand is one file that registers itself here: it declares its
// options on a CLI11 subcommand and returns the function that runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace mimic::cli {

// Runs the parsed subcommand; returns the process exit code.
using RunFn = std::function<int()>;

struct Command {
    std::string name;
    std::string help;
    // Declares the options on `app` and returns what to run once they are parsed.
    std::function<RunFn(CLI::App& app)> setup;
};

std::vector<Command>& commands();

struct Registrar {
    explicit Registrar(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace mimic::cli

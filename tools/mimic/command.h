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

// Number checks with plain messages ("must be above 0, not 0"), where
// CLI11's own print the range up to the largest double.
inline CLI::Validator above_zero() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
            return v > 0 ? std::string() : "must be above 0, not " + text;
        },
        "NUMBER > 0");
}
inline CLI::Validator zero_or_more() {
    return CLI::Validator(
        [](std::string& text) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
            return v >= 0 ? std::string() : "must be 0 or more, not " + text;
        },
        "NUMBER >= 0");
}

struct Registrar {
    explicit Registrar(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace mimic::cli

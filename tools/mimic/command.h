// Each subcommand is one file that registers itself here: it declares its
// options on a CLI11 subcommand and returns the function that runs it.
#pragma once

#include <CLI/CLI.hpp>

#include <cstdio>
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

// What reading a file said (an ET mended, say), one line each on stderr.
inline void print_read_warnings(const std::string& path, const std::vector<std::string>& warnings) {
    for (const std::string& w : warnings) std::fprintf(stderr, "mimic: warning: %s: %s\n", path.c_str(), w.c_str());
}

// Number checks with plain messages ("must be above 0, not 0"), where
// CLI11's own print the range up to the largest double.
inline CLI::Validator number_at_least_zero(bool zero_allowed) {
    return CLI::Validator(
        [zero_allowed](std::string& text) -> std::string {
            double v = 0;
            if (!CLI::detail::lexical_cast(text, v)) return "'" + text + "' is not a number";
            if (zero_allowed ? v >= 0 : v > 0) return std::string();
            return std::string(zero_allowed ? "must be 0 or more" : "must be above 0") + ", not " + text;
        },
        zero_allowed ? "NUMBER >= 0" : "NUMBER > 0");
}
inline CLI::Validator above_zero() { return number_at_least_zero(false); }
inline CLI::Validator zero_or_more() { return number_at_least_zero(true); }

struct Registrar {
    explicit Registrar(Command c) { commands().push_back(std::move(c)); }
};

}  // namespace mimic::cli

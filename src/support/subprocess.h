// Running another program (the Python recorder) with its output streaming
// straight to ours. Nothing is captured or buffered: the child inherits
// stdin/stdout/stderr, so a long recording shows its progress as it goes.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace mimic {

struct SubprocessResult {
    int exit_code = 0;    // the child's exit status when it exited normally
    int term_signal = 0;  // nonzero when a signal killed the child
};

// Runs argv[0] (a path; PATH is not searched) with arguments argv, in the
// current environment with `env_overrides` set on top. While it runs, this
// process ignores SIGINT/SIGQUIT so Ctrl-C stops the child and we report how
// it ended. Throws mimic::Error naming the program if it cannot be started.
SubprocessResult run_subprocess(const std::vector<std::string>& argv,
                                const std::vector<std::pair<std::string, std::string>>& env_overrides);

// True if `path` names an existing regular file this process may execute.
bool is_executable_file(const std::string& path);

}  // namespace mimic

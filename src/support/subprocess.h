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

// One process of a group run together (the ranks of a local replay).
struct ProcessSpec {
    std::vector<std::string> argv;
    std::vector<std::pair<std::string, std::string>> env_overrides;
};

struct ProcessGroupResult {
    std::vector<SubprocessResult> results;  // one per spec, in order
    int first_failure = -1;  // the spec that failed first (nonzero exit or signal), -1 if none
    bool others_stopped = false;  // the rest were terminated because of it
    std::vector<int> running_at_failure;  // specs still running when the first failed
};

// Starts every process at once and waits for all. When one fails, the others
// get SIGTERM, and SIGKILL `grace_s` seconds later: no rank is left behind
// waiting for a peer that is gone. Ctrl-C reaches the children directly (they
// share our terminal); this process waits on. Throws mimic::Error if a
// process cannot be started (those already started are stopped first).
ProcessGroupResult run_process_group(const std::vector<ProcessSpec>& specs, double grace_s);

// True if `path` names an existing regular file this process may execute.
bool is_executable_file(const std::string& path);

}  // namespace mimic

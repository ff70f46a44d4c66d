#include "support/subprocess.h"

#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <map>

#include "support/error.h"

extern char** environ;

namespace mimic {
namespace {

// The environment as "KEY=VALUE" strings with the overrides applied.
std::vector<std::string> merged_environment(const std::vector<std::pair<std::string, std::string>>& overrides) {
    std::map<std::string, std::string> vars;
    std::vector<std::string> order;
    for (char** e = environ; e && *e; ++e) {
        std::string entry(*e);
        const size_t eq = entry.find('=');
        if (eq == std::string::npos) continue;
        std::string key = entry.substr(0, eq);
        if (vars.emplace(key, entry.substr(eq + 1)).second) order.push_back(key);
    }
    for (const auto& [key, value] : overrides) {
        if (vars.find(key) == vars.end()) order.push_back(key);
        vars[key] = value;
    }
    std::vector<std::string> out;
    out.reserve(order.size());
    for (const auto& key : order) out.push_back(key + "=" + vars[key]);
    return out;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
    std::vector<char*> out;
    out.reserve(strings.size() + 1);
    for (auto& s : strings) out.push_back(s.data());
    out.push_back(nullptr);
    return out;
}

// Ignores SIGINT and SIGQUIT for its lifetime, as system() does while a child runs.
class IgnoreInterrupts {
public:
    IgnoreInterrupts() {
        struct sigaction ignore {};
        ignore.sa_handler = SIG_IGN;
        sigemptyset(&ignore.sa_mask);
        sigaction(SIGINT, &ignore, &old_int_);
        sigaction(SIGQUIT, &ignore, &old_quit_);
    }
    ~IgnoreInterrupts() {
        sigaction(SIGINT, &old_int_, nullptr);
        sigaction(SIGQUIT, &old_quit_, nullptr);
    }
    IgnoreInterrupts(const IgnoreInterrupts&) = delete;
    IgnoreInterrupts& operator=(const IgnoreInterrupts&) = delete;

private:
    struct sigaction old_int_ {};
    struct sigaction old_quit_ {};
};

// Starts argv[0] with the overrides on top of our environment; the child
// gets default SIGINT/SIGQUIT handling even though we ignore them meanwhile.
// Returns the error number of posix_spawn (0 on success).
int spawn_child(const std::vector<std::string>& argv, const std::vector<std::pair<std::string, std::string>>& env_overrides,
                pid_t& pid) {
    std::vector<std::string> args = argv;
    std::vector<std::string> env = merged_environment(env_overrides);
    std::vector<char*> c_args = c_strings(args);
    std::vector<char*> c_env = c_strings(env);
    posix_spawnattr_t attr;
    posix_spawnattr_init(&attr);
    sigset_t defaults;
    sigemptyset(&defaults);
    sigaddset(&defaults, SIGINT);
    sigaddset(&defaults, SIGQUIT);
    posix_spawnattr_setsigdefault(&attr, &defaults);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGDEF);
    const int rc = posix_spawn(&pid, argv[0].c_str(), nullptr, &attr, c_args.data(), c_env.data());
    posix_spawnattr_destroy(&attr);
    return rc;
}

}  // namespace

bool is_executable_file(const std::string& path) {
    struct stat st {};
    return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(path.c_str(), X_OK) == 0;
}

SubprocessResult run_subprocess(const std::vector<std::string>& argv,
                                const std::vector<std::pair<std::string, std::string>>& env_overrides) {
    if (argv.empty()) fail({}, "run_subprocess: no program given");
    IgnoreInterrupts ignore;
    pid_t pid = 0;
    const int rc = spawn_child(argv, env_overrides, pid);
    if (rc != 0) fail({argv[0], -1, -1, ""}, std::string("cannot start: ") + std::strerror(rc));

    int status = 0;
    while (::waitpid(pid, &status, 0) < 0) {
        if (errno != EINTR) fail({argv[0], -1, -1, ""}, std::string("waitpid failed: ") + std::strerror(errno));
    }
    SubprocessResult result;
    if (WIFEXITED(status)) result.exit_code = WEXITSTATUS(status);
    if (WIFSIGNALED(status)) {
        result.term_signal = WTERMSIG(status);
        result.exit_code = 128 + result.term_signal;
    }
    return result;
}

namespace {

void stop_all(const std::vector<pid_t>& pids, const std::vector<bool>& running, int sig) {
    for (size_t i = 0; i < pids.size(); ++i)
        if (running[i]) ::kill(pids[i], sig);
}

}  // namespace

ProcessGroupResult run_process_group(const std::vector<ProcessSpec>& specs, double grace_s) {
    ProcessGroupResult out;
    out.results.resize(specs.size());
    std::vector<pid_t> pids;
    std::vector<bool> running;
    IgnoreInterrupts ignore;
    for (const ProcessSpec& spec : specs) {
        if (spec.argv.empty()) fail({}, "run_process_group: no program given");
        pid_t pid = 0;
        const int rc = spawn_child(spec.argv, spec.env_overrides, pid);
        if (rc != 0) {
            stop_all(pids, running, SIGKILL);
            for (pid_t p : pids) ::waitpid(p, nullptr, 0);
            fail({spec.argv[0], -1, -1, ""}, std::string("cannot start: ") + std::strerror(rc));
        }
        pids.push_back(pid);
        running.push_back(true);
    }
    size_t left = pids.size();
    bool terminated = false;
    double kill_at = 0, waited_s = 0;
    constexpr double kPollS = 0.02;
    while (left > 0) {
        bool reaped = false;
        for (size_t i = 0; i < pids.size(); ++i) {
            if (!running[i]) continue;
            int status = 0;
            const pid_t r = ::waitpid(pids[i], &status, WNOHANG);
            if (r == 0 || (r < 0 && errno == EINTR)) continue;
            running[i] = false;
            --left;
            reaped = true;
            SubprocessResult& res = out.results[i];
            if (r > 0 && WIFEXITED(status)) res.exit_code = WEXITSTATUS(status);
            if (r > 0 && WIFSIGNALED(status)) {
                res.term_signal = WTERMSIG(status);
                res.exit_code = 128 + res.term_signal;
            }
            if (res.exit_code != 0 && out.first_failure < 0 && !terminated) {
                out.first_failure = int(i);
                for (size_t k = 0; k < pids.size(); ++k)
                    if (running[k]) out.running_at_failure.push_back(int(k));
                if (left > 0) {
                    stop_all(pids, running, SIGTERM);
                    out.others_stopped = true;
                    terminated = true;
                    kill_at = waited_s + grace_s;
                }
            }
        }
        if (terminated && waited_s >= kill_at) {
            stop_all(pids, running, SIGKILL);
            kill_at = 1e300;
        }
        if (!reaped && left > 0) {
            ::usleep(useconds_t(kPollS * 1e6));
            waited_s += kPollS;
        }
    }
    return out;
}

}  // namespace mimic

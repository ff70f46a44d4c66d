#include "support/paced_runs.h"

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <sstream>

#include "support/error.h"

namespace mimic {

std::pair<std::string, std::string> paced_fifo_paths(const std::string& prefix, int rank) {
    const std::string suffix = ".rank" + std::to_string(rank);
    return {prefix + ".go" + suffix, prefix + ".done" + suffix};
}

namespace {

// A command's two counts; bounded so a garbled line cannot start a day-long block.
bool parse_run(const std::string& line, int& untimed, int& timed) {
    std::istringstream in(line);
    std::string verb, rest;
    if (!(in >> verb >> untimed >> timed) || verb != "run" || (in >> rest)) return false;
    return untimed >= 0 && timed >= 1 && untimed <= 100000 && timed <= 100000;
}

// Writes all of `text`; false (errno set) when the driver has closed its
// end. SIGPIPE is blocked for the write, and one it raised is taken before
// unblocking, so a driver that dies ends the run with an error, not a kill.
bool write_reply(int fd, const std::string& text) {
    sigset_t pipe_only, old;
    sigemptyset(&pipe_only);
    sigaddset(&pipe_only, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_only, &old);
    bool ok = true;
    for (size_t done = 0; ok && done < text.size();) {
        const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
        if (n > 0) done += size_t(n);
        else if (n < 0 && errno != EINTR) ok = false;
    }
    if (!ok && errno == EPIPE) {
        const int saved = errno;
        const timespec no_wait{0, 0};
        sigtimedwait(&pipe_only, nullptr, &no_wait);
        errno = saved;
    }
    pthread_sigmask(SIG_SETMASK, &old, nullptr);
    return ok;
}

}  // namespace

std::vector<double> run_paced(const std::string& prefix, int rank, const std::function<double(bool timed)>& iteration,
                              const std::function<std::string()>& op_pass) {
    const auto [go_path, done_path] = paced_fifo_paths(prefix, rank);
    // The driver opens go for writing, then done for reading: the same order here.
    std::ifstream go(go_path);
    if (!go) fail({go_path, -1, -1, "--pace"}, std::string("cannot open for reading: ") + std::strerror(errno));
    const int done = ::open(done_path.c_str(), O_WRONLY | O_CLOEXEC);
    if (done < 0) fail({done_path, -1, -1, "--pace"}, std::string("cannot open for writing: ") + std::strerror(errno));
    std::vector<double> times;
    std::string line;
    try {
        while (std::getline(go, line) && line != "stop") {
            if (line == "ops" && op_pass) {
                if (!write_reply(done, op_pass() + "\n"))
                    fail({done_path, -1, -1, "--pace"}, std::string("cannot write the op times: ") + std::strerror(errno));
                continue;
            }
            int untimed = 0, timed = 0;
            if (!parse_run(line, untimed, timed))
                fail({go_path, -1, -1, "--pace"},
                     std::string("expected 'run UNTIMED TIMED', ") + (op_pass ? "'ops', " : "") + "or 'stop', got '" + line + "'");
            for (int i = 0; i < untimed; ++i) iteration(false);
            std::string reply;
            for (int i = 0; i < timed; ++i) {
                const double ms = iteration(true);
                times.push_back(ms);
                reply += (i ? " " : "") + std::to_string(ms);
            }
            reply += '\n';
            if (!write_reply(done, reply))
                fail({done_path, -1, -1, "--pace"}, std::string("cannot write the block's times: ") + std::strerror(errno));
        }
    } catch (...) {
        ::close(done);
        throw;
    }
    ::close(done);
    return times;
}

}  // namespace mimic

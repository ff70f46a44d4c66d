#include "support/paced_runs.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
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

}  // namespace

std::vector<double> run_paced(const std::string& prefix, int rank, const std::function<double(bool timed)>& iteration) {
    const auto [go_path, done_path] = paced_fifo_paths(prefix, rank);
    // The driver opens go for writing, then done for reading: the same order here.
    std::ifstream go(go_path);
    if (!go) fail({go_path, -1, -1, "--pace"}, std::string("cannot open for reading: ") + std::strerror(errno));
    std::FILE* done = std::fopen(done_path.c_str(), "w");
    if (!done) fail({done_path, -1, -1, "--pace"}, std::string("cannot open for writing: ") + std::strerror(errno));
    std::vector<double> times;
    std::string line;
    try {
        while (std::getline(go, line) && line != "stop") {
            int untimed = 0, timed = 0;
            if (!parse_run(line, untimed, timed))
                fail({go_path, -1, -1, "--pace"}, "expected 'run UNTIMED TIMED' or 'stop', got '" + line + "'");
            for (int i = 0; i < untimed; ++i) iteration(false);
            std::string reply;
            for (int i = 0; i < timed; ++i) {
                const double ms = iteration(true);
                times.push_back(ms);
                reply += (i ? " " : "") + std::to_string(ms);
            }
            reply += '\n';
            if (std::fputs(reply.c_str(), done) < 0 || std::fflush(done) != 0)
                fail({done_path, -1, -1, "--pace"}, std::string("cannot write: ") + std::strerror(errno));
        }
    } catch (...) {
        std::fclose(done);
        throw;
    }
    std::fclose(done);
    return times;
}

}  // namespace mimic

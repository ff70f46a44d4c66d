#include "replay/dist/local_launch.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "support/byte_source.h"
#include "support/error.h"
#include "support/subprocess.h"
#include "support/temp_dir.h"

namespace mimic::replay {
namespace {

namespace fs = std::filesystem;


std::string how_it_ended(const SubprocessResult& r) {
    if (r.term_signal) return std::string("was killed by signal ") + std::to_string(r.term_signal) + " (" + strsignal(r.term_signal) + ")";
    return "exited with code " + std::to_string(r.exit_code);
}

}  // namespace

int free_local_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) fail({"", -1, -1, "MASTER_PORT"}, std::string("cannot open a socket: ") + std::strerror(errno));
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = 0;
    socklen_t len = sizeof(addr);
    const bool ok = ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
                    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0;
    ::close(fd);
    if (!ok) fail({"", -1, -1, "MASTER_PORT"}, std::string("cannot find a free port: ") + std::strerror(errno));
    return ntohs(addr.sin_port);
}

MergedReport launch_local(const LocalLaunch& launch) {
    TempDir dir("mimic-replay");
    for (int attempt = 1;; ++attempt) {
        const int port = free_local_port();
        std::vector<ProcessSpec> specs;
        std::vector<std::string> report_paths;
        for (int r = 0; r < launch.nproc; ++r) {
            ProcessSpec spec;
            spec.argv = launch.argv;
            const std::string json = dir.path() + "/rank" + std::to_string(r) + ".json";
            spec.argv.push_back("--json");
            spec.argv.push_back(json);
            if (launch.per_rank_args)
                for (std::string& a : launch.per_rank_args(r)) spec.argv.push_back(std::move(a));
            spec.env_overrides = {{"RANK", std::to_string(r)},
                                  {"WORLD_SIZE", std::to_string(launch.nproc)},
                                  {"LOCAL_RANK", std::to_string(r)},
                                  {"MASTER_ADDR", "127.0.0.1"},
                                  {"MASTER_PORT", std::to_string(port)},
                                  {kLaunchedByMimic, "1"},
                                  // c10d's own log lines; its failures reach us as exceptions
                                  {"GLOG_minloglevel", "3"}};
            specs.push_back(std::move(spec));
            report_paths.push_back(json);
        }
        const ProcessGroupResult run = run_process_group(specs, launch.stop_grace_s);
        if (run.first_failure < 0) {
            std::vector<RankReport> reports;
            for (int r = 0; r < launch.nproc; ++r)
                reports.push_back({r, report_paths[size_t(r)], read_whole_file(report_paths[size_t(r)])});
            return merge_rank_reports(reports);
        }
        const SubprocessResult& failed = run.results[size_t(run.first_failure)];
        if (run.first_failure == 0 && failed.exit_code == kExitPortBusy && attempt < launch.attempts) {
            std::fprintf(stderr, "mimic: port %d was taken; trying another\n", port);
            continue;
        }
        std::string still;
        for (int r : run.running_at_failure) still += (still.empty() ? "" : ", ") + std::to_string(r);
        fail({}, "rank " + std::to_string(run.first_failure) + " " + how_it_ended(failed) +
                     (still.empty() ? std::string()
                                    : "; rank(s) " + still + " were still running and were stopped (a rank that hangs "
                                      "shows as its peers timing out)"));
    }
}

}  // namespace mimic::replay

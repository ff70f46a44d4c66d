// `mimic replay DIR --nproc N` on one machine: starts one replay process per
// rank with the variables a launcher would set (RANK, WORLD_SIZE,
// MASTER_ADDR, MASTER_PORT), supervises them (one failing stops the others),
// retries on another port when the rendezvous port is taken, and merges the
// ranks' reports.
#pragma once

#include <functional>
#include <string>
#include <vector>

#include "replay/dist/dist_report.h"

namespace mimic::replay {

// Exit code of a rank whose rendezvous port was taken: the launcher retries.
constexpr int kExitPortBusy = 75;
// Set in the ranks' environment: they leave printing to the launcher.
constexpr const char* kLaunchedByMimic = "MIMIC_REPLAY_LAUNCHED";

struct LocalLaunch {
    int nproc = 2;
    // The command line each rank runs, without --json; rank r's report path
    // is appended as "--json PATH", and per_rank_args(r) after it.
    std::vector<std::string> argv;
    std::function<std::vector<std::string>(int rank)> per_rank_args;  // may be empty
    double stop_grace_s = 5.0;
    int attempts = 3;  // ports tried
};

// Runs the ranks; returns their merged report. Throws mimic::Error naming
// the rank that failed first (its own error is on stderr above).
MergedReport launch_local(const LocalLaunch& launch);

// A TCP port free on 127.0.0.1 right now (the kernel's pick).
int free_local_port();

}  // namespace mimic::replay

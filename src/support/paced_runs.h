// Timed iterations run when another program says so. A benchmark alternates
// this process's iterations with the original workload's, block by block, so
// that both are timed in the same seconds: this machine's speed moves between
// two levels for seconds at a time (one replayed ddp_mlp rank, alone, took
// 31-32 ms per iteration for stretches and 49-54 ms for others), so two runs
// minutes apart compare the machine's phases as much as the programs.
//
// The protocol (bench/replay_paired.py drives it), one line each way per
// block, over two FIFOs the driver has created:
//   PREFIX.go.rankN    driver -> us: "run W T" (W untimed iterations, which
//                      warm the caches the other program used, then T timed
//                      ones), "ops" (one pass timing each top-level op) or
//                      "stop"
//   PREFIX.done.rankN  us -> driver: the T times in ms, separated by spaces;
//                      for "ops", "NODE_ID:US" per op, separated by spaces
// python/mimic_record/paced.py speaks it for the original workload.
#pragma once

#include <functional>
#include <string>
#include <vector>

namespace mimic {

// The FIFOs' paths for `rank`: {go, done}.
std::pair<std::string, std::string> paced_fifo_paths(const std::string& prefix, int rank);

// Serves blocks until "stop" or the driver closes its end; `iteration(timed)`
// runs one iteration and returns its time in ms. Returns every timed
// iteration's time in order. Throws mimic::Error naming the FIFO and the line
// when a FIFO cannot be opened or a command is malformed.
// `op_pass`, when given, answers "ops" with its reply line (without the
// newline); without it "ops" is a malformed command.
std::vector<double> run_paced(const std::string& prefix, int rank, const std::function<double(bool timed)>& iteration,
                              const std::function<std::string()>& op_pass = {});

}  // namespace mimic

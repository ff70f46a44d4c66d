// Times Gloo's collectives on this machine: one process per rank (started
// and supervised as `mimic replay --nproc` starts its ranks), a
// ProcessGroupGloo over a TCPStore on loopback, float32 buffers of each
// size. Per size: warmup calls, then timed calls, every one after a barrier
// so that the ranks start together, in rounds over all sizes. Each rank
// reads CLOCK_MONOTONIC (one clock for every process of the machine) when
// it issues a call and when the call completes; a call's time is from the
// last rank's issue to the last rank's completion (the collective's own
// time, without the barrier's skew), and a size's time the median over its
// calls (the mean is kept too).
//
// reduce_scatter: Gloo 1.13 has none, so it is timed as the replay runs it
// (collective_runner): an all_to_all of the input's pieces, the same bytes
// on the wire and no reduction. The timings say so (`emulation`).
//
// The sizes are what the simulator reads as comm_size: each rank's whole
// buffer for all_reduce, all_to_all and reduce_scatter, each rank's input
// for all_gather (which gathers `ranks` times as much).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

namespace mimic::replay {

// The collectives timed, by the names the timings carry.
extern const char* const kBenchCollectives[4];  // all_reduce, all_gather, all_to_all, reduce_scatter
// Whether `name` is one of them.
bool is_bench_collective(std::string_view name);

// "64 MiB", "4 KiB", "1000003 B": a message size as progress lines and tables print it.
std::string size_text(uint64_t bytes);

struct CollectiveBenchTiming {
    std::string collective;
    int ranks = 0;
    uint64_t bytes = 0;
    int calls = 0;  // timed calls, over every round
    double median_us = 0, p10_us = 0, p90_us = 0;  // last issue to last completion, over the calls
    double mean_us = 0;
    double rank0_median_us = 0;                     // rank 0's own issue to completion
    std::string emulation;                          // how Gloo ran it when not as itself
};

struct CollectiveBenchOptions {
    std::vector<int> ranks = {2, 4};
    uint64_t min_bytes = 1024;
    uint64_t max_bytes = 64ull << 20;
    bool quick = false;  // sizes 16x apart instead of 4x, fewer calls
    std::vector<std::string> collectives = {"all_reduce", "all_gather", "all_to_all", "reduce_scatter"};
    // The command one rank runs: a program and its arguments that end in
    // run_collective_bench_rank (mimic-torch's rank subcommand); the bench
    // appends the plan (collective_bench_rank_args) to it.
    std::vector<std::string> rank_command;
    int timeout_s = 120;  // a rank waiting longer for a peer fails, and the others are stopped
};

// The sizes timed, smallest first: min_bytes, then 4x (quick: 16x) larger
// up to max_bytes, which is always included.
std::vector<uint64_t> bench_sizes(const CollectiveBenchOptions& options);

// Every collective and size is timed once per round (3; quick: 1), so that
// the machine's slower and faster spells fall on all of them alike; per
// round, at a size, warmup then timed calls, more where calls are short.
int bench_rounds(bool quick);
struct CallCounts {
    int warmup = 0, timed = 0;
};
CallCounts bench_calls(uint64_t bytes, bool quick);

// Runs the ranks for each rank count in turn, on a fresh free port (retried
// when taken); returns the timings in the order run. Progress lines go to
// stderr (rank 0 writes one per size). Throws mimic::Error naming the rank
// that failed first.
std::vector<CollectiveBenchTiming> measure_collectives(const CollectiveBenchOptions& options);

// The arguments after rank_command that tell one rank what to time.
std::vector<std::string> collective_bench_rank_args(const CollectiveBenchOptions& options, const std::string& json_path);

// One rank, started by measure_collectives (RANK, WORLD_SIZE, MASTER_ADDR,
// MASTER_PORT in its environment): times the plan and writes its raw
// timestamps to `json_path`. Returns the process exit code (kExitPortBusy
// when rank 0 could not serve the store on the port).
struct CollectiveBenchRankArgs {
    std::vector<uint64_t> sizes;
    std::vector<std::string> collectives;
    bool quick = false;
    int timeout_s = 120;
    std::string json_path;
};
int run_collective_bench_rank(const CollectiveBenchRankArgs& args);

// The timings as JSON (an array of objects, one per collective, ranks and size).
std::string collective_timings_json(const std::vector<CollectiveBenchTiming>& timings, int indent = 2);

}  // namespace mimic::replay

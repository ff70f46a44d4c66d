// The JSON results other commands wrote (`replay --json`, `predict --json`,
// `simulate --json`), read for a report. A file that is missing a field the
// report draws is not fatal: the report says what it cannot show and why
// (`problem`) and draws the rest.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace mimic::report {

struct ReplayOp {
    std::string name;
    uint64_t count = 0;
    double replay_us = 0;
    double original_us = -1;  // profile time, -1 when the replay had none
    double error_pct = 0;
    bool has_error = false;
};

struct ReplaySkip {
    std::string name, reason;
    uint64_t count = 0;
};

struct ReplayResult {
    std::string path;
    std::string problem;      // why it is not shown ("" when it is)
    std::string trace;        // the trace the replay ran
    std::vector<double> iteration_ms;
    double median_ms = 0;
    double original_ms = -1;  // -1: no original time to compare with
    std::string original_source;
    bool times_comparable = true;
    uint64_t ops_total = 0, ops_replayed = 0;
    double per_op_error_geomean_pct = -1;
    std::string blas_original, blas_replay;
    std::vector<ReplayOp> per_op;
    std::vector<ReplaySkip> skipped;
    int64_t world_size = 1;   // a multi-rank replay's merged report
};

struct CriticalOp {
    uint64_t node_id = 0;
    std::string name, family;
    double op_us = 0, host_us = 0, share = 0;
};

struct PredictResult {
    std::string path;
    std::string problem;
    std::string trace;
    double iteration_ms = 0;
    double original_ms = -1;  // the original's untraced time when predict knew it
    std::vector<std::pair<std::string, double>> breakdown_ms;  // "compute", "host_overhead"...
    std::vector<std::pair<std::string, double>> compute_by_family_ms;
    std::vector<CriticalOp> critical_path;
};

struct SimRank {
    int64_t rank = 0;
    uint64_t finish_ns = 0, exposed_comm_ns = 0, gpu_compute_ns = 0, cpu_compute_ns = 0, comm_ns = 0, overlap_ns = 0;
};

struct SimulateResult {
    std::string path;
    std::string problem;
    uint64_t iteration_ns = 0;
    std::vector<SimRank> ranks;
};

// Each reader throws nothing: a file it cannot use comes back with `problem` set.
ReplayResult read_replay_result(const std::string& path);
PredictResult read_predict_result(const std::string& path);
SimulateResult read_simulate_result(const std::string& path);

}  // namespace mimic::report

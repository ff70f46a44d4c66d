// `mimic calibrate --collectives`: times Gloo's collectives on this machine
// (src/replay/collective_bench) and fits ASTRA-sim's network YAML and system
// JSON to them (src/sim/network_fit), so that `mimic simulate` with those
// files takes the measured time for each collective and size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/collectives_used.h"

namespace mimic::cli {

struct CollectiveCalibrationOptions {
    std::string out_dir;               // created if missing
    std::vector<int> ranks = {2, 4};   // one process per rank on this machine
    bool quick = false;                // sizes 16x apart and fewer calls (~30 s instead of ~2 min)
    uint64_t min_bytes = 1024;         // smallest size timed
    uint64_t max_bytes = 64ull << 20;  // largest size timed
    int timeout_s = 120;               // a rank waiting longer for a peer fails
    std::vector<std::string> collectives;  // those timed and fitted; empty: all four
    // Set by focus_on_collectives_used: the traces the fit follows, and what
    // it chose from them (printed, and kept in collectives.json).
    std::vector<std::string> traces;
    std::vector<std::string> focus;
};

// Narrows the measurement to the job the traces run: the collectives among
// them that calibrate can time, sizes from a quarter of the smallest call to
// 4x the largest (on the 1 KiB x 4^k grid; --max-bytes, when given, stays),
// and the traces' world size unless --ranks was given. Throws mimic::Error
// naming the traces when they run no collective it can time.
void focus_on_collectives_used(CollectiveCalibrationOptions& options, const analysis::CollectivesUsed& used,
                               const std::vector<std::string>& traces, bool ranks_given, bool max_bytes_given);

// Measures, fits and writes OUT/network_<N>ranks.yml and
// OUT/system_<N>ranks.json for each rank count N, and OUT/collectives.json
// (the machine, the measurements, the fitted parameters and every point's
// fit error); prints the table of measured against simulated times on
// stdout, progress on stderr. Returns the exit code; throws mimic::Error
// when a rank fails or the fit cannot be made. Built only into mimic-torch
// (`mimic` hands `calibrate` over to it).
int run_collective_calibration(const CollectiveCalibrationOptions& options);

// The hidden subcommand each rank of the measurement runs (mimic-torch only).
inline constexpr const char* kCollectiveRankCommand = "calibrate-collectives-rank";

}  // namespace mimic::cli

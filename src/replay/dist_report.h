// The merged report of a multi-rank replay, from the JSON report each rank
// wrote: iteration time against the original per rank, coverage, and per
// process group and collective the calls, message sizes per rank and their
// imbalance (max/mean), latency, algorithm and bus bandwidth.
#pragma once

#include <string>
#include <vector>

namespace mimic::replay {

struct RankReportFile {
    int rank = 0;
    std::string path;  // the rank's --json report
};

struct MergedReport {
    std::string json;  // {"world_size", "ranks": [each rank's report], "summary": {...}}
    std::string text;
};

// Throws mimic::Error naming the file when a rank's report is missing or malformed.
MergedReport merge_rank_reports(const std::vector<RankReportFile>& ranks);

}  // namespace mimic::replay

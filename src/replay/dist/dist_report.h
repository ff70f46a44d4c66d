// The merged report of a multi-rank replay, from the JSON report each rank
// wrote: iteration time against the original per rank, coverage, and per
// process group and collective the calls, message sizes per rank and their
// imbalance (max/mean), latency, algorithm and bus bandwidth.
#pragma once

#include <string>
#include <vector>

namespace mimic::replay {

struct RankReport {
    int rank = 0;
    std::string source;  // where it came from, for errors: a file, or "the rendezvous store"
    std::string json;    // the rank's report as `mimic replay --json` writes it
};

struct MergedReport {
    std::string json;  // {"world_size", "ranks": [each rank's report], "summary": {...}}
    std::string text;
};

// Throws mimic::Error naming the source when a rank's report is malformed.
MergedReport merge_rank_reports(const std::vector<RankReport>& ranks);

}  // namespace mimic::replay

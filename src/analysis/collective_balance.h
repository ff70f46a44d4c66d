// One collective on one process group across ranks: how far apart the ranks
// were in calls, bytes and time. Ranks that wait longest in a collective are
// the ones that arrived first: a slow rank elsewhere shows up as the others'
// long collective times, so the spread points at stragglers and at uneven
// sharding (all-to-all splits, embedding tables) that one rank's view hides.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/collectives.h"

namespace mimic::analysis {

struct CollectiveBalance {
    std::string pg_name, pg_desc, collective;
    size_t ranks = 0;
    uint64_t calls = 0;  // over all ranks
    uint64_t min_bytes = 0, max_bytes = 0;  // per rank, summed over its calls
    double min_us = 0, max_us = 0;          // per rank; 0 when untimed
    int64_t min_bytes_rank = -1, max_bytes_rank = -1;
    int64_t fastest_rank = -1, slowest_rank = -1;
    bool timed = false;  // some rank's calls carry a time
    // max / min per rank (1 when even); 0 when the smaller side is 0.
    double bytes_imbalance() const;
    double time_imbalance() const;
};

// Sorted by process group, then collective; one entry per (group, collective).
std::vector<CollectiveBalance> collective_balance(const std::vector<CollectiveStats>& per_rank);

}  // namespace mimic::analysis

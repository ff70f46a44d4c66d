// What `mimic generate` wrote, for people (a table) and scripts (--json):
// per kind of rank (a pipeline stage, a DLRM table count) the ranks, the
// nodes, and the bytes each rank communicates per group and collective
// kind (comm_size summed: an all-gather's is its shard), with the sums the
// formulas in generate_transformer.h and generate_dlrm.h give.
#pragma once

#include <string>

#include "compose/generate_files.h"
#include "compose/generate_workload.h"

namespace mimic::compose {

std::string generate_summary_json(const GenWorkload& w, const RankFilesStats& files, const std::string& prefix,
                                  const std::string& device);
std::string generate_summary_table(const GenWorkload& w, const RankFilesStats& files, const std::string& prefix);

// "0-7,16-23": ranks, ascending, as ranges.
std::string rank_ranges(const std::vector<int64_t>& ranks);

}  // namespace mimic::compose

#include "compose/generate_workload.h"

#include <map>

#include "compose/generate_dlrm.h"
#include "compose/generate_transformer.h"

namespace mimic::compose {

GenWorkload build_workload(const GenerateOptions& options, const ComputeCost& cost) {
    GenWorkload w{options, RankLayout(options), {}, {}};
    const int64_t ranks = options.ranks;
    w.program_of_rank.resize(static_cast<size_t>(ranks));
    if (options.transformer()) {
        w.programs = build_transformer_programs(w.options, w.layout, cost);
        for (int64_t r = 0; r < ranks; ++r) w.program_of_rank[static_cast<size_t>(r)] = static_cast<uint32_t>(w.layout.coords(r).stage);
        return w;
    }
    // DLRM: ranks differ only in how many tables they hold (at most two counts).
    std::map<int64_t, uint32_t> by_tables;
    for (int64_t r = 0; r < ranks; ++r) {
        const int64_t local = dlrm_local_tables(w.options, r);
        auto [it, added] = by_tables.emplace(local, static_cast<uint32_t>(w.programs.size()));
        if (added) w.programs.push_back(build_dlrm_program(w.options, w.layout, cost, local));
        w.program_of_rank[static_cast<size_t>(r)] = it->second;
    }
    return w;
}

}  // namespace mimic::compose

#include "compose/generate_workload.h"

#include <algorithm>
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
    // DLRM: ranks differ only in the sizes of the tables they hold (with
    // uniform tables, at most two counts), so one program per distinct set.
    std::map<std::vector<std::pair<int64_t, int64_t>>, uint32_t> by_tables;
    for (int64_t r = 0; r < ranks; ++r) {
        const std::vector<DlrmTable> tables = dlrm_rank_tables(w.options, r);
        std::vector<std::pair<int64_t, int64_t>> key;
        for (const DlrmTable& t : tables) key.emplace_back(t.rows, t.pooling);
        std::sort(key.begin(), key.end());
        auto [it, added] = by_tables.emplace(key, static_cast<uint32_t>(w.programs.size()));
        if (added) w.programs.push_back(build_dlrm_program(w.options, w.layout, cost, tables));
        w.program_of_rank[static_cast<size_t>(r)] = it->second;
    }
    return w;
}

}  // namespace mimic::compose

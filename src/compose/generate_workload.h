// A generated job: the resolved options, the rank layout, one program per
// kind of rank (a pipeline stage; for DLRM, a number of local tables) and
// which kind each rank is.
#pragma once

#include <cstdint>
#include <vector>

#include "compose/generate_cost.h"
#include "compose/generate_layout.h"
#include "compose/generate_options.h"
#include "compose/generate_program.h"

namespace mimic::compose {

struct GenWorkload {
    GenerateOptions options;
    RankLayout layout;
    std::vector<RankProgram> programs;
    std::vector<uint32_t> program_of_rank;
    const RankProgram& program(int64_t rank) const { return programs[program_of_rank[static_cast<size_t>(rank)]]; }
};

// `options` must have been through resolve_generate_options().
GenWorkload build_workload(const GenerateOptions& options, const ComputeCost& cost);

}  // namespace mimic::compose

// The page faults each replayed step is given fresh pages for (see
// fresh_page_allocator.h), from what the original's probe counted.
//
// Two targets, for the two things the replay is compared with:
// - profiled: each op's faults in the profiled iteration (op_faults.json),
//   whose durations the per-op pass is compared with;
// - untraced: each op's faults in the untraced calls where the recorder
//   counted them (op_gaps.json), else the profiled ones; either spread
//   scaled to the timed untraced iterations' rate (meta.json), which the
//   replay's iterations are compared with. The original's count moves from
//   call to call (cnn: 1,549 per timed iteration, 2,371 in the later calls
//   the probe timed; dlrm: 2,916 in the profiled iteration, 192 untraced).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "io/recording/op_faults.h"
#include "io/recording/op_gaps.h"

namespace mimic::replay {

struct FaultTargets {
    std::vector<int64_t> profiled;  // per step; -1: no target (a skipped step, an op the file does not name)
    std::vector<int64_t> untraced;
    std::vector<int64_t> untraced_calls;  // the untraced calls' counts, unscaled

    // The untraced calls' per-op counts differ from the profiled iteration's,
    // so their op times want a per-op pass of their own.
    bool untraced_calls_differ() const { return untraced_calls != profiled; }

    // Faults the timed iterations take beyond those the profiled
    // durations hold (negative: fewer).
    int64_t untraced_excess() const;
};

// `step_nodes`: each step's ET node id, -1 for a step that is not replayed.
FaultTargets fault_targets(const std::vector<int64_t>& step_nodes, const OpFaults& profiled, const OpGaps* untraced_calls,
                           std::optional<double> untraced_faults_per_iter);

}  // namespace mimic::replay

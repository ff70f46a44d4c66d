// The original's non-operator events around the replayed ops, as a sequence
// of opens, closes and op calls: record_function labels (ProfilerStep#N,
// Optimizer.step#SGD.step), the autograd engine's wrappers
// (autograd::engine::evaluate_function: MmBackward0, MmBackward0), and
// top-level ops the replay does not run.
//
// Why: tracing costs per event. Under PyTorch 1.13's execution-graph observer
// and profiler a training step ran 3-7x its untraced time, and a third to a
// half of its events are not operators. A replay that opens the same events
// around its ops, under the same instrumentation, pays what the original paid
// (recording_overhead.h); the ops' own nested events come with the ops.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace mimic::replay {

struct PlannedLabel {
    NodeIndex node;        // its node in the trace (name, scope, sequence number, inputs)
};

struct LabelAction {
    enum class Kind : uint8_t { Open, Close, Run };
    Kind kind = Kind::Run;
    uint32_t index = 0;  // Open: into LabelPlan::labels; Run: the step; Close: unused (the innermost open one)
};

struct LabelPlan {
    std::vector<PlannedLabel> labels;
    std::vector<LabelAction> actions;  // every Open has its Close; Runs in step order
};

// `range`: the selected iteration's nodes in execution order; `step_nodes`
// the replayed steps' nodes in order, `runs[k]` whether step k is run (a
// step the check dropped opens and closes as a label, as its event still
// happened in the original). Nodes below an operator are the operator's own
// and are left out: a replayed op makes them itself.
LabelPlan plan_labels(const Trace& trace, const std::vector<NodeIndex>& range, const std::vector<NodeIndex>& step_nodes,
                      const std::vector<bool>& runs);

// The nodes of the selected range, in execution order (first..last node id).
std::vector<NodeIndex> nodes_in_id_range(const Trace& trace, uint64_t first_id, uint64_t last_id);

}  // namespace mimic::replay

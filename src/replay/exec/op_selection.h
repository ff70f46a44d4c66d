// Chooses what a replay runs: the top-level operators (nodes with a schema
// none of whose ancestors has one) of one iteration, in execution order.
// Their children run inside them; labels, autograd wrappers, thread and root
// nodes are not operators. No torch here: this is a walk over the Trace.
#pragma once

#include <cstdint>
#include <optional>
#include <regex>
#include <string>
#include <vector>

#include "analysis/collective_schedule.h"
#include "io/recording/recording_dir.h"
#include "trace/trace.h"

namespace mimic::replay {

struct SelectionOptions {
    // "" = the first iteration label found (ProfilerStep#N), else the whole
    // trace; "all" = the whole trace; "N" = the label ProfilerStep#N, else
    // the N-th (0-based) iteration label.
    std::string iteration;
    std::optional<std::regex> include;  // op names to keep (search, not full match)
    std::optional<std::regex> exclude;  // op names to drop
    size_t max_ops = 0;                 // 0 = no limit (tests and quick looks)
    // A multi-rank replay: communication calls are selected too (c10d ops,
    // and gloo:*/nccl:* labels or record_param_comms standing alone).
    bool collectives = false;
    std::vector<PythonCollective> python_calls;  // meta.json's, to name groups and splits
};

// A top-level operator left out before replay, and why.
struct Excluded {
    NodeIndex node;
    std::string reason;
};

struct Selection {
    std::string iteration_label;        // "" when the whole trace is replayed
    uint64_t first_node_id = 0;         // the id range replayed, inclusive
    uint64_t last_node_id = UINT64_MAX;
    NodeIndex label_node = kNoNode;
    std::vector<NodeIndex> ops;         // to replay, in execution order
    // With SelectionOptions::collectives: the calls among `ops`, in order.
    std::vector<analysis::ScheduledCollective> collectives;
    std::vector<Excluded> excluded;     // top-level ops of the range not replayed
    uint64_t nodes_in_range = 0;        // every node of the range (instrumentation count)
};

// Throws mimic::Error when the requested iteration does not exist.
Selection select_ops(const Trace& trace, const SelectionOptions& options);

// Why an op must never be run by a replay ("" when it may): profiler
// bookkeeping, collectives with no process group (`collectives` false).
std::string never_replay_reason(std::string_view op_name, bool collectives = false);

}  // namespace mimic::replay

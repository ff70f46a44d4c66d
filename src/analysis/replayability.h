// How much of a trace a replay could run. A replayer calls operators through
// the dispatcher by schema, so a top-level operator is replayable when it has
// a schema and, where a runtime can be asked, that schema is registered with
// a kernel this machine can run. Nested ops are not counted: replaying the
// outer op runs them.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "analysis/categories.h"
#include "analysis/op_nesting.h"
#include "trace/trace.h"

namespace mimic::analysis {

// Answers whether a schema string (as the trace writes op_schema) names an
// operator registered with a CPU kernel. Analysis stays free of torch: the
// command line plugs in libtorch's dispatcher when it is built with it.
using SchemaOracle = std::function<bool(std::string_view op_schema)>;

struct ReplayCoverage {
    uint64_t total = 0;           // top-level operators
    uint64_t replayable = 0;
    uint64_t without_schema = 0;  // Triton kernels, record_param_comms, CompiledFunction...
    uint64_t not_registered = 0;  // schema the oracle does not know (0 when no oracle)
    // Collectives (c10d ops, record_param_comms, gloo:*/nccl:* standing alone):
    // counted replayable, as a multi-rank replay (--nproc) runs them over Gloo.
    uint64_t collectives = 0;
    bool kernels_checked = false; // an oracle was asked
    // The most frequent top-level operators that cannot be replayed, by name.
    std::vector<std::pair<std::string, uint64_t>> blockers;
    double share() const { return total == 0 ? 0.0 : double(replayable) / double(total); }
};

// `oracle` may be empty: then having a schema is enough.
ReplayCoverage replay_coverage(const Trace& trace, const std::vector<NodeClass>& classes,
                               const OpNesting& nesting, const SchemaOracle& oracle, size_t max_blockers = 10);

}  // namespace mimic::analysis

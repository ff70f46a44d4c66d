#include "analysis/collectives_used.h"

#include <algorithm>

#include "analysis/categories.h"
#include "analysis/collectives.h"
#include "analysis/node_times.h"
#include "analysis/op_nesting.h"

namespace mimic::analysis {

void add_collectives_used(CollectivesUsed& used, const Trace& trace) {
    const std::vector<NodeClass> classes = classify_nodes(trace);
    const OpNesting nesting = compute_op_nesting(trace, classes);
    const NodeTimes times(trace, time_source_of(trace));
    for (const CollectiveCall& call : find_collectives(trace, classes, nesting, times)) {
        CollectiveUse& use = used.by_collective[call.collective];
        ++use.calls;
        if (!call.bytes_known || call.bytes == 0) continue;
        use.min_bytes = use.sized_calls == 0 ? call.bytes : std::min(use.min_bytes, call.bytes);
        use.max_bytes = std::max(use.max_bytes, call.bytes);
        ++use.sized_calls;
    }
    used.world_size = std::max(used.world_size, trace.world_size);
    ++used.traces;
}

}  // namespace mimic::analysis

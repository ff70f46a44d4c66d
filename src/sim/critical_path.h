// The chain of nodes that set a rank's finish, read off a simulation's spans:
// from the node that ended last, back through whichever held it up, the
// dependency that ended as it started or, when none did, the node before it
// on the same resource (one CPU op, one GPU kernel, one collective at a time).
// A collective's span includes its wait for the other ranks, so a rank held
// up by a slower peer shows that collective on its path.
#pragma once

#include <cstdint>
#include <vector>

#include "sim/simulator.h"

namespace mimic::sim {

struct CriticalStep {
    uint32_t node;  // position in the rank's graph
    NodeClass kind;
    Tick start_ns, end_ns;
};

// In time order. `result` must hold spans (SimulationOptions::record_spans);
// `rank` a rank that was simulated. Empty when it ran nothing.
std::vector<CriticalStep> critical_path(const SimulationResult& result, const RankGraph& graph, int rank);

}  // namespace mimic::sim

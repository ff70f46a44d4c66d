// Custom collective implementations, as ASTRA-sim runs them: each NPU walks a
// Chakra graph of its own (PREFIX.<position in the group>.et, written by e.g.
// MSCCL-tools through Chakra's converter) whose sends, receives and
// reduction COMP nodes replace the native algorithm. The collective is one
// chunk over every dimension; the graph's message sizes are its own, not the
// workload's collective size.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "sim/phase_algorithm.h"
#include "sim/workload_graph.h"

namespace mimic::sim {

// The graphs of custom implementations, read once per file and shared by
// every collective that runs them.
class CustomGraphs {
public:
    // PREFIX.<position>.et; throws mimic::Error naming the file and node when
    // it is missing or holds a node other than COMM_SEND, COMM_RECV and COMP
    // (ASTRA-sim would start such a node and wait for it forever).
    SharedGraph get(const std::string& prefix, int position);

private:
    std::map<std::pair<std::string, int>, SharedGraph> graphs_;
};

// The phase that walks `graph`: nodes whose dependencies are met start in
// ascending id order; it is over when none runs and none is left. `members`
// maps the graph's ranks to NPUs (a communicator group's), null for the
// identity over `npus` NPUs. Message sizes are scaled by `comm_scale`
// (--comm-scale).
std::unique_ptr<PhaseAlgorithm> make_custom_phase(SharedGraph graph, std::shared_ptr<const std::vector<int>> members, int npus,
                                                  double comm_scale);

}  // namespace mimic::sim

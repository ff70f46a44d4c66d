// PyTorch execution traces (or mimic recordings, or Chakra files given one
// by one) as the simulator's rank graphs, converted in memory the way `mimic
// convert` writes Chakra: the same node cut, dependencies and communication
// facts, profiler durations where a profile is linked.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/system_config.h"
#include "sim/workload_graph.h"

namespace mimic::sim {

struct TraceWorkload {
    std::vector<RankGraph> graphs;                   // graphs[r] is rank r
    std::map<int, std::vector<int>> comm_groups;     // process groups other than the world's
    std::vector<std::string> notes;                  // what was inferred (ranks by position, missing durations)
    // Collectives whose tensors are on the CPU: Gloo's, which its process
    // group runs on worker threads, several at once (RunOptions::collectives_in_flight).
    size_t cpu_collectives = 0;
    // Ranks whose CPU ops take the profile's durations (simulate, not predict):
    // times under the profiler and observer, the recording's cost included.
    size_t ranks_with_traced_cpu_ops = 0;
    // rank -> node id -> the op's name, for predict's critical path (filled
    // only when a HostOpTime is given: thousands of simulated ranks need none).
    std::map<int64_t, std::unordered_map<uint64_t, std::string>> node_names;
};

// Expands the inputs as every mimic command does (files, a recording
// directory, a directory of ranks), links each rank's profile where there is
// one, and builds one graph per rank. Throws mimic::Error for ranks missing
// or given twice, naming them.
// What a host operator costs, in ns, when the caller knows better than the
// profile (mimic predict's cost model); 0 keeps the profile's duration.
using HostOpTime = std::function<uint64_t(const Trace& trace, uint32_t node)>;

// `profile`: a Kineto trace for the one trace given (recordings bring their own).
TraceWorkload read_trace_workload(const std::vector<std::string>& paths, const std::string& profile = "",
                                  const HostOpTime& host_op_time = nullptr);

// Collectives one rank runs at once for this workload when the user does
// not say (`given` > 0): Gloo's two worker threads (ProcessGroupGloo's
// default) where its collectives are on CPU tensors, else one, as ASTRA-sim
// runs them; a note says which was taken and why. Two need the system's
// FIFO scheduling: under LIFO a rank whose second collective was ready
// before its stream freed starts that one first, its peers the other, and
// neither finishes. A `given` count above one under LIFO gets a note saying so.
int collectives_in_flight_for(const TraceWorkload& workload, int given, const SystemConfig& system,
                              std::vector<std::string>& notes);

// A data-parallel trace recorded on one rank, run by `ranks` ranks: each gets
// the same graph, and every collective spans them all. Throws mimic::Error
// for point-to-point messages, which do not replicate.
std::vector<SharedGraph> replicate_ranks(const RankGraph& graph, int ranks, std::vector<std::string>& notes);

}  // namespace mimic::sim

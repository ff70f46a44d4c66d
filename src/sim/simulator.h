// mimic simulate's engine: every rank's workload and system layer over one
// network and one clock, with ASTRA-sim's semantics (see ../../docs and the
// comments of each part), and what it does differently where ASTRA-sim
// misbehaves, each said in a warning.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/network_config.h"
#include "sim/rank_workload.h"
#include "sim/system_config.h"
#include "sim/workload_graph.h"

namespace mimic::sim {

struct SimulationInput {
    std::vector<SharedGraph> graphs;  // graphs[r] is rank r's (ranks may share one)
    std::vector<std::string> files;   // rank r's file, for messages; graph->file where empty
    NetworkConfig network;
    SystemConfig system;
    RemoteMemoryConfig memory;
    RunOptions options;
    std::map<int, std::vector<int>> comm_groups;  // group id -> ranks, as listed
    std::string comm_groups_source;
};

struct Span {
    int rank;
    uint32_t node;  // position in the rank's graph
    NodeClass kind;
    Tick start_ns, end_ns;
};

struct SimulationResult {
    std::vector<RankResult> ranks;
    std::vector<std::string> warnings;
    std::vector<std::string> errors;  // a deadlock: which ranks wait on what
    uint64_t events = 0;
    Tick end_ns = 0;
    std::vector<Span> spans;  // with SimulationOptions::record_spans
    // Every rank ran the same graph on a symmetric network, so one rank was
    // simulated and stands for all (see Network::set_mirrored).
    bool simulated_once = false;
};

struct SimulationOptions {
    bool record_spans = false;
    // Simulate one rank for all when every rank is alike (exact; off to check that).
    bool use_symmetry = true;
    // Called every few seconds of wall time while running: simulated ns, events, ranks finished.
    std::function<void(Tick, uint64_t, size_t)> progress;
};

// Checks the inputs against each other (rank count against the network,
// implementations against its dimensions, communicator groups against the
// ranks), then runs. Throws mimic::Error for inputs that cannot run; a run
// that cannot finish (a receive without its send, ranks disagreeing on a
// collective) returns with `errors` naming each waiting rank and node.
SimulationResult simulate(const SimulationInput& input, const SimulationOptions& options = {});

// Why the ranks cannot be simulated as one (empty when they can): graphs
// that differ, point-to-point messages, communicator groups, remote memory,
// rank-dependent algorithms (halving-doubling, double binary tree) or links
// that contend (the congestion-aware model).
std::string symmetry_obstacle(const SimulationInput& input);

// Reads a communicator-group JSON: {"<id>": [ranks...], ...}.
std::map<int, std::vector<int>> read_comm_groups(const std::string& path);

}  // namespace mimic::sim

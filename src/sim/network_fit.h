// A network and system configuration fitted to measured collectives: the
// ASTRA-sim inputs (one-dimensional network YAML, system JSON) under which
// `mimic simulate` of one collective of each measured size takes the time
// it was measured to take (`mimic calibrate --collectives`).
//
// The candidates are evaluated by the simulator itself. For one topology,
// implementation, collective, rank count and size, a simulated collective
// costs t0 + cE * E + cL * L + cB * beta + cM * mu, with E the endpoint
// delay, L the link latency, beta ns per byte on a link (the bandwidth) and
// mu ns per byte of the memory bus (local-mem-bw, reductions): the analytical
// model is linear in them up to its truncations to whole ns. The
// coefficients are read off simulate() runs (one at zero, one per parameter),
// the parameters fitted by least squares of the log of simulated over
// measured time (relative error, small and large sizes weigh alike), and
// the fitted configuration is then written, read back and simulated once
// more per point: the errors reported are those of `mimic simulate` itself.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "sim/network_config.h"
#include "sim/system_config.h"

namespace mimic::sim {

// One collective measured on `ranks` ranks. `bytes` is the size the
// simulator reads as comm_size: each rank's buffer for all-reduce,
// reduce-scatter and all-to-all (the whole input), each rank's input for
// all-gather (its output is `ranks` times larger).
struct CollectiveMeasurement {
    CollectiveKind collective = CollectiveKind::AllReduce;
    int ranks = 2;
    uint64_t bytes = 0;
    double median_us = 0;
    double p10_us = 0, p90_us = 0;  // spread of the timed calls (0 when unknown)
};

// What a fit chooses: one network dimension of `topology`, and per
// collective ring or direct.
struct NetworkFitParams {
    TopologyKind topology = TopologyKind::Switch;
    double latency_ns = 0;
    double bandwidth_GBps = 0;     // 1 GB/s = 2^30 bytes per 1e9 ns, as ASTRA-sim counts
    double endpoint_delay_ns = 1;  // ASTRA-sim needs at least 1 (0 aborts it)
    double local_mem_bw_GBps = 0;  // 1 GB/s = 1e9 bytes/s here, as ASTRA-sim counts it
    AlgorithmKind implementation[kCollectiveKinds] = {AlgorithmKind::Ring, AlgorithmKind::Ring, AlgorithmKind::Ring,
                                                      AlgorithmKind::Ring};
};

// The files the parameters make (ranks NPUs in one dimension). `comment`
// goes into the YAML as comment lines (the JSON has no comments).
std::string fitted_network_yaml(const NetworkFitParams& params, int ranks, const std::string& comment = "");
std::string fitted_system_json(const NetworkFitParams& params);

// simulate() of one collective of `bytes` on `ranks` ranks under `network`
// and `system` (every rank issues it at time 0): rank 0's finish time in ns.
double simulate_one_collective_ns(const NetworkConfig& network, const SystemConfig& system, CollectiveKind kind,
                                  uint64_t bytes);

struct FitPoint {
    CollectiveMeasurement measured;
    double simulated_us = 0;  // mimic simulate with the written files
    double error_pct = 0;     // (simulated - measured) / measured * 100
};

struct NetworkFit {
    std::vector<int> ranks;  // the rank counts fitted (one set of parameters for all)
    NetworkFitParams params;
    std::vector<FitPoint> points;  // in the order measured
    double mean_abs_error_pct = 0;
    double max_abs_error_pct = 0;
    std::vector<std::string> notes;  // what the fit chose and why, one line each
    // The mean |error| of the points of `ranks` ranks alone.
    double mean_abs_error_pct_of(int ranks) const;
};

struct NetworkFitOptions {
    // A Ring topology (direct collectives pay the hops around it) replaces
    // the Switch only when its least-squares objective is lower by this
    // factor: for the analytical model a FullyConnected network is a Switch
    // with half the latency, and on 2 NPUs a Ring is one too.
    double prefer_switch_factor = 0.95;
    // Nelder-Mead starts per candidate (topology x implementations).
    int starts = 12;
    // What is minimised over the points: the sum of squared log errors
    // (least squares on relative error), or of their absolute values (a
    // point the model cannot follow pulls less, so the fit may give up a
    // whole collective for the others: on this machine's 4 ranks, all_reduce).
    enum class Loss { LeastSquares, LeastAbsolute };
    Loss loss = Loss::LeastSquares;
};

// Fits one set of parameters to the measurements of the rank counts in
// `ranks` (others are ignored). The points are then simulated from the
// files fitted_network_yaml / fitted_system_json write, read back as
// `mimic simulate` reads them. Throws mimic::Error when there are no
// measurements of those ranks, or one has a time that is not positive.
NetworkFit fit_network(const std::vector<CollectiveMeasurement>& measurements, const std::vector<int>& ranks,
                       const NetworkFitOptions& options = {});

// Simulates every measurement of `ranks` ranks from the files the parameters make.
NetworkFit evaluate_network(const NetworkFitParams& params, const std::vector<CollectiveMeasurement>& measurements,
                            const std::vector<int>& ranks);

// The collective named as collective_name() names it ("all_reduce"...); false for another name.
bool parse_collective_kind(const std::string& name, CollectiveKind& kind);

}  // namespace mimic::sim

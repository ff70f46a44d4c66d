#include "sim/network_fit.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <memory>
#include <random>

#include "sim/simulator.h"
#include "sim/workload_graph.h"
#include "support/error.h"
#include "support/json_writer.h"

namespace mimic::sim {
namespace {

// The fitted parameters, in the units the simulator adds them in:
// endpoint delay (ns), link latency (ns), ns per byte on a link, ns per byte
// of a reduction pass (local-mem-bw).
constexpr int kParams = 4;
using Theta = std::array<double, kParams>;
constexpr const char* kParamNames[kParams] = {"the endpoint delay", "the latency", "the link time per byte",
                                              "the reduction time per byte (local-mem-bw)"};
// Where each may go (ns, ns, ns/B, ns/B): from next to nothing to absurd.
constexpr Theta kLow = {1e-3, 1e-3, 1e-7, 1e-8};
constexpr Theta kHigh = {1e9, 1e9, 1e3, 1e3};

constexpr double kTwo30 = 1073741824.0;
double gbps_of_ns_per_byte(double beta) { return 1e9 / (kTwo30 * beta); }

ChakraCollective chakra_of(CollectiveKind kind) {
    switch (kind) {
        case CollectiveKind::AllReduce: return ChakraCollective::AllReduce;
        case CollectiveKind::ReduceScatter: return ChakraCollective::ReduceScatter;
        case CollectiveKind::AllGather: return ChakraCollective::AllGather;
        case CollectiveKind::AllToAll: return ChakraCollective::AllToAll;
    }
    return ChakraCollective::None;
}

NetworkConfig make_network(TopologyKind topology, int ranks, double latency_ns, double gbps) {
    NetworkConfig n;
    n.source = "fitted network";
    n.dims.push_back(NetworkDimension{topology, ranks, gbps, latency_ns});
    return n;
}

SystemConfig make_system(const AlgorithmKind (&impl)[kCollectiveKinds], double endpoint_ns, double mem_gbps) {
    SystemConfig s;
    s.source = "fitted system";
    s.scheduling = SchedulingPolicy::Lifo;
    s.local_bw_aware = true;
    s.active_chunks_per_dimension = 1;
    s.preferred_dataset_splits = 1;
    s.endpoint_delay = endpoint_ns;
    s.local_mem_bw_GBps = mem_gbps;
    for (int c = 0; c < kCollectiveKinds; ++c) s.implementations[c] = {CollectiveImpl{impl[c], -1}};
    return s;
}

// A simulated collective as a linear function of Theta: t0 + c . theta.
struct Linear {
    double t0 = 0;
    Theta c{};
    double at(const Theta& theta) const {
        double t = t0;
        for (int k = 0; k < kParams; ++k) t += c[static_cast<size_t>(k)] * theta[static_cast<size_t>(k)];
        return t;
    }
};

// Reads the coefficients off simulate(): once with every parameter at zero
// (a bandwidth too large to cost anything, reductions free), then once per
// parameter at a value large enough that truncation to ns does not matter.
Linear probe(TopologyKind topology, AlgorithmKind impl, CollectiveKind kind, int ranks, uint64_t bytes) {
    AlgorithmKind impls[kCollectiveKinds];
    for (auto& i : impls) i = impl;
    constexpr double kHuge = 1e15;  // GB/s: ~1e15 bytes per ns
    constexpr double kProbe = 1e3;  // ns, or ns per byte
    auto run = [&](double e, double l, double beta, double mu) {
        const double gbps = beta > 0 ? gbps_of_ns_per_byte(beta) : kHuge;
        const double mem = mu > 0 ? 1.0 / mu : 0;  // 0: reductions free
        return simulate_one_collective_ns(make_network(topology, ranks, l, gbps), make_system(impls, e, mem), kind, bytes);
    };
    Linear f;
    f.t0 = run(0, 0, 0, 0);
    f.c[0] = (run(kProbe, 0, 0, 0) - f.t0) / kProbe;
    f.c[1] = (run(0, kProbe, 0, 0) - f.t0) / kProbe;
    f.c[2] = (run(0, 0, kProbe, 0) - f.t0) / kProbe;
    f.c[3] = (run(0, 0, 0, kProbe) - f.t0) / kProbe;
    return f;
}

// Nelder-Mead over u = log(theta), each coordinate kept within its bounds.
template <typename F>
std::pair<Theta, double> nelder_mead(const F& f, Theta x0, double step, int max_evals) {
    const double lo[kParams] = {std::log(kLow[0]), std::log(kLow[1]), std::log(kLow[2]), std::log(kLow[3])};
    const double hi[kParams] = {std::log(kHigh[0]), std::log(kHigh[1]), std::log(kHigh[2]), std::log(kHigh[3])};
    auto clamp = [&](Theta x) {
        for (size_t k = 0; k < kParams; ++k) x[k] = std::clamp(x[k], lo[k], hi[k]);
        return x;
    };
    std::array<Theta, kParams + 1> s;
    std::array<double, kParams + 1> v;
    s[0] = clamp(x0);
    for (size_t k = 0; k < kParams; ++k) {
        s[k + 1] = s[0];
        s[k + 1][k] += (s[0][k] + step > hi[k]) ? -step : step;
    }
    int evals = 0;
    auto eval = [&](const Theta& x) {
        ++evals;
        return f(x);
    };
    for (size_t i = 0; i <= kParams; ++i) v[i] = eval(s[i]);
    while (evals < max_evals) {
        std::array<size_t, kParams + 1> order;
        for (size_t i = 0; i <= kParams; ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return v[a] < v[b]; });
        const size_t best = order[0], worst = order[kParams], second = order[kParams - 1];
        if (std::fabs(v[worst] - v[best]) <= 1e-13 * (1 + std::fabs(v[best]))) {
            double spread = 0;
            for (size_t k = 0; k < kParams; ++k) spread = std::max(spread, std::fabs(s[worst][k] - s[best][k]));
            if (spread < 1e-9) break;
        }
        Theta centroid{};
        for (size_t i = 0; i <= kParams; ++i)
            if (i != worst)
                for (size_t k = 0; k < kParams; ++k) centroid[k] += s[i][k] / kParams;
        auto along = [&](double t) {
            Theta x;
            for (size_t k = 0; k < kParams; ++k) x[k] = centroid[k] + t * (s[worst][k] - centroid[k]);
            return clamp(x);
        };
        const Theta xr = along(-1);
        const double fr = eval(xr);
        if (fr < v[best]) {
            const Theta xe = along(-2);
            const double fe = eval(xe);
            if (fe < fr) s[worst] = xe, v[worst] = fe;
            else s[worst] = xr, v[worst] = fr;
        } else if (fr < v[second]) {
            s[worst] = xr, v[worst] = fr;
        } else {
            const bool outside = fr < v[worst];
            const Theta xc = along(outside ? -0.5 : 0.5);
            const double fc = eval(xc);
            if (fc < (outside ? fr : v[worst])) {
                s[worst] = xc, v[worst] = fc;
            } else {
                for (size_t i = 0; i <= kParams; ++i) {
                    if (i == best) continue;
                    for (size_t k = 0; k < kParams; ++k) s[i][k] = s[best][k] + 0.5 * (s[i][k] - s[best][k]);
                    v[i] = eval(s[i]);
                }
            }
        }
    }
    size_t best = 0;
    for (size_t i = 1; i <= kParams; ++i)
        if (v[i] < v[best]) best = i;
    return {s[best], v[best]};
}

// The measurements being fitted, with their coefficients under each
// candidate topology and implementation.
struct FitData {
    std::vector<CollectiveMeasurement> points;
    std::vector<double> log_measured;  // log ns
};

using Loss = NetworkFitOptions::Loss;

// Gloo's own algorithm first: it is kept when the two fit alike (on 2 NPUs
// ring and direct are the same). Gloo's all_reduce and all_gather pass
// around a ring; its all_to_all (and reduce_scatter, emulated as one) sends
// to every peer at once.
std::array<AlgorithmKind, 2> implementations_for(CollectiveKind kind) {
    if (kind == CollectiveKind::AllToAll || kind == CollectiveKind::ReduceScatter)
        return {AlgorithmKind::Direct, AlgorithmKind::Ring};
    return {AlgorithmKind::Ring, AlgorithmKind::Direct};
}

struct Candidate {
    TopologyKind topology = TopologyKind::Switch;
    int choice[kCollectiveKinds] = {0, 0, 0, 0};  // index into implementations_for
    Theta theta{};
    double objective = 0;
};

std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), f, v);
    return buf;
}

}  // namespace

bool parse_collective_kind(const std::string& name, CollectiveKind& kind) {
    for (int c = 0; c < kCollectiveKinds; ++c)
        if (name == collective_name(static_cast<CollectiveKind>(c))) {
            kind = static_cast<CollectiveKind>(c);
            return true;
        }
    return false;
}

double simulate_one_collective_ns(const NetworkConfig& network, const SystemConfig& system, CollectiveKind kind,
                                  uint64_t bytes) {
    RankGraphBuilder builder("calibration", 0);
    WorkloadNode node;
    node.id = 0;
    node.type = ChakraNodeType::CommColl;
    node.comm_type = chakra_of(kind);
    node.comm_size = bytes;
    builder.add(node, {});
    auto graph = std::make_shared<const RankGraph>(builder.finish());
    SimulationInput in;
    const int ranks = network.total_npus();
    in.graphs.assign(static_cast<size_t>(ranks), graph);
    in.files.assign(static_cast<size_t>(ranks), "calibration");
    in.network = network;
    in.system = system;
    const SimulationResult r = simulate(in);
    if (!r.errors.empty()) fail({}, "simulating one " + std::string(collective_name(kind)) + " failed: " + r.errors.front());
    Tick end = 0;
    for (const RankResult& rank : r.ranks) end = std::max(end, rank.finish_ns);
    return static_cast<double>(end);
}

std::string fitted_network_yaml(const NetworkFitParams& p, int ranks, const std::string& comment) {
    std::string out;
    size_t at = 0;
    while (at < comment.size()) {
        size_t end = comment.find('\n', at);
        if (end == std::string::npos) end = comment.size();
        out += "# " + comment.substr(at, end - at) + "\n";
        at = end + 1;
    }
    out += std::string("topology: [ ") + topology_name(p.topology) + " ]\n";
    out += "npus_count: [ " + std::to_string(ranks) + " ]\n";
    out += "bandwidth: [ " + fmt("%.9g", p.bandwidth_GBps) + " ]  # GB/s, 1 GB/s = 2^30 B/s\n";
    out += "latency: [ " + fmt("%.9g", p.latency_ns) + " ]  # ns\n";
    return out;
}

std::string fitted_system_json(const NetworkFitParams& p) {
    JsonWriter w;
    w.begin_object();
    // Gloo's process group runs collectives on two worker threads, taking
    // them in the order queued: two streams at once, first come first served
    // (with mimic's collectives_in_flight 2; one collective alone, as
    // calibrate times them, runs the same under either setting).
    w.field("scheduling-policy", "FIFO");
    w.field("collective-optimization", "localBWAware");
    w.field("endpoint-delay", static_cast<long long>(std::llround(std::max(1.0, p.endpoint_delay_ns))));
    w.field("active-chunks-per-dimension", 2);
    w.field("preferred-dataset-splits", 1);
    for (int c = 0; c < kCollectiveKinds; ++c) {
        w.key(implementation_key(static_cast<CollectiveKind>(c))).begin_array();
        w.value(algorithm_name(p.implementation[c]));
        w.end_array();
    }
    w.field("local-mem-bw", p.local_mem_bw_GBps);
    w.end_object();
    return w.str() + "\n";
}

double NetworkFit::mean_abs_error_pct_of(int r) const {
    double sum = 0;
    size_t n = 0;
    for (const FitPoint& p : points)
        if (p.measured.ranks == r) sum += std::fabs(p.error_pct), ++n;
    return n ? sum / static_cast<double>(n) : 0;
}

NetworkFit evaluate_network(const NetworkFitParams& params, const std::vector<CollectiveMeasurement>& measurements,
                            const std::vector<int>& ranks) {
    NetworkFit fit;
    fit.ranks = ranks;
    fit.params = params;
    const std::string sys_text = fitted_system_json(params);
    std::vector<std::string> warnings;
    const SystemConfig system = parse_system_config(sys_text, "fitted system", warnings);
    double sum = 0;
    for (int n : ranks) {
        const NetworkConfig network = parse_network_config(fitted_network_yaml(params, n), "fitted network", warnings);
        for (const CollectiveMeasurement& m : measurements) {
            if (m.ranks != n) continue;
            FitPoint p;
            p.measured = m;
            p.simulated_us = simulate_one_collective_ns(network, system, m.collective, m.bytes) / 1e3;
            p.error_pct = (p.simulated_us - m.median_us) / m.median_us * 100;
            sum += std::fabs(p.error_pct);
            fit.max_abs_error_pct = std::max(fit.max_abs_error_pct, std::fabs(p.error_pct));
            fit.points.push_back(p);
        }
    }
    if (!fit.points.empty()) fit.mean_abs_error_pct = sum / static_cast<double>(fit.points.size());
    return fit;
}

NetworkFit fit_network(const std::vector<CollectiveMeasurement>& measurements, const std::vector<int>& ranks,
                       const NetworkFitOptions& options) {
    FitData data;
    bool present[kCollectiveKinds] = {false, false, false, false};
    int max_ranks = 0;
    for (const CollectiveMeasurement& m : measurements) {
        if (std::find(ranks.begin(), ranks.end(), m.ranks) == ranks.end()) continue;
        if (!(m.median_us > 0) || !std::isfinite(m.median_us))
            fail({"", -1, -1, "median_us"}, std::string(collective_name(m.collective)) + " of " + std::to_string(m.bytes) +
                                                " B on " + std::to_string(m.ranks) + " ranks has a time that is not positive");
        if (m.ranks < 2) fail({"", -1, -1, "ranks"}, "a collective needs 2 ranks or more to be fitted");
        data.points.push_back(m);
        data.log_measured.push_back(std::log(m.median_us * 1e3));
        present[static_cast<int>(m.collective)] = true;
        max_ranks = std::max(max_ranks, m.ranks);
    }
    if (data.points.empty()) fail({"", -1, -1, "ranks"}, "no measurements of the rank counts to fit");

    // A FullyConnected network is a Switch with half the latency, and on 2
    // NPUs a Ring is one too: the Switch, and a Ring once hops differ.
    std::vector<TopologyKind> topologies = {TopologyKind::Switch};
    if (max_ranks > 2) topologies.push_back(TopologyKind::Ring);

    // Coefficients: [topology][collective][implementation choice][point].
    std::vector<std::array<std::array<std::vector<Linear>, 2>, kCollectiveKinds>> coeffs(topologies.size());
    for (size_t t = 0; t < topologies.size(); ++t)
        for (const CollectiveMeasurement& m : data.points) {
            const auto impls = implementations_for(m.collective);
            for (size_t i = 0; i < 2; ++i)
                coeffs[t][static_cast<size_t>(m.collective)][i].push_back(
                    probe(topologies[t], impls[i], m.collective, m.ranks, m.bytes));
        }

    // Starting points from the data: the smallest time shared out between
    // the constant terms, the largest time per byte between the byte terms.
    double t_min = 1e300, ns_per_byte = 0;
    for (size_t i = 0; i < data.points.size(); ++i) {
        const double t = std::exp(data.log_measured[i]);
        t_min = std::min(t_min, t);
        ns_per_byte = std::max(ns_per_byte, t / static_cast<double>(std::max<uint64_t>(data.points[i].bytes, 1)));
    }
    const Theta guess = {t_min / 6, t_min / 6, ns_per_byte / 3, ns_per_byte / 10};
    std::vector<Theta> starts;
    std::mt19937 rng(20240521u);
    std::uniform_real_distribution<double> jitter(-2.5, 2.5);
    for (int s = 0; s < std::max(1, options.starts); ++s) {
        Theta u;
        for (size_t k = 0; k < kParams; ++k) {
            u[k] = std::log(std::clamp(guess[k], kLow[k], kHigh[k]));
            if (s > 0) u[k] += jitter(rng);
        }
        starts.push_back(u);
    }

    int kinds[kCollectiveKinds];
    int kind_count = 0;
    for (int c = 0; c < kCollectiveKinds; ++c)
        if (present[c]) kinds[kind_count++] = c;

    // The best candidate under one loss, and each topology's objective.
    auto search = [&](Loss loss, std::string& alternatives) {
        Candidate best;
        bool have_best = false;
        for (size_t t = 0; t < topologies.size(); ++t) {
            Candidate topo_best;
            bool topo_have = false;
            for (int mask = 0; mask < (1 << kind_count); ++mask) {
                Candidate cand;
                cand.topology = topologies[t];
                for (int j = 0; j < kind_count; ++j) cand.choice[kinds[j]] = (mask >> j) & 1;
                // The points' functions under this choice, in point order.
                std::vector<const Linear*> funcs;
                std::array<size_t, kCollectiveKinds> next{};
                for (const CollectiveMeasurement& m : data.points) {
                    const size_t c = static_cast<size_t>(m.collective);
                    funcs.push_back(&coeffs[t][c][static_cast<size_t>(cand.choice[c])][next[c]++]);
                }
                auto objective = [&](const Theta& u) {
                    Theta theta;
                    for (size_t k = 0; k < kParams; ++k) theta[k] = std::exp(u[k]);
                    double sum = 0;
                    for (size_t i = 0; i < funcs.size(); ++i) {
                        const double t_ns = funcs[i]->at(theta);
                        if (!(t_ns > 0)) return 1e300;
                        const double r = std::log(t_ns) - data.log_measured[i];
                        sum += loss == Loss::LeastSquares ? r * r : std::fabs(r);
                    }
                    return sum;
                };
                double best_v = 1e300;
                Theta best_u{};
                for (const Theta& u0 : starts) {
                    auto [u, v] = nelder_mead(objective, u0, 1.0, 1500);
                    for (double step : {0.5, 0.1}) {  // restarts shake a collapsed simplex loose
                        auto [u2, v2] = nelder_mead(objective, u, step, 800);
                        if (v2 <= v) u = u2, v = v2;
                    }
                    if (v < best_v) best_v = v, best_u = u;
                }
                for (size_t k = 0; k < kParams; ++k) cand.theta[k] = std::exp(best_u[k]);
                cand.objective = best_v;
                // Ties keep the earlier choice (Gloo's own algorithms come first).
                if (!topo_have || cand.objective < topo_best.objective * (1 - 1e-9) - 1e-15) topo_best = cand, topo_have = true;
            }
            alternatives += std::string(alternatives.empty() ? "" : ", ") + topology_name(topologies[t]) + " " +
                            fmt("%.4g", topo_best.objective);
            if (!have_best || topo_best.objective < best.objective * options.prefer_switch_factor) {
                best = topo_best;
                have_best = true;
            }
        }
        return best;
    };
    auto params_of = [&](const Candidate& best) {
        NetworkFitParams p;
        p.topology = best.topology;
        p.endpoint_delay_ns = std::max(1.0, std::round(best.theta[0]));
        p.latency_ns = best.theta[1];
        p.bandwidth_GBps = gbps_of_ns_per_byte(best.theta[2]);
        p.local_mem_bw_GBps = 1.0 / best.theta[3];
        for (int c = 0; c < kCollectiveKinds; ++c)
            p.implementation[c] = implementations_for(static_cast<CollectiveKind>(c))[static_cast<size_t>(best.choice[c])];
        return p;
    };

    std::string alternatives;
    const Candidate chosen = search(options.loss, alternatives);
    NetworkFit fit = evaluate_network(params_of(chosen), data.points, ranks);
    fit.notes.push_back(std::string("fitted by ") +
                        (options.loss == Loss::LeastSquares ? "least squares" : "least absolute values") +
                        " of log(simulated / measured); objective by topology: " + alternatives);
    const NetworkFitParams& p = fit.params;
    fit.notes.push_back("topology " + std::string(topology_name(p.topology)));
    for (int c = 0; c < kCollectiveKinds; ++c)
        if (present[c])
            fit.notes.push_back(std::string(collective_name(static_cast<CollectiveKind>(c))) + ": " +
                                algorithm_name(p.implementation[c]));
    for (size_t k = 0; k < kParams; ++k)
        if (chosen.theta[k] <= kLow[k] * 1.01)
            fit.notes.push_back(std::string(kParamNames[k]) + " went to its lower bound: the measurements show none");
    // The linear model the search used, against simulate() on the written files.
    const size_t t = static_cast<size_t>(std::find(topologies.begin(), topologies.end(), p.topology) - topologies.begin());
    const Theta written = {p.endpoint_delay_ns, p.latency_ns, 1e9 / (kTwo30 * p.bandwidth_GBps), 1.0 / p.local_mem_bw_GBps};
    std::array<size_t, kCollectiveKinds> next{};
    double worst = 0;
    for (const FitPoint& point : fit.points) {
        const size_t c = static_cast<size_t>(point.measured.collective);
        const double linear = coeffs[t][c][static_cast<size_t>(chosen.choice[c])][next[c]++].at(written);
        worst = std::max(worst, std::fabs(linear / (point.simulated_us * 1e3) - 1));
    }
    fit.notes.push_back("the search's linear model of simulate() was within " + fmt("%.3g", worst * 100) +
                        "% of it at every point");
    return fit;
}

}  // namespace mimic::sim

// The network fit of `mimic calibrate --collectives`: measurements that the
// simulator itself made from known parameters are fitted back to those
// parameters, and the written files are what `mimic simulate` reads.
#include <gtest/gtest.h>

#include <cmath>
#include <vector>

#include "sim/network_fit.h"
#include "support/error.h"

namespace mimic::sim {
namespace {

std::vector<uint64_t> sizes() {
    std::vector<uint64_t> out;
    for (uint64_t b = 1024; b <= (64u << 20); b *= 4) out.push_back(b);
    return out;
}

// What simulate() says each collective of each size takes under `p`.
std::vector<CollectiveMeasurement> synthetic(const NetworkFitParams& p, int ranks, double noise = 0) {
    std::vector<std::string> w;
    const NetworkConfig net = parse_network_config(fitted_network_yaml(p, ranks), "net", w);
    const SystemConfig sys = parse_system_config(fitted_system_json(p), "sys", w);
    std::vector<CollectiveMeasurement> out;
    int i = 0;
    for (CollectiveKind k : {CollectiveKind::AllReduce, CollectiveKind::AllGather, CollectiveKind::AllToAll,
                             CollectiveKind::ReduceScatter})
        for (uint64_t b : sizes()) {
            CollectiveMeasurement m;
            m.collective = k;
            m.ranks = ranks;
            m.bytes = b;
            // A fixed pattern of +-noise, so the test is the same every run.
            const double wobble = noise * ((i++ % 3) - 1);
            m.median_us = simulate_one_collective_ns(net, sys, k, b) / 1e3 * (1 + wobble);
            out.push_back(m);
        }
    return out;
}

NetworkFitParams known(TopologyKind topology) {
    NetworkFitParams p;
    p.topology = topology;
    p.latency_ns = 9000;
    p.bandwidth_GBps = 1.6;
    p.endpoint_delay_ns = 4000;
    p.local_mem_bw_GBps = 3.5;
    p.implementation[static_cast<int>(CollectiveKind::AllReduce)] = AlgorithmKind::Ring;
    p.implementation[static_cast<int>(CollectiveKind::AllGather)] = AlgorithmKind::Ring;
    p.implementation[static_cast<int>(CollectiveKind::AllToAll)] = AlgorithmKind::Direct;
    p.implementation[static_cast<int>(CollectiveKind::ReduceScatter)] = AlgorithmKind::Direct;
    return p;
}

void expect_near_pct(double got, double want, double pct, const char* what) {
    EXPECT_LT(std::fabs(got - want) / want * 100, pct) << what << ": fitted " << got << ", true " << want;
}

void expect_recovered(const NetworkFit& fit, const NetworkFitParams& truth, int ranks) {
    expect_near_pct(fit.params.latency_ns, truth.latency_ns, 3, "latency");
    expect_near_pct(fit.params.bandwidth_GBps, truth.bandwidth_GBps, 3, "bandwidth");
    expect_near_pct(fit.params.endpoint_delay_ns, truth.endpoint_delay_ns, 3, "endpoint delay");
    expect_near_pct(fit.params.local_mem_bw_GBps, truth.local_mem_bw_GBps, 3, "local-mem-bw");
    EXPECT_EQ(fit.params.topology, truth.topology);
    // On 2 NPUs ring and direct cost the same for some collectives: compare them only on 4.
    if (ranks > 2) {
        for (int c = 0; c < kCollectiveKinds; ++c) EXPECT_EQ(fit.params.implementation[c], truth.implementation[c]) << c;
    }
    EXPECT_LT(fit.max_abs_error_pct, 0.5);
}

TEST(NetworkFit, RecoversTheParametersThatMadeTheMeasurementsOn2Ranks) {
    const NetworkFitParams truth = known(TopologyKind::Switch);
    const NetworkFit fit = fit_network(synthetic(truth, 2), {2});
    expect_recovered(fit, truth, 2);
    EXPECT_EQ(fit.points.size(), 4 * sizes().size());
}

TEST(NetworkFit, RecoversTheParametersThatMadeTheMeasurementsOn4Ranks) {
    const NetworkFitParams truth = known(TopologyKind::Switch);
    expect_recovered(fit_network(synthetic(truth, 4), {4}), truth, 4);
}

TEST(NetworkFit, TellsARingFromASwitchOn4Ranks) {
    const NetworkFitParams truth = known(TopologyKind::Ring);
    expect_recovered(fit_network(synthetic(truth, 4), {4}), truth, 4);
}

TEST(NetworkFit, OneSetForTwoRankCounts) {
    const NetworkFitParams truth = known(TopologyKind::Switch);
    std::vector<CollectiveMeasurement> both = synthetic(truth, 2);
    for (const auto& m : synthetic(truth, 4)) both.push_back(m);
    const NetworkFit fit = fit_network(both, {2, 4});
    expect_recovered(fit, truth, 4);
    EXPECT_EQ(fit.points.size(), 8 * sizes().size());
    EXPECT_LT(fit.mean_abs_error_pct_of(2), 0.5);
    EXPECT_LT(fit.mean_abs_error_pct_of(4), 0.5);
}

// Measurements 3% off either way: the fit still lands near the truth, and
// its errors are about the noise.
TEST(NetworkFit, NoisyMeasurementsStayNearTheTruth) {
    const NetworkFitParams truth = known(TopologyKind::Switch);
    const NetworkFit fit = fit_network(synthetic(truth, 4, 0.03), {4});
    expect_near_pct(fit.params.bandwidth_GBps, truth.bandwidth_GBps, 6, "bandwidth");
    expect_near_pct(fit.params.latency_ns + fit.params.endpoint_delay_ns, truth.latency_ns + truth.endpoint_delay_ns, 10,
                    "latency + endpoint delay");
    EXPECT_LT(fit.max_abs_error_pct, 6.0);
}

TEST(NetworkFit, LeastAbsoluteValuesRecoverThemToo) {
    const NetworkFitParams truth = known(TopologyKind::Switch);
    NetworkFitOptions options;
    options.loss = NetworkFitOptions::Loss::LeastAbsolute;
    expect_recovered(fit_network(synthetic(truth, 4), {4}, options), truth, 4);
}

TEST(NetworkFit, WrittenFilesAreWhatSimulateReads) {
    NetworkFitParams p = known(TopologyKind::Switch);
    p.latency_ns = 1234.5;
    const std::string yaml = fitted_network_yaml(p, 4, "measured here\nsecond line");
    EXPECT_EQ(yaml.rfind("# measured here\n# second line\n", 0), 0u) << yaml;
    std::vector<std::string> warnings;
    const NetworkConfig net = parse_network_config(yaml, "net", warnings);
    const SystemConfig sys = parse_system_config(fitted_system_json(p), "sys", warnings);
    EXPECT_TRUE(warnings.empty()) << warnings.front();
    ASSERT_EQ(net.dims.size(), 1u);
    EXPECT_EQ(net.dims[0].npus, 4);
    EXPECT_DOUBLE_EQ(net.dims[0].latency_ns, 1234.5);
    EXPECT_DOUBLE_EQ(net.dims[0].bandwidth_GBps, 1.6);
    // Gloo's two worker threads, taking collectives in the order queued.
    EXPECT_EQ(sys.scheduling, SchedulingPolicy::Fifo);
    EXPECT_EQ(sys.preferred_dataset_splits, 1);
    EXPECT_EQ(sys.active_chunks_per_dimension, 2);
    EXPECT_DOUBLE_EQ(sys.endpoint_delay, 4000);
    EXPECT_DOUBLE_EQ(sys.local_mem_bw_GBps, 3.5);
    EXPECT_EQ(sys.implementations[static_cast<int>(CollectiveKind::AllToAll)][0].kind, AlgorithmKind::Direct);
}

TEST(NetworkFit, NoMeasurementsOfTheRanksIsAnError) {
    const std::vector<CollectiveMeasurement> two = synthetic(known(TopologyKind::Switch), 2);
    EXPECT_THROW(fit_network(two, {4}), Error);
    std::vector<CollectiveMeasurement> bad = two;
    bad[3].median_us = 0;
    EXPECT_THROW(fit_network(bad, {2}), Error);
}

}  // namespace
}  // namespace mimic::sim

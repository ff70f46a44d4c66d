// `mimic calibrate --collectives` end to end on 2 ranks, small sizes, quick:
// mimic-torch's rank subcommand times Gloo's collectives, the network fit
// turns the timings into a network YAML and system JSON, and `mimic
// simulate` reads those files and takes the fitted time for a collective.
#include "replay/dist/collective_bench.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "io/chakra/chakra_json.h"
#include "sim/network_fit.h"
#include "support/error.h"
#include "support/json_file.h"
#include "test_support.h"

namespace mimic::replay {
namespace {

const std::string kMimicTorch = std::string(MIMIC_BINARY_DIR) + "/mimic-torch";
const std::string kMimic = std::string(MIMIC_BINARY_DIR) + "/mimic";

std::string write(const std::string& path, const std::string& text) {
    std::ofstream(path) << text;
    return path;
}

TEST(CollectiveBench, SizesAndCalls) {
    CollectiveBenchOptions o;
    EXPECT_EQ(bench_sizes(o), (std::vector<uint64_t>{1024, 4096, 16384, 65536, 262144, 1u << 20, 4u << 20, 16u << 20,
                                                     64u << 20}));
    o.quick = true;
    EXPECT_EQ(bench_sizes(o), (std::vector<uint64_t>{1024, 16384, 262144, 4u << 20, 64u << 20}));
    o.max_bytes = 100010;  // the largest is always timed, in whole floats for 4 ranks
    EXPECT_EQ(bench_sizes(o), (std::vector<uint64_t>{1024, 16384, 100000}));
    EXPECT_GT(bench_calls(1024, false).timed, bench_calls(64u << 20, false).timed);
    EXPECT_LT(bench_calls(1024, true).timed, bench_calls(1024, false).timed);
    o.max_bytes = 512;
    EXPECT_THROW(bench_sizes(o), Error);
}

TEST(CollectiveBench, TimesGlooOn2RanksAndTheFitRunsInSimulate) {
    if (!std::filesystem::exists(kMimicTorch) || !std::filesystem::exists(kMimic))
        GTEST_SKIP() << "needs the built mimic and mimic-torch in " << MIMIC_BINARY_DIR;
    CollectiveBenchOptions o;
    o.ranks = {2};
    o.quick = true;
    o.max_bytes = 64 << 10;
    o.rank_command = {kMimicTorch, "calibrate-collectives-rank"};
    o.timeout_s = 60;
    const std::vector<CollectiveBenchTiming> timings = measure_collectives(o);
    ASSERT_EQ(timings.size(), 4u * 3u);  // four collectives x 1, 16 and 64 KiB
    std::vector<sim::CollectiveMeasurement> measured;
    for (const CollectiveBenchTiming& t : timings) {
        EXPECT_EQ(t.ranks, 2);
        EXPECT_EQ(t.calls, bench_calls(t.bytes, true).timed * bench_rounds(true));
        EXPECT_GT(t.median_us, 0) << t.collective << " " << t.bytes;
        EXPECT_LE(t.p10_us, t.median_us);
        EXPECT_GE(t.p90_us, t.median_us);
        EXPECT_EQ(t.emulation.empty(), t.collective != "reduce_scatter") << t.collective;
        sim::CollectiveMeasurement m;
        ASSERT_TRUE(sim::parse_collective_kind(t.collective, m.collective)) << t.collective;
        m.ranks = t.ranks;
        m.bytes = t.bytes;
        m.median_us = t.median_us;
        measured.push_back(m);
    }
    EXPECT_NE(collective_timings_json(timings).find("\"reduce_scatter\""), std::string::npos);

    const sim::NetworkFit fit = sim::fit_network(measured, {2});
    ASSERT_EQ(fit.points.size(), timings.size());
    const std::string dir = testing::scratch_dir("collective_bench");
    const std::string net = write(dir + "/network_2ranks.yml", sim::fitted_network_yaml(fit.params, 2, "test"));
    const std::string sys = write(dir + "/system_2ranks.json", sim::fitted_system_json(fit.params));

    // One 16 KiB all-reduce on each of 2 ranks, through `mimic simulate`.
    const std::string json = write(dir + "/w.json",
                                   "{\"metadata\": {\"version\":\"0.0.4\",\"attr\":[]}, \"nodes\": [{\"id\":\"0\","
                                   "\"name\":\"ar\",\"type\":\"COMM_COLL_NODE\",\"ctrl_deps\":[],\"data_deps\":[],"
                                   "\"attr\":[{\"name\":\"is_cpu_op\",\"bool_val\":false},{\"name\":\"comm_type\","
                                   "\"int64_val\":\"0\"},{\"name\":\"comm_size\",\"int64_val\":\"16384\"}]}]}\n");
    encode_chakra_json(json, dir + "/w.0.et");
    encode_chakra_json(json, dir + "/w.1.et");
    const std::string report = dir + "/sim.json";
    const std::string cmd = kMimic + " simulate " + dir + "/w --network " + net + " --system " + sys + " --json " +
                            report + " > " + dir + "/sim.txt 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    simdjson::dom::object root = parse_json_object_file(report, parser, text);
    uint64_t finish = 0;
    ASSERT_EQ(root["ranks"].at(0)["finish_ns"].get(finish), simdjson::SUCCESS);
    double fitted_us = 0;
    for (const sim::FitPoint& p : fit.points)
        if (p.measured.collective == sim::CollectiveKind::AllReduce && p.measured.bytes == 16384) fitted_us = p.simulated_us;
    EXPECT_NEAR(static_cast<double>(finish) / 1e3, fitted_us, 0.01);
}

TEST(CollectiveBench, ARankThatFailsIsNamed) {
    CollectiveBenchOptions o;
    o.ranks = {2};
    o.quick = true;
    o.max_bytes = 1024;
    o.rank_command = {"/bin/false"};
    try {
        measure_collectives(o);
        FAIL() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("on 2 ranks: rank"), std::string::npos) << e.what();
        EXPECT_NE(std::string(e.what()).find("exited with code 1"), std::string::npos) << e.what();
    }
}

}  // namespace
}  // namespace mimic::replay

// mimic simulate on inputs that cannot run as given: each gets one clear
// message naming file, rank, node or key, and a run that cannot finish ends
// with its waiting ranks named instead of hanging (ASTRA-sim hangs or aborts).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/chakra/chakra_json.h"
#include "sim/simulator.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic::sim {
namespace {

std::string node(int id, const std::string& type, const std::string& deps, const std::string& attrs, int dur = 0) {
    return "{\"id\":\"" + std::to_string(id) + "\",\"name\":\"n" + std::to_string(id) + "\",\"type\":\"" + type +
           "\",\"ctrl_deps\":[],\"data_deps\":[" + deps + "],\"duration_micros\":\"" + std::to_string(dur) +
           "\",\"attr\":[{\"name\":\"is_cpu_op\",\"bool_val\":false}" + attrs + "]}";
}
std::string int_attr(const std::string& name, int64_t v) {
    return ",{\"name\":\"" + name + "\",\"int64_val\":\"" + std::to_string(v) + "\"}";
}

// Writes one rank's Chakra file from its nodes; returns the workload prefix.
std::string write_rank(const std::string& dir, int rank, const std::vector<std::string>& nodes) {
    std::string text = "{\"metadata\": {\"version\":\"0.0.4\",\"attr\":[]},\n\"nodes\": [\n";
    for (size_t i = 0; i < nodes.size(); ++i) text += nodes[i] + (i + 1 < nodes.size() ? ",\n" : "\n");
    text += "]}\n";
    const std::string json = testing::scratch_file(dir, "w." + std::to_string(rank) + ".json", text);
    const std::string prefix = testing::scratch_dir(dir) + "/w";
    encode_chakra_json(json, prefix + "." + std::to_string(rank) + ".et");
    return prefix;
}

// `npus` ranks on one dimension of `topology`; every collective runs `ring`
// but all-reduce, which runs `all_reduce`.
SimulationInput one_dimension(const std::string& prefix, int npus, const std::string& topology = "Switch",
                              const std::string& all_reduce = "ring", const std::string& system_file = "sys.json") {
    SimulationInput in;
    std::vector<std::string> w;
    in.network = parse_network_config("topology: [ " + topology + " ]\nnpus_count: [ " + std::to_string(npus) +
                                          " ]\nbandwidth: [ 100 ]\nlatency: [ 500 ]\n",
                                      "net.yml", w);
    in.system = parse_system_config(R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "preferred-dataset-splits": 1,
        "all-reduce-implementation": [")" + all_reduce + R"("], "all-gather-implementation": ["ring"],
        "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"],
        "collective-optimization": "localBWAware", "local-mem-bw": 1600})",
                                    system_file, w);
    in.graphs = read_workload_prefix(prefix, npus);
    return in;
}

SimulationInput two_ranks(const std::string& prefix) { return one_dimension(prefix, 2); }

std::string message_of(const std::function<void()>& f) { return testing::error_message_of(f); }

TEST(SimBadInput, ReceiveWithoutSendNamesTheWaitingRank) {
    write_rank("sim_deadlock", 0, {node(0, "COMP_NODE", "", "", 5)});
    const std::string prefix = write_rank("sim_deadlock", 1, {node(0, "COMM_RECV_NODE", "", int_attr("comm_src", 0) + int_attr("comm_dst", 1) + int_attr("comm_size", 4096) + int_attr("comm_tag", 7))});
    const SimulationResult r = simulate(two_ranks(prefix));
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors[0].find("rank 1 never finishes"), std::string::npos) << r.errors[0];
    EXPECT_NE(r.errors[0].find("COMM_RECV node 0 (from rank 0, tag 7, 4096 B)"), std::string::npos) << r.errors[0];
    bool named = false;
    for (const auto& e : r.errors) named = named || e.find("a receive from rank 0 to rank 1 (4096 B, tag 7) has no matching send") != std::string::npos;
    EXPECT_TRUE(named);
    EXPECT_TRUE(r.ranks[0].finished);
    EXPECT_FALSE(r.ranks[1].finished);
}

// A send completes when its message lands (as in ASTRA-sim), so its rank
// finishes; the message nobody received is still an error.
TEST(SimBadInput, SendWithoutReceiveIsAnError) {
    write_rank("sim_lost_send", 0, {node(0, "COMM_SEND_NODE", "", int_attr("comm_src", 0) + int_attr("comm_dst", 1) + int_attr("comm_size", 4096) + int_attr("comm_tag", 7))});
    const std::string prefix = write_rank("sim_lost_send", 1, {node(0, "COMP_NODE", "", "", 5)});
    const SimulationResult r = simulate(two_ranks(prefix));
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors[0].find("a send from rank 0 to rank 1 (4096 B, tag 7) has no matching receive"), std::string::npos) << r.errors[0];
}

TEST(SimBadInput, RanksDisagreeingOnACollectiveSizeDoNotHang) {
    write_rank("sim_disagree", 0, {node(0, "COMM_COLL_NODE", "", int_attr("comm_type", 0) + int_attr("comm_size", 1 << 20))});
    const std::string prefix = write_rank("sim_disagree", 1, {node(0, "COMM_COLL_NODE", "", int_attr("comm_type", 0) + int_attr("comm_size", 1 << 21))});
    const SimulationResult r = simulate(two_ranks(prefix));
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors[0].find("COMM_COLL node 0"), std::string::npos) << r.errors[0];
}

// Halving-doubling over 3 NPUs pairs some with partners that never send to
// them: the run ends with the waiting ranks named and the setting to change.
TEST(SimBadInput, HalvingDoublingOverANonPowerOfTwoRingNamesTheSetting) {
    std::string prefix;
    for (int r = 0; r < 3; ++r)
        prefix = write_rank("sim_hd3", r, {node(0, "COMM_COLL_NODE", "", int_attr("comm_type", 0) + int_attr("comm_size", 1 << 20))});
    SimulationInput in = one_dimension(prefix, 3, "Ring", "halvingDoubling", "hd3.json");
    const SimulationResult r = simulate(in);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors.back().find("hd3.json: halving-doubling pairs NPUs by powers of two"), std::string::npos) << r.errors.back();
    EXPECT_NE(r.errors.back().find("all-reduce-implementation: halvingDoubling on dimension 0 (3 NPUs)"), std::string::npos) << r.errors.back();
    // Over 4 NPUs the same setting runs, and no such line is added.
    for (int r4 = 0; r4 < 4; ++r4)
        prefix = write_rank("sim_hd4", r4, {node(0, "COMM_COLL_NODE", "", int_attr("comm_type", 0) + int_attr("comm_size", 1 << 20))});
    in = one_dimension(prefix, 4, "Ring", "halvingDoubling", "hd3.json");
    EXPECT_TRUE(simulate(in).errors.empty());
}

TEST(SimBadInput, MissingRankFileIsNamed) {
    const std::string prefix = write_rank("sim_missing_rank", 0, {node(0, "COMP_NODE", "", "", 5)});
    const std::string msg = message_of([&] { two_ranks(prefix); });
    EXPECT_NE(msg.find("w.1.et"), std::string::npos) << msg;
    EXPECT_NE(msg.find("rank 1's workload file is missing"), std::string::npos) << msg;
}

TEST(SimBadInput, DependencyOnAnAbsentNodeIsDroppedWithAWarning) {
    write_rank("sim_dangling", 0, {node(0, "COMP_NODE", "\"42\"", "", 5)});
    const std::string prefix = write_rank("sim_dangling", 1, {node(0, "COMP_NODE", "", "", 5)});
    const SimulationResult r = simulate(two_ranks(prefix));
    EXPECT_TRUE(r.errors.empty());
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || w.find("depends on node 42, which the file does not have") != std::string::npos;
    EXPECT_TRUE(warned);
    EXPECT_EQ(r.ranks[0].finish_ns, 5000u);
}

TEST(SimBadInput, DependencyCycleIsAnErrorNamingTheNode) {
    write_rank("sim_cycle", 0, {node(0, "COMP_NODE", "\"1\"", "", 5), node(1, "COMP_NODE", "\"0\"", "", 5)});
    const std::string msg = message_of([&] { read_rank_graph(testing::scratch_dir("sim_cycle") + "/w.0.et", 0); });
    EXPECT_NE(msg.find("node 0"), std::string::npos) << msg;
    EXPECT_NE(msg.find("dependency cycle (0 -> 1 -> 0, each waiting for the next)"), std::string::npos) << msg;
}

TEST(SimBadInput, CommunicationMarkedAsCpuOpRunsOnTheDeviceWithAWarning) {
    const std::string cpu_coll = "{\"id\":\"0\",\"name\":\"ar\",\"type\":\"COMM_COLL_NODE\",\"ctrl_deps\":[],\"data_deps\":[],"
                                 "\"attr\":[{\"name\":\"is_cpu_op\",\"bool_val\":true}" + int_attr("comm_type", 0) + int_attr("comm_size", 1 << 20) + "]}";
    write_rank("sim_cpu_comm", 0, {cpu_coll});
    const std::string prefix = write_rank("sim_cpu_comm", 1, {cpu_coll});
    const SimulationResult r = simulate(two_ranks(prefix));
    EXPECT_TRUE(r.errors.empty());
    EXPECT_TRUE(r.ranks[0].finished && r.ranks[1].finished);
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || w.find("communication node marked is_cpu_op") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(SimBadInput, UnsupportedCollectiveTypeNamesTheNode) {
    write_rank("sim_gather", 0, {node(3, "COMM_COLL_NODE", "", int_attr("comm_type", 3) + int_attr("comm_size", 64))});
    const std::string prefix = write_rank("sim_gather", 1, {node(3, "COMM_COLL_NODE", "", int_attr("comm_type", 3) + int_attr("comm_size", 64))});
    const std::string msg = message_of([&] { simulate(two_ranks(prefix)); });
    EXPECT_NE(msg.find("node 3"), std::string::npos) << msg;
    EXPECT_NE(msg.find("comm_type"), std::string::npos) << msg;
}

TEST(SimBadInput, NetworkSizeMustMatchTheRanks) {
    const std::string prefix = write_rank("sim_npus", 0, {node(0, "COMP_NODE", "", "", 5)});
    SimulationInput in;
    std::vector<std::string> w;
    in.network = parse_network_config("topology: [ Ring, Switch ]\nnpus_count: [ 2, 2 ]\nbandwidth: [ 100, 50 ]\nlatency: [ 500, 500 ]\n", "net.yml", w);
    in.graphs = read_workload_prefix(prefix, 1);
    const std::string msg = message_of([&] { simulate(in); });
    EXPECT_NE(msg.find("net.yml"), std::string::npos) << msg;
    EXPECT_NE(msg.find("4 NPUs (2 x 2) but the workload has 1 ranks"), std::string::npos) << msg;
}

TEST(SimBadInput, NetworkListsOfDifferentLengthsNameTheKey) {
    std::vector<std::string> w;
    const std::string msg = message_of([&] {
        parse_network_config("topology: [ Ring, Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ 100, 50 ]\nlatency: [ 500, 500 ]\n", "net.yml", w);
    });
    EXPECT_NE(msg.find("net.yml"), std::string::npos);
    EXPECT_NE(msg.find("npus_count"), std::string::npos) << msg;
}

TEST(SimBadInput, UnknownAndMisspeltKeysAreWarnedAbout) {
    std::vector<std::string> w;
    parse_network_config("topology: [ Ring ]\nnpus_count: [ 4 ]\nbandwidht: [ 1 ]\nbandwidth: [ 100 ]\nlatency: [ 5 ]\n", "net.yml", w);
    parse_system_config(R"({"preferred-dataset-splits": 2, "scheduling-policy": "FIFO", "collective-optimization": "baseline",
                            "local-mem-bw": 10, "endpoint-dealy": 5, "boost-mode": 1})", "sys.json", w);
    const std::string all = [&] { std::string s; for (auto& x : w) s += x + "\n"; return s; }();
    EXPECT_NE(all.find("unknown network key 'bandwidht'"), std::string::npos) << all;
    EXPECT_NE(all.find("unknown system key 'endpoint-dealy'"), std::string::npos) << all;
    EXPECT_NE(all.find("'boost-mode' has no effect"), std::string::npos) << all;
}

TEST(SimBadInput, BadSystemValuesNameTheKey) {
    std::vector<std::string> w;
    EXPECT_NE(message_of([&] { parse_system_config(R"({"all-reduce-implementation": ["rign"]})", "sys.json", w); }).find("all-reduce-implementation"),
              std::string::npos);
    EXPECT_NE(message_of([&] { parse_system_config(R"({"scheduling-policy": "LILO"})", "sys.json", w); }).find("scheduling-policy"),
              std::string::npos);
    EXPECT_NE(message_of([&] { parse_system_config(R"({"preferred-dataset-splits": 0})", "sys.json", w); }).find("preferred-dataset-splits"),
              std::string::npos);
}

}  // namespace
}  // namespace mimic::sim

namespace mimic::sim {
namespace {

// A collective of 0 bytes still synchronises its ranks: it costs what 1 byte
// costs (ASTRA-sim's own runs take no time for it).
TEST(SimBadInput, ZeroByteCollectivePaysTheLatencyOfOneByte) {
    auto run = [](const std::string& dir, int64_t bytes) {
        const std::string coll = node(0, "COMM_COLL_NODE", "", int_attr("comm_type", 0) + int_attr("comm_size", bytes));
        write_rank(dir, 0, {coll});
        return simulate(two_ranks(write_rank(dir, 1, {coll})));
    };
    const SimulationResult zero = run("sim_zero_bytes", 0), one = run("sim_one_byte", 1);
    ASSERT_TRUE(zero.errors.empty());
    EXPECT_GT(zero.ranks[0].finish_ns, 1000u);  // at least the 500 ns latency twice
    EXPECT_EQ(zero.ranks[0].finish_ns, one.ranks[0].finish_ns);
}

}  // namespace
}  // namespace mimic::sim

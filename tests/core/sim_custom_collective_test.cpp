// Custom collective implementations (`*-implementation-custom`,
// `per-node-custom-implementation`): what ASTRA-sim hangs, aborts or exits on
// gets one message naming file, node or key. Their timings against ASTRA-sim
// are the custom_* cases of tests/data/astra_extra (sim_astra_cases_test.cpp).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/chakra/chakra_json.h"
#include "sim/simulator.h"
#include "test_support.h"

namespace mimic::sim {
namespace {

const std::string kExtra = std::string(MIMIC_SOURCE_DIR) + "/tests/data/astra_extra";

// A Chakra file from its nodes (mimic dump's JSON form).
void write_chakra(const std::string& dir, const std::string& name, const std::vector<std::string>& nodes) {
    std::string text = "{\"metadata\": {\"version\":\"0.0.4\",\"attr\":[]},\n\"nodes\": [\n";
    for (size_t i = 0; i < nodes.size(); ++i) text += nodes[i] + (i + 1 < nodes.size() ? ",\n" : "\n");
    text += "]}\n";
    const std::string json = testing::scratch_file(dir, name + ".json", text);
    encode_chakra_json(json, testing::scratch_dir(dir) + "/" + name);
}

std::string coll_node(int id, int comm_type, int64_t size) {
    return "{\"id\":\"" + std::to_string(id) + "\",\"name\":\"c\",\"type\":\"COMM_COLL_NODE\",\"ctrl_deps\":[],\"data_deps\":[]," +
           "\"duration_micros\":\"0\",\"attr\":[{\"name\":\"is_cpu_op\",\"bool_val\":false},{\"name\":\"comm_type\",\"int64_val\":\"" +
           std::to_string(comm_type) + "\"},{\"name\":\"comm_size\",\"int64_val\":\"" + std::to_string(size) + "\"}]}";
}

std::string system_json(const std::string& custom_key, const std::string& value, int splits = 1) {
    return R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "preferred-dataset-splits": )" + std::to_string(splits) +
           R"(, "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
        "all-to-all-implementation": ["ring"], "collective-optimization": "baseline", "local-mem-bw": 50, ")" +
           custom_key + "\": " + value + "}";
}

SimulationInput two_rank_all_reduce(const std::string& dir, const std::string& system, std::vector<std::string>& warnings) {
    write_chakra(dir, "w.0.et", {coll_node(0, 0, 1 << 20)});
    write_chakra(dir, "w.1.et", {coll_node(0, 0, 1 << 20)});
    SimulationInput in;
    in.network = parse_network_config("topology: [ Ring ]\nnpus_count: [ 2 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n", "net.yml", warnings);
    in.system = parse_system_config(system, testing::scratch_dir(dir) + "/sys.json", warnings);
    in.graphs = read_workload_prefix(testing::scratch_dir(dir) + "/w", 2);
    return in;
}

// Every rank of the ring sends before it receives; under the rendezvous
// protocol each send waits for its receiver's handshake, which waits for that
// rank's own send. ASTRA-sim exits 0 with "unreleased nodes"; mimic names the
// waiting ranks and the handshakes nobody answered.
TEST(CustomCollective, RendezvousOnARingThatSendsFirstDeadlocksAndSaysSo) {
    std::vector<std::string> warnings;
    SimulationInput in;
    in.network = read_network_config(kExtra + "/configs/network/ring8_50g_500ns_c.yml", warnings);
    in.system = read_system_config(kExtra + "/configs/system/custom_ring_nocomp.json", warnings);
    in.graphs = read_workload_prefix(kExtra + "/workloads/gen/custom_layers_8/custom_layers_8", 8);
    in.options.rendezvous = true;
    const SimulationResult r = simulate(in);
    ASSERT_FALSE(r.errors.empty());
    EXPECT_NE(r.errors[0].find("never finishes: it waits on COMM_COLL node 1"), std::string::npos) << r.errors[0];
    bool handshake = false;
    for (const auto& e : r.errors) handshake = handshake || e.find("8192 B, a rendezvous handshake) has no matching send") != std::string::npos;
    EXPECT_TRUE(handshake);
    for (const auto& rank : r.ranks) EXPECT_FALSE(rank.finished);
}

// ASTRA-sim starts a node of another type and waits for it forever.
TEST(CustomCollective, AGraphHoldingACollectiveIsRefusedNamingFileAndNode) {
    const std::string dir = "sim_custom_bad_node";
    write_chakra(dir, "impl.0.et", {coll_node(3, 0, 4096)});
    write_chakra(dir, "impl.1.et", {coll_node(3, 0, 4096)});
    std::vector<std::string> warnings;
    const std::string prefix = testing::scratch_dir(dir) + "/impl";
    const SimulationInput in = two_rank_all_reduce(dir, system_json("all-reduce-implementation-custom", "[\"" + prefix + "\"]"), warnings);
    const std::string message = testing::error_message_of([&] { simulate(in); });
    EXPECT_NE(message.find(prefix + ".0.et"), std::string::npos) << message;
    EXPECT_NE(message.find("node 3"), std::string::npos) << message;
    EXPECT_NE(message.find("COMM_SEND, COMM_RECV and COMP nodes only"), std::string::npos) << message;
}

TEST(CustomCollective, APrefixWithNoGraphsOrTwoPrefixesNameTheKey) {
    std::vector<std::string> warnings;
    std::string message = testing::error_message_of(
        [&] { parse_system_config(system_json("all-gather-implementation-custom", "[\"no/such/prefix\"]"), "sys.json", warnings); });
    EXPECT_NE(message.find("all-gather-implementation-custom"), std::string::npos) << message;
    EXPECT_NE(message.find("no/such/prefix.0.et"), std::string::npos) << message;
    message = testing::error_message_of(
        [&] { parse_system_config(system_json("all-reduce-implementation-custom", "[\"a\", \"b\"]"), "sys.json", warnings); });
    EXPECT_NE(message.find("a list of one Chakra path prefix"), std::string::npos) << message;
}

TEST(CustomCollective, APerNodeFileLineThatIsNotAMappingNamesTheLine) {
    const std::string yaml = testing::scratch_file("sim_custom_per_node", "per_node.yaml", "# ids\nnot a mapping\n4: x\n");
    std::vector<std::string> warnings;
    const std::string message = testing::error_message_of(
        [&] { parse_system_config(system_json("per-node-custom-implementation", "\"" + yaml + "\""), "sys.json", warnings); });
    EXPECT_NE(message.find("per-node-custom-implementation"), std::string::npos) << message;
    EXPECT_NE(message.find("per_node.yaml line 2: expected 'NODE_ID: PATH_PREFIX'"), std::string::npos) << message;
}

// ASTRA-sim makes a custom collective's dataset wait for as many chunks as
// preferred-dataset-splits asks and runs one, so it never finishes; mimic
// finishes it with its one chunk and says so.
TEST(CustomCollective, SplitsAboveOneAreWarnedAboutAndTheCollectiveFinishes) {
    std::vector<std::string> warnings;
    const std::string prefix = kExtra + "/configs/custom/msccl_ring8/custom_allreduce";
    SimulationInput in;
    in.network = read_network_config(kExtra + "/configs/network/ring8_50g_500ns_c.yml", warnings);
    in.system = parse_system_config(system_json("all-reduce-implementation-custom", "[\"" + prefix + "\"]", 4), "sys.json", warnings);
    in.graphs = read_workload_prefix(kExtra + "/workloads/gen/micro_ar_8/micro_ar_8", 8);
    const SimulationResult r = simulate(in);
    EXPECT_TRUE(r.errors.empty());
    bool warned = false;
    for (const auto& w : r.warnings) warned = warned || w.find("runs as one chunk; ASTRA-sim waits for 4") != std::string::npos;
    EXPECT_TRUE(warned);
    // The same time as with one split: ASTRA-sim's own run of the example (custom_msccl_ring8_example).
    for (const auto& rank : r.ranks) EXPECT_EQ(rank.finish_ns, 90174u);
}

}  // namespace
}  // namespace mimic::sim

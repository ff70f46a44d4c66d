// Chakra traces written as JSON by Chakra's own tools (tests/data/chakra_json):
// the jsonizer's objects encode back to the exact .et they came from, the JSON
// feeder format reads as the same graph as its protobuf twin, a JSON workload
// prefix simulates as its .et prefix, and broken JSON names file, node and field.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "io/chakra/chakra_json.h"
#include "io/chakra/chakra_json_forms.h"
#include "io/chakra/chakra_reader.h"
#include "io/trace_loader.h"
#include "sim/workload_graph.h"
#include "support/byte_source.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string data(const std::string& relative) {
    return std::string(MIMIC_SOURCE_DIR) + "/tests/data/chakra_json/" + relative;
}

std::string scratch(const std::string& file) { return testing::scratch_dir("chakra_json_forms") + "/" + file; }

std::string error_of_encode(const std::string& json_text, const std::string& name) {
    const std::string path = testing::scratch_file("chakra_json_forms", name, json_text);
    return testing::error_message_of([&] { encode_chakra_json(path, scratch(name + ".et")); });
}

TEST(ChakraJsonForms, EachFormIsToldFromTheFileHead) {
    EXPECT_EQ(chakra_json_form(read_file_head(data("jsonizer_feeder_sample.0.json.gz"), 4096)), ChakraJsonForm::Jsonizer);
    EXPECT_EQ(chakra_json_form(read_file_head(data("microbench/all_reduce.0.json"), 4096)), ChakraJsonForm::Jsonizer);
    EXPECT_EQ(chakra_json_form(read_file_head(data("feeder_format.0.json.gz"), 4096)), ChakraJsonForm::Feeder);
    EXPECT_EQ(chakra_json_form("{\"metadata\": {\"version\":\"0.0.4\"},\n\"nodes\": ["), ChakraJsonForm::MimicDump);
    // Neither a PyTorch ET nor a Kineto trace is taken for Chakra.
    EXPECT_EQ(chakra_json_form("{\"schema\": \"1.0.1\", \"pid\": 7, \"nodes\": [{\"id\": 1"), ChakraJsonForm::NotChakra);
    EXPECT_EQ(chakra_json_form("{\"schemaVersion\": 1, \"traceEvents\": [{\"ph\": \"X\""), ChakraJsonForm::NotChakra);
    EXPECT_EQ(chakra_json_form("[{\"ph\": \"X\"}]"), ChakraJsonForm::NotChakra);
}

TEST(ChakraJsonForms, TheJsonizersOutputEncodesToTheTraceItCameFrom) {
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    const std::string out = scratch("from_jsonizer.0.et");
    const ChakraJsonStats stats = encode_chakra_json(data("jsonizer_feeder_sample.0.json.gz"), out);
    EXPECT_EQ(stats.nodes, 3664u);
    EXPECT_TRUE(stats.warnings.empty());
    EXPECT_EQ(read_whole_file(out), read_whole_file(testing::trace_path("chakra/feeder_sample.0.et")));
}

TEST(ChakraJsonForms, TheFeederFormatReadsAsTheGraphOfItsProtobufTwin) {
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    const Trace json = load_trace(data("feeder_format.0.json.gz"));
    const Trace et = load_trace(testing::trace_path("chakra/feeder_sample.0.et"));
    EXPECT_EQ(json.source_path, data("feeder_format.0.json.gz"));
    EXPECT_EQ(json.rank, 0);
    EXPECT_EQ(json.rank_source, "file name");
    ASSERT_EQ(json.nodes.size(), et.nodes.size());
    size_t comm_nodes = 0;
    for (size_t i = 0; i < et.nodes.size(); ++i) {
        const Node& a = json.nodes[i];
        const Node& b = et.nodes[i];
        ASSERT_EQ(a.id, b.id) << "node " << i;
        EXPECT_EQ(a.chakra_type, b.chakra_type) << "node " << b.id.value;
        EXPECT_EQ(a.chakra_duration_us, b.chakra_duration_us) << "node " << b.id.value;
        ASSERT_EQ(a.data_deps.count, b.data_deps.count) << "node " << b.id.value;
        for (uint32_t e = 0; e < a.data_deps.count; ++e)
            EXPECT_EQ(json.edges[a.data_deps.begin + e], et.edges[b.data_deps.begin + e]);
        const Attr* cpu_a = json.find_attr(a, "is_cpu_op");
        const Attr* cpu_b = et.find_attr(b, "is_cpu_op");
        ASSERT_EQ(cpu_a != nullptr, cpu_b != nullptr) << "node " << b.id.value;
        if (cpu_a) {
            EXPECT_EQ(cpu_a->value.payload.b, cpu_b->value.payload.b) << "node " << b.id.value;
        }
        comm_nodes += b.chakra_type == ChakraNodeType::CommColl;
    }
    EXPECT_EQ(comm_nodes, 21u);
}

TEST(ChakraJsonForms, AJsonWorkloadPrefixSimulatesAsItsEtPrefix) {
    MIMIC_REQUIRE_TRACE("chakra/microbench/all_reduce/all_reduce.0.et");
    for (const char* coll : {"all_gather", "all_reduce", "all_to_all", "reduce_scatter"}) {
        const std::string json_prefix = data(std::string("microbench/") + coll);
        const std::string et_prefix = testing::trace_path(std::string("chakra/microbench/") + coll + "/" + coll);
        EXPECT_EQ(sim::workload_prefix_extension(json_prefix), ".json");
        const auto from_json = sim::read_workload_prefix(json_prefix, 4);
        const auto from_et = sim::read_workload_prefix(et_prefix, 4);
        ASSERT_EQ(from_json.size(), 4u);
        for (int r = 0; r < 4; ++r) EXPECT_TRUE(from_json[r]->same_graph(*from_et[r])) << coll << " rank " << r;
    }
}

TEST(ChakraJsonForms, BrokenFeederNodesNameTheirIndexAndField) {
    const std::string no_id = error_of_encode(R"({"workload_graph": [{"Id": 1, "NodeType": 4}, {"NodeType": 4}]})", "no_id.json");
    EXPECT_NE(no_id.find("workload_graph[1].Id"), std::string::npos) << no_id;
    const std::string bad_type = error_of_encode(R"({"workload_graph": [{"Id": 1, "NodeType": 12}]})", "bad_type.json");
    EXPECT_NE(bad_type.find("workload_graph[0].NodeType"), std::string::npos) << bad_type;
    const std::string bad_dep = error_of_encode(R"({"workload_graph": [{"Id": 1, "NodeType": 4, "data_deps": [-2]}]})", "bad_dep.json");
    EXPECT_NE(bad_dep.find("workload_graph[0].data_deps"), std::string::npos) << bad_dep;
    const std::string bad_bool = error_of_encode(R"({"workload_graph": [{"Id": 1, "NodeType": 4, "is_cpu_op": 1}]})", "bad_bool.json");
    EXPECT_NE(bad_bool.find("is_cpu_op"), std::string::npos) << bad_bool;
}

TEST(ChakraJsonForms, FeederFieldsNoNodeHoldsAreDroppedWithOneWarning) {
    const std::string path = testing::scratch_file(
        "chakra_json_forms", "extra.0.json",
        R"({"workload_graph": [{"Id": 1, "Name": "a", "NodeType": 4, "runtime": 5, "color": "red"},
                              {"Id": 2, "Name": "b", "NodeType": 7, "comm_type": 0, "comm_size": 64, "data_deps": [1], "color": "blue"}]})");
    const Trace t = load_trace(path);
    ASSERT_EQ(t.nodes.size(), 2u);
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_NE(t.warnings[0].message.find("\"color\" (2 nodes)"), std::string::npos) << t.warnings[0].message;
    const Attr* size = t.find_attr(t.nodes[1], "comm_size");
    ASSERT_NE(size, nullptr);
    EXPECT_EQ(size->value.payload.i, 64);
    EXPECT_EQ(t.nodes[0].chakra_duration_us, 5u);
}

TEST(ChakraJsonForms, BrokenJsonizerStreamsNameTheObject) {
    const std::string meta = "{\n  \"version\": \"0.0.4\"\n}";
    const std::string unknown = error_of_encode(meta + "{\n  \"id\": \"1\",\n  \"colour\": 3\n}", "unknown.json");
    EXPECT_NE(unknown.find("object 1"), std::string::npos) << unknown;
    const std::string cut = error_of_encode(meta + "{\n  \"id\": \"1\",\n  \"name\": \"a", "cut.json");
    EXPECT_NE(cut.find("cut short"), std::string::npos) << cut;
    const std::string junk = error_of_encode(meta + ",{\"id\": \"1\"}", "junk.json");
    EXPECT_NE(junk.find("expected '{'"), std::string::npos) << junk;
    // A trace that is its GlobalMetadata alone has no node, which is no error.
    const std::string alone = testing::scratch_file("chakra_json_forms", "alone.json", meta);
    EXPECT_EQ(encode_chakra_json(alone, scratch("alone.et")).nodes, 0u);
}

}  // namespace
}  // namespace mimic

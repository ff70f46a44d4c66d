// analyze() on every real PyTorch ET and the Chakra feeder sample: counts,
// categories, iterations and replay coverage against figures derived
// independently of mimic.
#include "analysis/report.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <numeric>

#include "io/trace_loader.h"
#include "test_support.h"
#include "trace/split_pieces.h"

namespace mimic::analysis {
namespace {

struct CategoryCounts {
    uint64_t count, top_level;
};

struct Expected {
    const char* file;
    const char* schema;
    uint64_t nodes, operators, operators_with_schema, top_level_operators;
    CategoryCounts aten, fused, custom, communication, label, device;
    uint64_t top_level_with_schema;  // replayable when no runtime is asked
    // Top-level collectives without a schema (record_param_comms): replayable
    // too, as a multi-rank replay runs them.
    uint64_t collectives_without_schema = 0;
    uint64_t device_collectives = 0;  // NCCL kernels among them (device work, not host operators)
};

// Derived with a short Python script (json.load over the gzip JSON, walking
// parent/ctrl_deps links): a node's category from its name, op_schema and
// kernel_backend by the rules in categories.h; an operator is top-level when
// no ancestor is an operator. For the Chakra sample a protobuf varint decoder
// over the .et file: COMM_* nodes are communication (14 host pieces of c10d
// ops, 7 NCCL kernels with is_cpu_op false), other nodes with is_cpu_op false
// are device work, the rest aten (all have an aten:: schema). Chakra nodes do
// not nest, so every node is top-level; device nodes are not host operators.
const Expected kTraces[] = {
    {"pytorch/linear_et.json.gz", "1.0.1", 931, 710, 710, 320,
     {710, 320}, {0, 0}, {0, 0}, {0, 0}, {221, 221}, {0, 0}, 320},
    {"pytorch/chakra_sample_1.0.2.json.gz", "1.0.2-chakra.0.0.4", 263, 250, 220, 90,
     {210, 70}, {0, 0}, {0, 0}, {40, 20}, {13, 3}, {0, 0}, 80, 10},
    {"pytorch/resnet_1gpu_et_1.0.3.json.gz", "1.0.3-chakra.0.0.4", 14391, 10866, 10818, 3711,
     {10797, 3684}, {0, 0}, {0, 0}, {69, 27}, {3525, 3042}, {0, 0}, 3705, 6},
    {"pytorch/resnet_1gpu_et_1.1.1.json.gz", "1.1.1-chakra.0.0.4", 14392, 10866, 10818, 3711,
     {10797, 3684}, {0, 0}, {0, 0}, {69, 27}, {3526, 3043}, {0, 0}, 3705, 6},
    {"pytorch/resnet_et.json.gz", "1.1.0-chakra.0.0.4", 14392, 10866, 10818, 3711,
     {10797, 3684}, {0, 0}, {0, 0}, {69, 27}, {3526, 3043}, {0, 0}, 3705, 6},
    // Top-level: the two "Torch-Compiled Region" nodes; aten::mm and the Triton
    // kernel run inside CompiledFunction inside them.
    {"pytorch/pt2/pt2_et.json", "1.1.1-chakra.0.0.4", 20, 8, 2, 2,
     {2, 0}, {6, 2}, {0, 0}, {0, 0}, {12, 8}, {0, 0}, 0},
    // 2,448 CPU nodes, which are 1,232 calls: the converter cut 899 of them into
    // 2,115 pieces (trace/split_pieces.h), 1,216 of them after a first (1,209
    // ATen; 7 of c10d::allreduce_ and c10d::broadcast_); category counts are nodes.
    {"chakra/feeder_sample.0.et", "", 3664, 1232, 1232, 1232,
     {2434, 1225}, {0, 0}, {0, 0}, {21, 14}, {0, 0}, {1209, 1209}, 1232, 0, 7},
};

class AnalyzeRealTrace : public ::testing::TestWithParam<Expected> {};

TEST_P(AnalyzeRealTrace, CountsMatchIndependentDerivation) {
    const Expected& e = GetParam();
    MIMIC_REQUIRE_TRACE(e.file);
    const Trace trace = load_trace(testing::trace_path(e.file));
    const Report r = analyze(trace);
    EXPECT_EQ(r.schema_version, e.schema);
    EXPECT_EQ(r.nodes, e.nodes);
    EXPECT_EQ(r.operators, e.operators);
    EXPECT_EQ(r.operators_with_schema, e.operators_with_schema);
    EXPECT_EQ(r.top_level_operators, e.top_level_operators);
    const CategoryCounts want[] = {e.aten, e.fused, e.custom, e.communication, e.label, e.device};
    for (size_t c = 0; c < kCategoryCount; ++c) {
        SCOPED_TRACE(std::string(category_key(kAllCategories[c])));
        EXPECT_EQ(r.categories[c].count, want[c].count);
        EXPECT_EQ(r.categories[c].top_level, want[c].top_level);
    }
    EXPECT_EQ(r.replay.total, e.top_level_operators);
    EXPECT_EQ(r.replay.replayable, e.top_level_with_schema + e.collectives_without_schema);
    EXPECT_EQ(r.replay.without_schema, e.top_level_operators - e.top_level_with_schema - e.collectives_without_schema);
    EXPECT_EQ(r.replay.collectives, e.communication.top_level - e.device_collectives);
    EXPECT_FALSE(r.replay.kernels_checked);
    ASSERT_EQ(r.inputs.size(), 1u);
    EXPECT_EQ(r.inputs[0].nodes, e.nodes);
}

TEST_P(AnalyzeRealTrace, CategoriesAddUpToTheTotals) {
    const Expected& e = GetParam();
    MIMIC_REQUIRE_TRACE(e.file);
    const Report r = analyze(load_trace(testing::trace_path(e.file)));
    uint64_t nodes = 0, ops = 0, top_ops = 0;
    double self_us = 0;
    for (OpCategory c : kAllCategories) {
        nodes += r.category(c).count;
        self_us += r.category(c).self_us;
        if (is_operator(c)) {
            ops += r.category(c).count;
            top_ops += r.category(c).top_level;
        }
    }
    EXPECT_EQ(nodes, r.nodes);
    EXPECT_DOUBLE_EQ(self_us, r.total_self_us);
    // Operator categories hold the host operators and, in Chakra traces, the
    // NCCL kernels (communication, but device work).
    // Pieces of a call after its first (trace/split_pieces.h) are nodes, not operators.
    const std::vector<uint8_t> later = later_split_pieces(load_trace(testing::trace_path(e.file)));
    const uint64_t pieces = static_cast<uint64_t>(std::count(later.begin(), later.end(), 1));
    const uint64_t device_comm = e.communication.count - (e.operators + pieces - e.aten.count - e.fused.count - e.custom.count);
    EXPECT_EQ(ops, r.operators + pieces + device_comm);
    EXPECT_EQ(top_ops, r.top_level_operators + device_comm);
    uint64_t by_name = 0;
    for (const OperatorStats& op : r.operators_by_time) by_name += op.count;
    EXPECT_EQ(by_name, r.operators);
}

INSTANTIATE_TEST_SUITE_P(Shared, AnalyzeRealTrace, ::testing::ValuesIn(kTraces),
                         [](const ::testing::TestParamInfo<Expected>& param) {
                             std::string name = param.param.file;
                             for (char& c : name)
                                 if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                             return name;
                         });

TEST(AnalyzeIterations, ProfilerStepsSpanTheirSubtrees) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const Report r = analyze(load_trace(testing::trace_path("pytorch/resnet_et.json.gz")));
    EXPECT_EQ(r.iteration_method, "profiler_step");
    // (name, smallest id, largest id, nodes) of each ProfilerStep#N subtree, from the Python walk.
    ASSERT_EQ(r.iterations.size(), 3u);
    EXPECT_EQ(r.iterations[0].name, "ProfilerStep#6");
    EXPECT_EQ(r.iterations[0].first_node_id, 4u);
    EXPECT_EQ(r.iterations[0].last_node_id, 6941u);
    EXPECT_EQ(r.iterations[1].name, "ProfilerStep#7");
    EXPECT_EQ(r.iterations[1].first_node_id, 6942u);
    EXPECT_EQ(r.iterations[1].last_node_id, 11931u);
    EXPECT_EQ(r.iterations[2].name, "ProfilerStep#8");
    EXPECT_EQ(r.iterations[2].first_node_id, 11932u);
    EXPECT_EQ(r.iterations[2].last_node_id, 16860u);
    for (const Iteration& it : r.iterations) {
        EXPECT_EQ(it.nodes, 2396u);
        EXPECT_FALSE(it.timed);
    }
}

TEST(AnalyzeIterations, Pt2StepsAndNoneWhereNoLabelRepeats) {
    MIMIC_REQUIRE_TRACE("pytorch/pt2/pt2_et.json");
    const Report pt2 = analyze(load_trace(testing::trace_path("pytorch/pt2/pt2_et.json")));
    ASSERT_EQ(pt2.iterations.size(), 2u);
    EXPECT_EQ(pt2.iterations[0].name, "ProfilerStep#5");
    EXPECT_EQ(pt2.iterations[0].first_node_id, 3u);
    EXPECT_EQ(pt2.iterations[0].last_node_id, 16u);
    EXPECT_EQ(pt2.iterations[0].nodes, 9u);
    EXPECT_EQ(pt2.iterations[1].first_node_id, 19u);
    EXPECT_EQ(pt2.iterations[1].last_node_id, 29u);

    // linear_et has no ProfilerStep; its repeating top-level nodes are autograd
    // wrappers, and chakra_sample's are record_param_comms "wait" calls:
    // neither marks an iteration.
    for (const char* file : {"pytorch/linear_et.json.gz", "pytorch/chakra_sample_1.0.2.json.gz"}) {
        MIMIC_REQUIRE_TRACE(file);
        const Report r = analyze(load_trace(testing::trace_path(file)));
        EXPECT_EQ(r.iteration_method, "none") << file;
        EXPECT_TRUE(r.iterations.empty()) << file;
    }
}

TEST(AnalyzeIterations, RepeatedUserLabelMarksIterations) {
    // A real trace whose only repeated thread-level label is a user label: the
    // pt2 trace with its ProfilerStep labels renamed to one name, as a
    // training loop wrapped in record_function("step") writes it.
    MIMIC_REQUIRE_TRACE("pytorch/pt2/pt2_et.json");
    Trace t = load_trace(testing::trace_path("pytorch/pt2/pt2_et.json"));
    const StrId step = t.strings.intern("## step ##");
    for (Node& n : t.nodes)
        if (t.name(n).substr(0, 13) == "ProfilerStep#") n.name = step;
    const Report r = analyze(t);
    EXPECT_EQ(r.iteration_method, "repeated_label");
    EXPECT_EQ(r.iteration_marker, "## step ##");
    ASSERT_EQ(r.iterations.size(), 2u);
    EXPECT_EQ(r.iterations[0].nodes, 9u);
    EXPECT_EQ(r.iterations[1].last_node_id, 29u);
}

TEST(AnalyzeIterations, AStepInsideAStepIsPartOfIt) {
    // Damaged input: the pt2 trace's "## LOOP 5 ##" label (inside
    // ProfilerStep#5) renamed to look like a step of its own.
    MIMIC_REQUIRE_TRACE("pytorch/pt2/pt2_et.json");
    Trace t = load_trace(testing::trace_path("pytorch/pt2/pt2_et.json"));
    const StrId inner = t.strings.intern("ProfilerStep#99");
    for (Node& n : t.nodes)
        if (t.name(n) == "## LOOP 5 ##") n.name = inner;
    const Report r = analyze(t);
    ASSERT_EQ(r.iterations.size(), 2u);
    EXPECT_EQ(r.iterations[0].name, "ProfilerStep#5");
    EXPECT_EQ(r.iterations[0].nodes, 9u);
}

TEST(AnalyzeTime, ExclusiveTimeIsChargedToTheTopLevelOperator) {
    // Give every node of the pt2 trace 1 us of exclusive time: each category
    // then gets one microsecond per node charged to it. The two compiled
    // regions hold 6 nodes each (region, CompiledFunction, Dynamo labels,
    // aten::mm, the Triton kernel), all charged to "fused"; the other 8 nodes
    // (root, thread, steps, loop labels, cache lookups) have no operator above them.
    MIMIC_REQUIRE_TRACE("pytorch/pt2/pt2_et.json");
    Trace t = load_trace(testing::trace_path("pytorch/pt2/pt2_et.json"));
    t.timing.assign(t.nodes.size(), NodeTiming{});
    for (NodeTiming& timing : t.timing) {
        timing.start_us = 0;
        timing.duration_us = 1;
        timing.self_us = 1;
    }
    const Report r = analyze(t);
    EXPECT_TRUE(r.timed);
    EXPECT_EQ(r.time_source, "profile");
    EXPECT_DOUBLE_EQ(r.total_self_us, 20);
    EXPECT_DOUBLE_EQ(r.category(OpCategory::Fused).self_us, 12);
    EXPECT_DOUBLE_EQ(r.category(OpCategory::Aten).self_us, 0);  // aten::mm runs inside a fused region
    EXPECT_DOUBLE_EQ(r.category(OpCategory::Label).self_us, 8);
    ASSERT_EQ(r.iterations.size(), 2u);
    EXPECT_TRUE(r.iterations[0].timed);
    EXPECT_DOUBLE_EQ(r.iterations[0].duration_us, 1);
}

TEST(AnalyzeTime, ChakraDurationsAreTheNodesOwn) {
    // Sums of duration_micros over the feeder sample's nodes, from the varint
    // decoder: 381,795 us in all; 50,941 on aten ops; 1,311 on host pieces of
    // c10d ops plus 36,715 on NCCL kernels; 292,828 on other device nodes.
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    const Report r = analyze(load_trace(testing::trace_path("chakra/feeder_sample.0.et")));
    EXPECT_TRUE(r.timed);
    EXPECT_EQ(r.time_source, "chakra");
    EXPECT_DOUBLE_EQ(r.total_self_us, 381795);
    EXPECT_DOUBLE_EQ(r.category(OpCategory::Aten).self_us, 50941);
    EXPECT_DOUBLE_EQ(r.category(OpCategory::Communication).self_us, 1311 + 36715);
    EXPECT_DOUBLE_EQ(r.category(OpCategory::Device).self_us, 292828);
    // Sorted busiest first.
    for (size_t i = 1; i < r.operators_by_time.size(); ++i)
        EXPECT_GE(r.operators_by_time[i - 1].self_us, r.operators_by_time[i].self_us);
}

TEST(AnalyzeReplay, OracleDecidesForSchemasAndIsAskedOncePerSchema) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    const Trace t = load_trace(testing::trace_path("pytorch/linear_et.json.gz"));
    size_t asked = 0;
    AnalysisOptions options;
    // An oracle that knows only aten::relu.
    options.oracle = [&](std::string_view schema) {
        ++asked;
        return schema.substr(0, 11) == "aten::relu(";
    };
    const Report r = analyze(t, options);
    EXPECT_TRUE(r.replay.kernels_checked);
    // The Python walk: 320 top-level operators, 21 of them aten::relu, under
    // 16 distinct schemas (aten::t 83, aten::zero_ 42, aten::add_ 42, aten::mm 41, ...).
    EXPECT_EQ(r.replay.total, 320u);
    EXPECT_EQ(r.replay.replayable, 21u);
    EXPECT_EQ(r.replay.not_registered, 299u);
    EXPECT_EQ(asked, 16u);
    ASSERT_FALSE(r.replay.blockers.empty());
    EXPECT_EQ(r.replay.blockers[0].first, "aten::t");
    EXPECT_EQ(r.replay.blockers[0].second, 83u);
}

TEST(AnalyzeMerge, RanksAddUpAndKeepTheirCollectives) {
    const std::string dir = "chakra/microbench/all_reduce/all_reduce.";
    std::vector<Report> reports;
    for (int rank = 0; rank < 4; ++rank) {
        const std::string file = dir + std::to_string(rank) + ".et";
        MIMIC_REQUIRE_TRACE(file);
        reports.push_back(analyze(load_trace(testing::trace_path(file))));
    }
    const Report m = merge_reports(std::move(reports));
    EXPECT_EQ(m.inputs.size(), 4u);
    EXPECT_EQ(m.nodes, 4u);
    // One COMM_COLL node per rank, is_cpu_op false: communication, not a host operator.
    EXPECT_EQ(m.category(OpCategory::Communication).count, 4u);
    EXPECT_EQ(m.operators, 0u);
    ASSERT_EQ(m.collectives.size(), 4u);
    for (int rank = 0; rank < 4; ++rank) {
        const CollectiveStats& c = m.collectives[rank];
        EXPECT_EQ(c.rank, rank);
        EXPECT_EQ(c.collective, "all_reduce");
        EXPECT_EQ(c.count, 1u);
        EXPECT_EQ(c.total_bytes, 1048576u);  // comm_size varint 0x80 0x80 0x40 = 2^20
    }
    EXPECT_EQ(m.schema_version, "0.0.4");
}

}  // namespace
}  // namespace mimic::analysis

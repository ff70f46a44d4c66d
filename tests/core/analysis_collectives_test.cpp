// Collectives found in the real traces, per process group and rank, with the
// message sizes derived independently of mimic.
#include "analysis/collectives.h"

#include <gtest/gtest.h>

#include "analysis/comm_values.h"
#include "analysis/report.h"
#include "io/trace_loader.h"
#include "recorded_et_samples.h"
#include "test_support.h"

namespace mimic::analysis {
namespace {

const CollectiveStats* find(const std::vector<CollectiveStats>& all, const std::string& collective) {
    for (const CollectiveStats& c : all)
        if (c.collective == collective) return &c;
    return nullptr;
}

// The three ResNet traces record the same DDP run in schemas 1.0.3, 1.1.0 and
// 1.1.1: 15 all-reduces and 6 broadcasts on the default group "0". Sizes from
// a Python pass over record_param_comms: the tensors of its first input
// (numel * itemsize), which for 1.1.x equals in_msg_nelems * dtype size (the
// script asserts it): all-reduce 306,684,384 B in all, 31,502,336 B at most;
// broadcast 638,712 B, at most 212,480 B.
class ResnetCollectives : public ::testing::TestWithParam<const char*> {};

TEST_P(ResnetCollectives, AllReduceAndBroadcastOnTheDefaultGroup) {
    MIMIC_REQUIRE_TRACE(GetParam());
    const Report r = analyze(load_trace(testing::trace_path(GetParam())));
    ASSERT_EQ(r.collectives.size(), 2u);
    const CollectiveStats* ar = find(r.collectives, "all_reduce");
    const CollectiveStats* bc = find(r.collectives, "broadcast");
    ASSERT_NE(ar, nullptr);
    ASSERT_NE(bc, nullptr);
    EXPECT_EQ(ar->pg_name, "0");
    EXPECT_EQ(ar->pg_desc, "default_pg");
    EXPECT_EQ(ar->count, 15u);
    EXPECT_EQ(ar->total_bytes, 306684384u);
    EXPECT_EQ(ar->max_bytes, 31502336u);
    EXPECT_EQ(ar->unknown_size, 0u);
    EXPECT_EQ(bc->count, 6u);
    EXPECT_EQ(bc->total_bytes, 638712u);
    EXPECT_EQ(bc->max_bytes, 212480u);
    EXPECT_EQ(bc->rank, -1);  // an ET alone does not say its rank
}

INSTANTIATE_TEST_SUITE_P(Shared, ResnetCollectives,
                         ::testing::Values("pytorch/resnet_1gpu_et_1.0.3.json.gz", "pytorch/resnet_et.json.gz",
                                           "pytorch/resnet_1gpu_et_1.1.1.json.gz"));

TEST(Collectives, ChakraSample102NamesItsGroupByPointer) {
    // Schema 1.0.2: record_param_comms gives the group as the backend's
    // address (82149104), and the process_group:init label lists one group,
    // "0" over 2 ranks. 10 all_gather calls of one float each (4 B), found under
    // c10d::allgather_; the 10 "wait" calls are not collectives.
    MIMIC_REQUIRE_TRACE("pytorch/chakra_sample_1.0.2.json.gz");
    const Report r = analyze(load_trace(testing::trace_path("pytorch/chakra_sample_1.0.2.json.gz")));
    ASSERT_EQ(r.process_groups.size(), 1u);
    EXPECT_EQ(r.process_groups[0].name, "0");
    EXPECT_EQ(r.process_groups[0].size, 2);
    ASSERT_EQ(r.collectives.size(), 1u);
    const CollectiveStats& c = r.collectives[0];
    EXPECT_EQ(c.collective, "all_gather");
    EXPECT_EQ(c.pg_name, "0");
    EXPECT_EQ(c.count, 10u);
    EXPECT_EQ(c.total_bytes, 40u);
    EXPECT_EQ(c.max_bytes, 4u);
}

TEST(Collectives, ChakraFeederCountsTheNcclKernelsOnce) {
    // The feeder sample writes each collective as host pieces
    // "c10d::allreduce_(0)", "(1)" and an NCCL kernel node carrying comm_type
    // and comm_size. From the varint decoder: comm_type 0 (all-reduce) on 5
    // nodes, comm_size summing to 102,228,128 (max 31,502,336); comm_type 5
    // (broadcast) on 2 nodes, 212,904 (max 212,480). Their duration_micros
    // sum to 36,715.
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    const Report r = analyze(load_trace(testing::trace_path("chakra/feeder_sample.0.et")));
    ASSERT_EQ(r.collectives.size(), 2u);
    const CollectiveStats* ar = find(r.collectives, "all_reduce");
    const CollectiveStats* bc = find(r.collectives, "broadcast");
    ASSERT_TRUE(ar && bc);
    EXPECT_EQ(ar->count, 5u);
    EXPECT_EQ(ar->total_bytes, 102228128u);
    EXPECT_EQ(ar->max_bytes, 31502336u);
    EXPECT_EQ(bc->count, 2u);
    EXPECT_EQ(bc->total_bytes, 212904u);
    EXPECT_EQ(bc->max_bytes, 212480u);
    EXPECT_DOUBLE_EQ(ar->total_us + bc->total_us, 36715);
    EXPECT_EQ(ar->rank, 0);  // from the file name feeder_sample.0.et
}

TEST(Collectives, MicrobenchmarksOneCollectivePerRank) {
    // astra-sim's 4-rank microbenchmarks: one COMM_COLL node per rank with
    // comm_type (all_gather 2, all_reduce 0, all_to_all 6, reduce_scatter 7)
    // and comm_size 1 MiB (varint 80 80 40).
    const std::pair<const char*, const char*> kCases[] = {{"all_gather", "all_gather"},
                                                          {"all_reduce", "all_reduce"},
                                                          {"all_to_all", "all_to_all"},
                                                          {"reduce_scatter", "reduce_scatter"}};
    for (const auto& [dir, collective] : kCases) {
        for (int rank = 0; rank < 4; ++rank) {
            const std::string file = std::string("chakra/microbench/") + dir + "/" + dir + "." + std::to_string(rank) + ".et";
            MIMIC_REQUIRE_TRACE(file);
            const Report r = analyze(load_trace(testing::trace_path(file)));
            ASSERT_EQ(r.collectives.size(), 1u) << file;
            EXPECT_EQ(r.collectives[0].collective, collective) << file;
            EXPECT_EQ(r.collectives[0].rank, rank) << file;
            EXPECT_EQ(r.collectives[0].count, 1u) << file;
            EXPECT_EQ(r.collectives[0].total_bytes, 1048576u) << file;
        }
    }
}

// PyTorch 1.13 with Gloo records the c10d:: dispatcher op alone, no
// record_param_comms below it. The same real nodes with their
// record_param_comms renamed away read that way: sizes then come from the
// op's own input argument, found by name in its schema.
Trace without_param_comms(const std::string& file) {
    Trace t = load_trace(testing::trace_path(file));
    const StrId other = t.strings.intern("some_label");
    for (Node& n : t.nodes)
        if (t.name(n) == "record_param_comms") n.name = other;
    return t;
}

TEST(Collectives, DispatcherOpsAloneAsPyTorch113WritesThem) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const Report r = analyze(without_param_comms("pytorch/resnet_et.json.gz"));
    const CollectiveStats* ar = find(r.collectives, "all_reduce");
    const CollectiveStats* bc = find(r.collectives, "broadcast");
    ASSERT_TRUE(ar && bc);
    // c10d::allreduce_(Tensor[] tensors, ...): the same tensors record_param_comms lists.
    EXPECT_EQ(ar->count, 15u);
    EXPECT_EQ(ar->total_bytes, 306684384u);
    EXPECT_EQ(bc->count, 6u);
    EXPECT_EQ(bc->total_bytes, 638712u);
    // The group object is opaque there: the call goes on the trace's default group.
    EXPECT_EQ(ar->pg_name, "0");

    // c10d::allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, ...):
    // the input is the second argument, one float (4 B); the outputs are two.
    MIMIC_REQUIRE_TRACE("pytorch/chakra_sample_1.0.2.json.gz");
    const Report ag = analyze(without_param_comms("pytorch/chakra_sample_1.0.2.json.gz"));
    ASSERT_EQ(ag.collectives.size(), 1u);
    EXPECT_EQ(ag.collectives[0].collective, "all_gather");
    EXPECT_EQ(ag.collectives[0].count, 10u);
    EXPECT_EQ(ag.collectives[0].total_bytes, 40u);
}

// PyTorch 1.13 + Gloo, as recorded by `mimic record --workload ddp_mlp
// --nproc 2` (nodes trimmed to the ones that matter, fields verbatim): the
// gloo:all_reduce label of DDP's second bucket opens when the work is queued
// and closes on Gloo's thread, so the ET files the next bucket's
// AccumulateGrad and its c10d::allreduce_ under it. That allreduce is a call of
// its own, and the AccumulateGrad is a top-level operator.
TEST(Collectives, CallsFiledUnderAnAsyncGlooLabelCountOnce) {
    const char* et = R"ET({"schema": "1.0.1", "pid": 30945, "time": "2026-11-22 00:22:06", "nodes": [
{"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 2, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "ProfilerStep#3", "id": 8, "rf_id": 8, "parent": 2, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "id": 529, "rf_id": 529, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "c10d::allreduce_", "id": 540, "rf_id": 540, "parent": 529, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "c10d::allreduce_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, __torch__.torch.classes.c10d.ReduceOp _2, int _3) -> (Tensor[] _0, __torch__.torch.classes.c10d.Work _1)", "inputs": [[[539, 300, 0, 265738, 4, "cpu"]], "<Object>", "<Object>", -1], "input_shapes": [[[265738]], [], [], []], "input_types": ["GenericList[Tensor(float)]", "Object", "Object", "Int"], "outputs": [[[539, 300, 0, 265738, 4, "cpu"]], "<Object>"], "output_shapes": [[[265738]], []], "output_types": ["GenericList[Tensor(float)]", "Object"]},
{"name": "gloo:all_reduce", "id": 601, "rf_id": 601, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [[596, 572, 0, 65792, 4, "cpu"]], "input_shapes": [[65792]], "input_types": ["Tensor(float)"], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad", "id": 643, "rf_id": 643, "parent": 601, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "c10d::allreduce_", "id": 654, "rf_id": 654, "parent": 643, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "c10d::allreduce_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, __torch__.torch.classes.c10d.ReduceOp _2, int _3) -> (Tensor[] _0, __torch__.torch.classes.c10d.Work _1)", "inputs": [[[653, 630, 0, 65792, 4, "cpu"]], "<Object>", "<Object>", -1], "input_shapes": [[[65792]], [], [], []], "input_types": ["GenericList[Tensor(float)]", "Object", "Object", "Int"], "outputs": [[[653, 630, 0, 65792, 4, "cpu"]], "<Object>"], "output_shapes": [[[65792]], []], "output_types": ["GenericList[Tensor(float)]", "Object"]}
]})ET";
    const std::string path = testing::scratch_file("gloo_async_label", "et.json", et);
    const Report r = analyze(load_trace(path));
    const CollectiveStats* ar = find(r.collectives, "all_reduce");
    ASSERT_NE(ar, nullptr);
    EXPECT_EQ(ar->count, 2u);
    EXPECT_EQ(ar->total_bytes, (265738u + 65792u) * 4u);
    EXPECT_EQ(ar->max_bytes, 265738u * 4u);
    // Top-level: the gloo:all_reduce label and both c10d ops (the AccumulateGrad
    // wrappers are labels).
    EXPECT_EQ(r.top_level_operators, 3u);
}

// PyTorch 1.13 + Gloo, rank 2 of `mimic record --workload ddp_mlp --nproc 4`
// (nodes trimmed, fields verbatim): the observer left the first bucket's
// c10d::allreduce_ "open" and filed the rest of backward under it, the next
// bucket's all-reduce and an AccumulateGrad's aten::add_ included. A c10d op
// owns only its own records: both all-reduces count, and aten::add_ is a
// top-level operator.
TEST(Collectives, CallsFiledUnderAnotherC10dOpCountOnce) {
    const char* et = testing::kEtOpsFiledUnderAC10dOp;
    const std::string path = testing::scratch_file("c10d_nesting", "et.json", et);
    const Report r = analyze(load_trace(path));
    const CollectiveStats* ar = find(r.collectives, "all_reduce");
    ASSERT_NE(ar, nullptr);
    EXPECT_EQ(ar->count, 2u);
    EXPECT_EQ(ar->total_bytes, (265738u + 65792u) * 4u);
    EXPECT_EQ(r.top_level_operators, 3u);
}

TEST(Collectives, AC10dOpFiledUnderAnAtenOpIsItsOwnTopLevelOperator) {
    const std::string et = testing::et_with_a_c10d_op_filed_under_an_aten_op();
    ASSERT_FALSE(et.empty());
    const std::string path = testing::scratch_file("c10d_under_aten", "et.json", et);
    const Report r = analyze(load_trace(path));
    const CollectiveStats* ar = find(r.collectives, "all_reduce");
    ASSERT_NE(ar, nullptr);
    EXPECT_EQ(ar->count, 2u);
    EXPECT_EQ(r.top_level_operators, 4u);  // 589, 640, 645 and 648: no ATen op calls a collective
}

TEST(Collectives, TracesWithoutCommunicationHaveNone) {
    for (const char* file : {"pytorch/linear_et.json.gz", "pytorch/pt2/pt2_et.json"}) {
        MIMIC_REQUIRE_TRACE(file);
        EXPECT_TRUE(analyze(load_trace(testing::trace_path(file))).collectives.empty()) << file;
    }
}

TEST(CommValues, CollectiveNamesHaveOneSpelling) {
    EXPECT_EQ(normalize_collective_name("allreduce"), "all_reduce");
    EXPECT_EQ(normalize_collective_name("c10d::allreduce_"), "all_reduce");
    EXPECT_EQ(normalize_collective_name("nccl:all_reduce"), "all_reduce");
    EXPECT_EQ(normalize_collective_name("c10d::allgather_(0)"), "all_gather");
    EXPECT_EQ(normalize_collective_name("_allgather_base"), "all_gather");
    EXPECT_EQ(normalize_collective_name("c10d::_reduce_scatter_base_"), "reduce_scatter");
    EXPECT_EQ(normalize_collective_name("alltoall_base"), "all_to_all");
    EXPECT_EQ(normalize_collective_name("gloo:broadcast"), "broadcast");
    EXPECT_EQ(normalize_collective_name("c10d::reduce_"), "reduce");
    EXPECT_EQ(normalize_collective_name("c10d::gather_"), "gather");
    EXPECT_EQ(normalize_collective_name("c10d::barrier"), "barrier");
    EXPECT_EQ(normalize_collective_name("c10d::send"), "send");
    EXPECT_EQ(normalize_collective_name("Mystery_Op"), "mystery_op");
    EXPECT_EQ(chakra_comm_type_name(0), "all_reduce");
    EXPECT_EQ(chakra_comm_type_name(9), "barrier");
    EXPECT_EQ(chakra_comm_type_name(10), "");
    EXPECT_EQ(chakra_comm_type_name(-1), "");
}

TEST(CommValues, DtypeSizes) {
    EXPECT_EQ(dtype_size_bytes("Float"), 4u);
    EXPECT_EQ(dtype_size_bytes("BFloat16"), 2u);
    EXPECT_EQ(dtype_size_bytes("Long"), 8u);
    EXPECT_EQ(dtype_size_bytes("Byte"), 1u);
    EXPECT_EQ(dtype_size_bytes("ComplexDouble"), 16u);
    EXPECT_FALSE(dtype_size_bytes("float").has_value());
    EXPECT_FALSE(dtype_size_bytes("").has_value());
}

TEST(CommValues, SchemaArgumentNames) {
    // Schemas as the traces write them.
    const auto names = schema_argument_names(
        "c10d::allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, "
        "__torch__.torch.classes.c10d.ProcessGroup process_group, int timeout) -> (Tensor[][], "
        "__torch__.torch.classes.c10d.Work)");
    ASSERT_EQ(names.size(), 4u);
    EXPECT_EQ(names[0], "output_tensors");
    EXPECT_EQ(names[1], "input_tensors");
    EXPECT_EQ(names[3], "timeout");
    const auto mm = schema_argument_names("aten::mm.out(Tensor self, Tensor mat2, *, Tensor(a!) out) -> Tensor(a!)");
    ASSERT_EQ(mm.size(), 3u);
    EXPECT_EQ(mm[2], "out");
    const auto defaults = schema_argument_names(
        "aten::_foreach_add_.List(Tensor(a!)[] self, Tensor[] other, *, Scalar alpha=1) -> ()");
    ASSERT_EQ(defaults.size(), 3u);
    EXPECT_EQ(defaults[2], "alpha");
    const auto list_default = schema_argument_names("aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor");
    ASSERT_EQ(list_default.size(), 4u);
    EXPECT_EQ(list_default[1], "dim");
    EXPECT_TRUE(schema_argument_names("aten::empty").empty());
    EXPECT_TRUE(schema_argument_names("aten::bad(Tensor self").empty());
    EXPECT_TRUE(schema_argument_names("aten::nothing() -> ()").empty());
}

}  // namespace
}  // namespace mimic::analysis

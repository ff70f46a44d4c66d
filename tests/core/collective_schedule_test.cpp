// The calls a multi-rank replay issues, read from real traces of both
// dialects. Expected values come from Python passes over the JSON (quoted).
#include "analysis/collective_schedule.h"

#include <gtest/gtest.h>

#include "io/trace_loader.h"
#include "test_support.h"

namespace mimic::analysis {
namespace {

std::vector<ScheduledCollective> schedule_of(const Trace& t, const std::vector<PythonCollective>& py = {}) {
    return schedule_collectives(t, t.execution_order(), py);
}

TEST(CollectiveSchedule, ResnetDdpCallsWithGroupsRootsAndWaits) {
    // PyTorch 2.x DDP, 3 iterations: per iteration c10d::broadcast_ of 53120
    // floats and of 53 longs (root 0), each followed later by a standalone
    // record_param_comms "wait" with the same sequence number (47 and 48 in
    // the first), then 5 c10d::allreduce_ (2049000, 7875584, 6563840,
    // 6637568, 2431040 floats) on group "0"; nccl:* labels sit under
    // record_param_comms and are not calls of their own.
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const Trace t = load_trace(testing::trace_path("pytorch/resnet_et.json.gz"));
    const auto calls = schedule_of(t);
    ASSERT_EQ(calls.size(), 27u);
    const uint64_t allreduce_elems[] = {2049000, 7875584, 6563840, 6637568, 2431040};
    size_t waits = 0, reduces = 0, broadcasts = 0;
    for (const ScheduledCollective& c : calls) {
        if (c.kind == CommKind::Wait) {
            ++waits;
            EXPECT_GE(c.seq, 0);
            continue;
        }
        EXPECT_EQ(c.pg_name, "0");
        EXPECT_FALSE(c.waits_at_once);
        if (c.type == CollectiveType::Broadcast) {
            EXPECT_EQ(c.root, 0);
            EXPECT_EQ(c.input_bytes, broadcasts % 2 == 0 ? 53120u * 4 : 53u * 8);
            ++broadcasts;
        } else {
            ASSERT_EQ(c.type, CollectiveType::AllReduce);
            EXPECT_EQ(c.input_bytes, allreduce_elems[reduces % 5] * 4);
            EXPECT_EQ(c.inputs, c.outputs);  // in place
            ++reduces;
        }
    }
    EXPECT_EQ(broadcasts, 6u);
    EXPECT_EQ(reduces, 15u);
    EXPECT_EQ(waits, 6u);
    // The first wait names the first broadcast's sequence number.
    EXPECT_EQ(calls[0].seq, 47);
    EXPECT_EQ(calls[2].kind, CommKind::Wait);
    EXPECT_EQ(calls[2].seq, 47);
}

TEST(CollectiveSchedule, AllGatherPutsOutputsFirst) {
    // Schema 1.0.2: c10d::allgather_(Tensor[][] output_tensors, Tensor[] input_tensors, ...):
    // two 1-float outputs, one 1-float input; 10 calls and 10 "wait" records.
    MIMIC_REQUIRE_TRACE("pytorch/chakra_sample_1.0.2.json.gz");
    const Trace t = load_trace(testing::trace_path("pytorch/chakra_sample_1.0.2.json.gz"));
    const auto calls = schedule_of(t);
    size_t gathers = 0, waits = 0;
    for (const ScheduledCollective& c : calls) {
        if (c.kind == CommKind::Wait) {
            ++waits;
            continue;
        }
        ASSERT_EQ(c.type, CollectiveType::AllGather);
        EXPECT_EQ(c.outputs.size(), 2u);
        EXPECT_EQ(c.inputs.size(), 1u);
        EXPECT_EQ(c.input_bytes, 4u);
        EXPECT_EQ(c.output_bytes, 8u);
        ++gathers;
    }
    EXPECT_EQ(gathers, 10u);
    EXPECT_EQ(waits, 10u);
}

// PyTorch 1.13 + Gloo, as `mimic record --workload dlrm_dist --nproc 2`
// writes it (nodes trimmed, fields verbatim): all_to_all_single bypasses the
// dispatcher and leaves only gloo:all_to_all; the dense all_reduce is a
// c10d::allreduce_ followed by its gloo:all_reduce label. meta.json's Python
// calls give the groups ("0" for the all_to_all, "1" for the all_reduce) and
// the all_to_all's splits.
TEST(CollectiveSchedule, GlooLabelsAloneArePythonCallsMatchedInOrder) {
    const char* et = R"ET({"schema": "1.0.1", "pid": 1, "time": "2026-11-22 00:00:00", "nodes": [
{"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 0, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "ProfilerStep#3", "id": 8, "rf_id": 4, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "gloo:all_to_all", "id": 94, "rf_id": 60, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [[93, 233, 0, 65536, 4, "cpu"]], "input_shapes": [[65536]], "input_types": ["Tensor(float)"], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "c10d::allreduce_", "id": 130, "rf_id": 90, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "c10d::allreduce_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, __torch__.torch.classes.c10d.ReduceOp _2, int _3) -> (Tensor[] _0, __torch__.torch.classes.c10d.Work _1)", "inputs": [[[129, 7408, 0, 29281, 4, "cpu"]], "<Object>", "<Object>", -1], "input_shapes": [[[29281]], [], [], []], "input_types": ["GenericList[Tensor(float)]", "Object", "Object", "Int"], "outputs": [[[129, 7408, 0, 29281, 4, "cpu"]], "<Object>"], "output_shapes": [[[29281]], []], "output_types": ["GenericList[Tensor(float)]", "Object"]},
{"name": "gloo:all_reduce", "id": 131, "rf_id": 91, "parent": 8, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [[129, 7408, 0, 29281, 4, "cpu"]], "input_shapes": [[29281]], "input_types": ["Tensor(float)"], "outputs": [], "output_shapes": [], "output_types": []}
]})ET";
    const std::string path = testing::scratch_file("schedule_gloo_labels", "et.json", et);
    const Trace t = load_trace(path);
    std::vector<PythonCollective> py(2);
    py[0].op = "all_to_all_single";
    py[0].pg_name = "0";
    py[0].input_split_sizes = {32768, 32768};
    py[0].output_split_sizes = {32768, 32768};
    py[1].op = "all_reduce";
    py[1].pg_name = "1";
    py[1].reduce_op = "MAX";
    const auto calls = schedule_of(t, py);
    ASSERT_EQ(calls.size(), 2u);
    EXPECT_EQ(calls[0].type, CollectiveType::AllToAll);
    EXPECT_EQ(calls[0].op_name, "gloo:all_to_all");
    EXPECT_EQ(calls[0].pg_name, "0");
    EXPECT_EQ(calls[0].input_splits, (std::vector<int64_t>{32768, 32768}));
    EXPECT_EQ(calls[0].input_bytes, 65536u * 4);
    EXPECT_TRUE(calls[0].waits_at_once);
    EXPECT_EQ(calls[1].type, CollectiveType::AllReduce);
    EXPECT_EQ(calls[1].op_name, "c10d::allreduce_");
    EXPECT_EQ(calls[1].pg_name, "1");
    EXPECT_EQ(calls[1].reduce_op, "MAX");
    EXPECT_EQ(calls[1].input_bytes, 29281u * 4);

    // Without meta.json: the default group, and the label's call still waits at once.
    const auto bare = schedule_of(t);
    ASSERT_EQ(bare.size(), 2u);
    EXPECT_EQ(bare[0].pg_name, "");
    EXPECT_TRUE(bare[0].input_splits.empty());
    EXPECT_FALSE(bare[1].waits_at_once);
    EXPECT_EQ(bare[1].reduce_op, "SUM");
}

TEST(CollectiveSchedule, BusBandwidthFactors) {
    EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveType::AllReduce, 4), 1.5);
    EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveType::AllGather, 4), 0.75);
    EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveType::AllToAll, 2), 0.5);
    EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveType::Broadcast, 8), 1.0);
    EXPECT_DOUBLE_EQ(bus_bandwidth_factor(CollectiveType::AllReduce, 1), 0.0);  // nothing crosses a wire
}

TEST(CollectiveSchedule, TracesWithoutCommunicationHaveNone) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    EXPECT_TRUE(schedule_of(load_trace(testing::trace_path("pytorch/linear_et.json.gz"))).empty());
}

}  // namespace
}  // namespace mimic::analysis

// The prediction models: cost database round trip and refusal of other
// formats, the cost model's measured / family / fallback answers, the GEMM
// rate curve, device specs (every field checked), and the GPU kernel
// estimate on a real GPU trace.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>

#include "io/kineto/kineto_devices.h"
#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "model/cost_db.h"
#include "model/cost_model.h"
#include "model/device_spec.h"
#include "model/gpu_estimate.h"
#include "model/predictor.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic::model {
namespace {

std::string message_of(const std::function<void()>& f) { return testing::error_message_of(f); }

OpCost cost(const std::string& sig, const std::string& name, int64_t flops, uint64_t bytes, double us) {
    OpCost c;
    c.signature = sig;
    c.name = name;
    c.family = family_of(name);
    c.flops = flops;
    c.bytes = bytes;
    c.time_us = us;
    c.samples = 5;
    c.threads = 1;
    return c;
}

TEST(Model, FamiliesOfCommonOps) {
    EXPECT_EQ(family_of("aten::addmm"), OpFamily::Gemm);
    EXPECT_EQ(family_of("aten::convolution_backward"), OpFamily::Conv);
    EXPECT_EQ(family_of("aten::embedding_bag"), OpFamily::Embedding);
    EXPECT_EQ(family_of("aten::native_layer_norm"), OpFamily::Norm);
    EXPECT_EQ(family_of("aten::_log_softmax"), OpFamily::Softmax);
    EXPECT_EQ(family_of("aten::add_"), OpFamily::Optimizer);
    EXPECT_EQ(family_of("aten::view"), OpFamily::View);
    EXPECT_EQ(family_of("aten::relu"), OpFamily::Elementwise);
    EXPECT_EQ(family_of("aten::sum"), OpFamily::Reduction);
    EXPECT_EQ(family_of("my_lib::fused_thing"), OpFamily::Other);
}

TEST(Model, CostDbRoundTripsAndRefusesOtherFiles) {
    CostDb db;
    db.host.python_op_us = 4.5;
    db.host.autograd_op_us = 2.25;
    db.host.fitted_on = {"rec/mlp"};
    db.add(cost("aten::mm(float[4,4],float[4,4])", "aten::mm", 128, 192, 3.5));
    const std::string path = testing::scratch_dir("model") + "/costs.db";
    write_cost_db(db, path);
    const CostDb back = read_cost_db(path);
    ASSERT_EQ(back.ops.size(), 1u);
    const OpCost& c = back.ops.begin()->second;
    EXPECT_EQ(c.family, OpFamily::Gemm);
    EXPECT_EQ(c.flops, 128);
    EXPECT_DOUBLE_EQ(c.time_us, 3.5);
    EXPECT_DOUBLE_EQ(back.host.autograd_op_us, 2.25);
    EXPECT_TRUE(back.host.fitted());

    const std::string other = testing::scratch_file("model", "other.json", R"({"format": "something", "version": 1, "ops": []})");
    EXPECT_NE(message_of([&] { read_cost_db(other); }).find("not a mimic cost database"), std::string::npos);
    const std::string future = testing::scratch_file("model", "future.json", R"({"format": "mimic-costs", "version": 99, "ops": []})");
    EXPECT_NE(message_of([&] { read_cost_db(future); }).find("version 99"), std::string::npos);
}

TEST(Model, MeasuredThenFamilyThenFallback) {
    CostDb db;
    // A GEMM rate that grows with size: 1 FLOP/ns at 2^20 FLOPs, 4 at 2^26.
    db.add(cost("a", "aten::mm", 1 << 20, 0, (1 << 20) / 1000.0));
    db.add(cost("b", "aten::mm", 1 << 26, 0, (1 << 26) / 4000.0));
    // Elementwise: 1 us fixed plus 1 GB/s (1000 bytes per us).
    for (int k = 0; k < 8; ++k) db.add(cost("e" + std::to_string(k), "aten::relu", -1, 1000u << k, 1.0 + (1000u << k) / 1000.0));
    const CostModel m(db, 1);

    OpFacts hit{"aten::mm", "a", 1 << 20, 0};
    EXPECT_EQ(m.estimate(hit).source, CostSource::Measured);
    EXPECT_DOUBLE_EQ(m.estimate(hit).time_us, (1 << 20) / 1000.0);

    // Halfway in log FLOPs: the rate's geometric mean, 2 FLOP/ns.
    OpFacts mid{"aten::addmm", "unseen", 1 << 23, 0};
    const CostEstimate e = m.estimate(mid);
    EXPECT_EQ(e.source, CostSource::FamilyModel);
    EXPECT_NEAR(e.time_us, (1 << 23) / 2000.0, 1e-6 * e.time_us);

    OpFacts relu{"aten::sigmoid", "unseen2", -1, 64000};
    const CostEstimate r = m.estimate(relu);
    EXPECT_EQ(r.source, CostSource::FamilyModel);
    EXPECT_GT(r.time_us, 30);  // about 1 + 64 us
    EXPECT_LT(r.time_us, 100);

    OpFacts odd{"my_lib::fused_thing", "unseen3", -1, 10};
    EXPECT_EQ(m.estimate(odd).source, CostSource::Fallback);

    // At another thread count nothing of these is known.
    EXPECT_EQ(CostModel(db, 2).estimate(hit).source, CostSource::Fallback);
}

// Outputs on an input's storage: to() of the dtype the tensor has returns it
// (moves nothing), add_ writes it (its bytes once more, no new memory), clone
// writes new memory.
TEST(Model, OutputsOnAnInputsStorageAreNotNewMemory) {
    const char* et = R"ET({"schema": "1.0.1", "pid": 1, "time": "2026-11-26 00:00:00", "nodes": [
{"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "aten::to", "id": 2, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, MemoryFormat? memory_format=None) -> Tensor(a)", "inputs": [[10, 20, 0, 262144, 4, "cpu"], 6, false, false, "<None>"], "input_shapes": [[512, 512], [], [], [], []], "input_types": ["Tensor(float)", "Int", "Bool", "Bool", "None"], "outputs": [[10, 20, 0, 262144, 4, "cpu"]], "output_shapes": [[512, 512]], "output_types": ["Tensor(float)"]},
{"name": "aten::add_", "id": 3, "rf_id": 2, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)", "inputs": [[10, 20, 0, 262144, 4, "cpu"], [11, 21, 0, 262144, 4, "cpu"], 1], "input_shapes": [[512, 512], [512, 512], []], "input_types": ["Tensor(float)", "Tensor(float)", "Int"], "outputs": [[10, 20, 0, 262144, 4, "cpu"]], "output_shapes": [[512, 512]], "output_types": ["Tensor(float)"]},
{"name": "aten::clone", "id": 4, "rf_id": 3, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "aten::clone(Tensor self, *, MemoryFormat? memory_format=None) -> Tensor", "inputs": [[10, 20, 0, 262144, 4, "cpu"], "<None>"], "input_shapes": [[512, 512], []], "input_types": ["Tensor(float)", "None"], "outputs": [[12, 22, 0, 262144, 4, "cpu"]], "output_shapes": [[512, 512]], "output_types": ["Tensor(float)"]}
]})ET";
    const Trace t = load_trace(testing::scratch_file("model_aliases", "et.json", et));
    auto facts = [&](uint64_t id) { return op_facts(t, t.nodes[t.find(NodeId{id}).value]); };
    constexpr uint64_t kMiB = 262144 * 4;
    const OpFacts to = facts(2), add = facts(3), clone = facts(4);
    EXPECT_TRUE(to.moves_nothing);
    EXPECT_EQ(to.bytes, 0u);
    EXPECT_EQ(to.output_bytes, 0u);
    EXPECT_FALSE(add.moves_nothing);
    EXPECT_EQ(add.output_bytes, 0u);
    EXPECT_EQ(add.bytes, 3 * kMiB);  // two read, one written
    EXPECT_FALSE(clone.moves_nothing);
    EXPECT_EQ(clone.output_bytes, kMiB);
    EXPECT_EQ(clone.bytes, 2 * kMiB);

    // Unmeasured, the to() that moved nothing costs a call (the view's model),
    // not what to()'s own points say of conversions that copied.
    CostDb db;
    for (int k = 0; k < 4; ++k) db.add(cost("v" + std::to_string(k), "aten::view", -1, 0, 0.5));
    db.add(cost("c1", "aten::to", -1, 1u << 20, 200.0));
    db.add(cost("c2", "aten::to", -1, 4u << 20, 800.0));
    const CostModel m(db, 1);
    EXPECT_LT(m.estimate(to).time_us, 1.0);
    EXPECT_GT(m.estimate(clone).time_us, 10.0);  // a copy of 1 MiB in and out: the copy family's model
}

// An embedding lookup moves the rows its indices name, not its table. In
// param's DLRM (tests/data/param_dlrm), fbgemm's table-batched lookup takes
// every table as one flat [640649648] float tensor (2.5 GB), of which the
// step reads 768 rows (384 bags: 3 tables x 128) into a [128, 48] output;
// counting the table put 217 ms on the op on this machine.
TEST(Model, EmbeddingLookupsCountTheRowsTheyReadNotTheirTables) {
    const Trace t = load_trace(std::string(MIMIC_SOURCE_DIR) + "/tests/data/param_dlrm/dlrm_eg_0.json.gz");
    const OpFacts lookup = op_facts(t, t.nodes[t.find(NodeId{712}).value]);
    // indices (768 x 8 B) and offsets (385 x 8 B), 768 rows of 64 B (the
    // output's bytes per bag), the output.
    EXPECT_LT(lookup.bytes, uint64_t{1} << 20) << lookup.signature;
    EXPECT_GT(lookup.bytes, 768u * 8 + 385 * 8 + lookup.output_bytes) << lookup.signature;
    // A version-1 database counted the table: its lookups stay out of the fits.
    const std::string v1 = testing::scratch_file("model_v1", "costs.db", R"json({"format": "mimic-costs", "version": 1, "ops": [
        {"signature": "aten::embedding(float[100000,64],long int[256],-1,False,False)", "name": "aten::embedding",
         "family": "embedding", "bytes": 25667584, "time_us": 28.0, "threads": 1},
        {"signature": "aten::mm(float[4,4],float[4,4])", "name": "aten::mm", "family": "gemm", "flops": 128, "bytes": 192,
         "time_us": 3.5, "threads": 1}]})json");
    const CostDb db = read_cost_db(v1);
    for (const auto& [key, c] : db.ops) EXPECT_EQ(c.bytes_current, c.family != OpFamily::Embedding) << c.signature;
}

TEST(Model, SweepPointsFillInWhatTheTracesLeaveWithoutPoints) {
    CostDb db;
    // The traces measured relu at two sizes (1 us + 1000 B/us); the sweep
    // measured it slower, cold (10 us fixed), and measured softmax alone.
    db.add(cost("r1", "aten::relu", -1, 1000, 2.0));
    db.add(cost("r2", "aten::relu", -1, 8000, 9.0));
    for (int k = 0; k < 4; ++k) {
        OpCost cold = cost("sr" + std::to_string(k), "aten::relu", -1, 1000u << k, 10.0 + (1000u << k) / 1000.0);
        cold.from_sweep = true;
        db.add(cold);
        OpCost soft = cost("ss" + std::to_string(k), "aten::_softmax", -1, 1000u << k, 3.0 + (1000u << k) / 500.0);
        soft.from_sweep = true;
        db.add(soft);
    }
    const CostModel m(db, 1);
    // relu's own points stand: about 1 + 4 us, not the sweep's 14.
    EXPECT_LT(m.estimate({"aten::relu", "unseen", -1, 4000}).time_us, 8.0);
    // softmax has only the sweep's: it is modelled from them, not a fallback.
    const CostEstimate s = m.estimate({"aten::_softmax", "unseen2", -1, 4000});
    EXPECT_EQ(s.source, CostSource::FamilyModel);
    EXPECT_GT(s.time_us, 5.0);

    const std::string path = testing::scratch_dir("model") + "/sweep_costs.db";
    write_cost_db(db, path);
    const CostDb back = read_cost_db(path);
    EXPECT_TRUE(back.find("ss0", 1)->from_sweep);
    EXPECT_FALSE(back.find("r1", 1)->from_sweep);
}

TEST(Model, DeviceSpecsAreCheckedFieldByField) {
    const std::string good = R"({"name": "X", "match": ["X1"], "peak_tflops": {"fp32": 10, "tf32": 0, "fp16": 20, "bf16": 0},
        "memory_bandwidth_GBps": 500, "achievable_compute": 0.7, "achievable_bandwidth": 0.8, "kernel_overhead_us": 3,
        "interconnect_GBps": 50})";
    const DeviceSpec s = parse_device_spec(good, "x.json");
    EXPECT_DOUBLE_EQ(s.peak_flops_per_s("c10::Half"), 20e12);
    EXPECT_DOUBLE_EQ(s.peak_flops_per_s("float"), 10e12);
    auto broken = [&](const std::string& from, const std::string& to) {
        std::string text = good;
        text.replace(text.find(from), from.size(), to);
        return message_of([&] { parse_device_spec(text, "x.json"); });
    };
    EXPECT_NE(broken("\"memory_bandwidth_GBps\": 500", "\"memory_bandwidth_GBps\": 0").find("memory_bandwidth_GBps"), std::string::npos);
    EXPECT_NE(broken("\"achievable_compute\": 0.7", "\"achievable_compute\": 1.5").find("achievable_compute"), std::string::npos);
    EXPECT_NE(broken("\"fp32\": 10", "\"fp32\": -1").find("peak_tflops.fp32"), std::string::npos);
    EXPECT_NE(broken(", \"kernel_overhead_us\": 3", "").find("kernel_overhead_us"), std::string::npos);
    EXPECT_NE(broken("\"match\": [\"X1\"]", "\"match\": 3").find("match"), std::string::npos);
}

TEST(Model, ShippedDeviceSpecsReadAndMatch) {
    const auto specs = read_device_specs(std::string(MIMIC_SOURCE_DIR) + "/data/devices");
    ASSERT_GE(specs.size(), 5u);
    const DeviceSpec* a100 = match_device(specs, "NVIDIA A100-SXM4-40GB");
    ASSERT_NE(a100, nullptr);
    EXPECT_DOUBLE_EQ(a100->memory_GBps, 1555);
    ASSERT_NE(match_device(specs, "NVIDIA H100 80GB HBM3"), nullptr);
    EXPECT_EQ(match_device(specs, "NVIDIA H100 80GB HBM3")->name, "NVIDIA H100 SXM");
    EXPECT_EQ(match_device(specs, "Some Other GPU"), nullptr);
}

TEST(Model, GpuKernelEstimateOnARealGpuTrace) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_kineto.json.gz");
    const std::string profile = testing::trace_path("pytorch/resnet_kineto.json.gz");
    const auto names = kineto_device_names(profile);
    ASSERT_FALSE(names.empty());
    EXPECT_EQ(names[0], "NVIDIA GeForce RTX 2080 Ti");
    Trace trace = load_trace(testing::trace_path("pytorch/resnet_et.json.gz"));
    link_profile(trace, read_kineto_trace(profile));
    const auto specs = read_device_specs(std::string(MIMIC_SOURCE_DIR) + "/data/devices");
    const DeviceSpec* spec = match_device(specs, names[0]);
    ASSERT_NE(spec, nullptr);
    const GpuEstimate e = estimate_gpu_kernels(trace, *spec);
    EXPECT_GT(e.kernels, 500u);
    EXPECT_GT(e.by_family.count(OpFamily::Conv), 0u);
    EXPECT_GT(e.recorded_us, 0);
    // An estimate from nominal peaks: within a factor of ten of what ran.
    EXPECT_GT(e.estimated_us, e.recorded_us / 10);
    EXPECT_LT(e.estimated_us, e.recorded_us * 10);
    // A faster device estimates less.
    const DeviceSpec* h100 = match_device(specs, "H100");
    ASSERT_NE(h100, nullptr);
    EXPECT_LT(estimate_gpu_kernels(trace, *h100).estimated_us, e.estimated_us);
}

TEST(Model, PredictionOfARealEtCountsEveryTopLevelOp) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_1gpu_et_1.1.1.json.gz");
    const Trace trace = load_trace(testing::trace_path("pytorch/resnet_1gpu_et_1.1.1.json.gz"));
    CostDb db;
    db.host.python_op_us = 5;
    db.host.autograd_op_us = 3;
    db.host.fitted_on = {"test"};
    db.add(cost("x", "aten::add_", -1, 1000, 2.0));
    const CostModel m(db, 1);
    const Prediction p = predict_iteration(trace, m, db.host);
    ASSERT_GT(p.ops.size(), 100u);
    EXPECT_EQ(p.measured + p.modelled + p.fallback, p.ops.size());
    EXPECT_NEAR(p.iteration_us, p.compute_us + p.host_us, 1e-6);
    size_t backward = 0;
    for (const auto& op : p.ops) backward += op.backward;
    EXPECT_GT(backward, 10u);  // ops under autograd::engine::evaluate_function
}

}  // namespace
}  // namespace mimic::model

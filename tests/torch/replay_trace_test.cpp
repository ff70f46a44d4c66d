// Replay of real traces recorded on GPUs by others, on this CPU: the linear
// model (PyTorch 1.13 schema 1.0.1) and ResNet (1.1.0-chakra, DDP, cuDNN ops).
// Planning covers the whole iteration; running is limited to cheap ops to keep
// the test short (the bench script replays everything).
#include <gtest/gtest.h>

#include "io/trace_loader.h"
#include "replay/replayer.h"
#include "test_support.h"

namespace mimic::replay {
namespace {

std::string skips(const Replayer& r) {
    std::string s;
    for (const SkippedOp& op : r.skipped()) s += op.name + ": " + op.reason + "; ";
    return s.substr(0, 2000);
}

TEST(ReplayTrace, LinearPlansEveryTopLevelOp) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    const Trace trace = load_trace(testing::trace_path("pytorch/linear_et.json.gz"));
    ReplayOptions options;
    Replayer r(trace, options);
    r.plan();
    EXPECT_EQ(r.selection().ops.size(), 320u);  // no iteration label: the whole trace
    EXPECT_EQ(r.steps().size(), 320u) << skips(r);
    EXPECT_TRUE(r.skipped().empty()) << skips(r);
}

TEST(ReplayTrace, LinearRunsItsCheapOps) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    const Trace trace = load_trace(testing::trace_path("pytorch/linear_et.json.gz"));
    ReplayOptions options;
    options.selection.exclude = std::regex("^aten::(mm|linear)$");  // 0.5 GFLOP each: the bench runs them
    Replayer r(trace, options);
    r.plan();
    r.check();
    const double ms = r.run_iteration();
    EXPECT_GT(ms, 0.0);
    EXPECT_EQ(r.replayed_count(), 320u - 62u) << skips(r);
    EXPECT_EQ(r.runtime_errors(), 0u);
    EXPECT_EQ(r.shape_mismatches(), 0u);
}

TEST(ReplayTrace, ResNetGpuTraceOnCpuCoverage) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const Trace trace = load_trace(testing::trace_path("pytorch/resnet_et.json.gz"));
    ReplayOptions options;
    options.lazy = true;
    Replayer r(trace, options);
    r.plan();
    EXPECT_EQ(r.selection().iteration_label, "ProfilerStep#6");
    const size_t total = r.selection().ops.size() + r.selection().excluded.size();
    ASSERT_GT(total, 1000u);
    // Measured: every op plans except the 7 c10d collectives of the iteration
    // (no process group in a single-process replay): 99.4%.
    const double planned = double(r.steps().size()) / double(total);
    EXPECT_GE(planned, 0.99) << skips(r);
    for (const SkippedOp& s : r.skipped()) EXPECT_EQ(s.name.rfind("c10d::", 0), 0u) << s.name << ": " << s.reason;
    // cuDNN's batch-norm backward has no CPU kernel: it is planned as native_batch_norm_backward.
    size_t substituted = 0;
    for (const Step& s : r.steps())
        if (s.name == "aten::cudnn_batch_norm_backward") {
            EXPECT_EQ(s.op->schema().name(), "aten::native_batch_norm_backward");
            ++substituted;
        }
    EXPECT_GT(substituted, 0u);
}

TEST(ReplayTrace, ResNetCheapOpsRunOnCpu) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const Trace trace = load_trace(testing::trace_path("pytorch/resnet_et.json.gz"));
    ReplayOptions options;
    options.lazy = true;
    // Element-wise and bookkeeping ops of the iteration; convolutions and
    // batch norms at batch 32 take minutes on a busy CPU (the bench runs them).
    options.selection.include = std::regex("^aten::(relu_|add_|mul|detach|as_strided|copy_|t|view|flatten|div)$");
    options.selection.max_ops = 400;
    Replayer r(trace, options);
    r.plan();
    r.check();
    EXPECT_EQ(r.replayed_count(), r.steps().size()) << skips(r);
    EXPECT_GT(r.replayed_count(), 300u);
    EXPECT_EQ(r.runtime_errors(), 0u);
}

}  // namespace
}  // namespace mimic::replay

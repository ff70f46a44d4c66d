// Which replayed tensors require grad: the original's parameters do wherever
// they are used, in the ops autograd recorded and in the backward's and the
// optimizer's ops, which run without grad mode.
#include <gtest/gtest.h>

#include <memory>

#include "replay/replayer.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

// A replayer of `trace` that keeps every output (no lazy frees), planned.
std::unique_ptr<Replayer> planned_replayer(const Trace& trace) {
    ReplayOptions options;
    options.lazy = false;
    auto r = std::make_unique<Replayer>(trace, options);
    r->plan();
    return r;
}

const char* kMul = "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor";
const char* kT = "aten::t(Tensor(a) self) -> Tensor(a)";

TEST(AutogradLeaves, ParametersRequireGradInOpsAutogradDidNotRecord) {
    testing::TestTrace tt;
    Value x = tt.tensor({4, 4}, "float", 10);
    Value w = tt.tensor({4, 4}, "float", 11);
    Value y = tt.tensor({4, 4}, "float", 12);
    tt.op("aten::mul", kMul, {x, w}, {y});
    tt.t.nodes.back().seq_id = 7;  // recorded by autograd: its inputs are leaves
    Value w_again = tt.tensor({4, 4}, "float", 11);  // the weight, as the backward reads it
    Value wt = tt.tensor({4, 4}, "float", 11, 0, {1, 4});
    tt.op("aten::t", kT, {w_again}, {wt});
    Value other = tt.tensor({4, 4}, "float", 13);  // a gradient: never in a recorded op
    Value other_t = tt.tensor({4, 4}, "float", 13, 0, {1, 4});
    tt.op("aten::t", kT, {other}, {other_t});
    const Trace trace = tt.finish();

    const std::unique_ptr<Replayer> replayer = planned_replayer(trace);
    Replayer& r = *replayer;
    ASSERT_EQ(r.steps().size(), 3u);
    const auto arg = [&](size_t s) { return r.steps()[s].args.at(0).toTensor(); };
    EXPECT_TRUE(r.steps()[0].grad_mode);
    EXPECT_TRUE(arg(0).requires_grad());
    EXPECT_FALSE(r.steps()[1].grad_mode);
    EXPECT_TRUE(arg(1).requires_grad()) << "the weight's storage was a leaf in a recorded op";
    EXPECT_TRUE(arg(1).is_leaf());
    EXPECT_FALSE(arg(2).requires_grad()) << "a storage no recorded op read is not a parameter";
    r.check();
    EXPECT_GT(r.run_iteration(), 0.0);
    EXPECT_EQ(r.runtime_errors(), 0u);
}

TEST(AutogradLeaves, OpsWithoutANodeInTheBackwardRunWithoutAutograd) {
    // Both muls ran in grad mode and got sequence numbers; only the first
    // made a node (MulBackward0 carries its number). The second multiplied a
    // gradient (clip_grad_norm_'s scaling): no input required grad.
    testing::TestTrace tt;
    Value y = tt.tensor({4, 4}, "float", 12);
    tt.op("aten::mul", kMul, {tt.tensor({4, 4}, "float", 10), tt.tensor({4, 4}, "float", 11)}, {y});
    tt.t.nodes.back().seq_id = 7;
    tt.op("aten::mul", kMul, {tt.tensor({4, 4}, "float", 20), tt.tensor({4, 4}, "float", 21)}, {tt.tensor({4, 4}, "float", 22)});
    tt.t.nodes.back().seq_id = 8;
    const uint64_t engine = tt.label("autograd::engine::evaluate_function: MulBackward0", 0, 7);
    tt.label("MulBackward0", 1 /* BACKWARD_FUNCTION */, 7, engine);
    const Trace trace = tt.finish();

    const std::unique_ptr<Replayer> replayer = planned_replayer(trace);
    Replayer& r = *replayer;
    ASSERT_EQ(r.steps().size(), 2u);
    EXPECT_TRUE(r.steps()[0].grad_mode);
    EXPECT_TRUE(r.steps()[0].args.at(0).toTensor().requires_grad());
    EXPECT_FALSE(r.steps()[1].grad_mode);
    EXPECT_FALSE(r.steps()[1].args.at(0).toTensor().requires_grad());
    r.check();
    EXPECT_GT(r.run_iteration(), 0.0);
    EXPECT_EQ(r.runtime_errors(), 0u);
}

// A forward in grad mode with no backward in the trace: the first mul (of
// data) left autograd's counter at 0, so it made no node; the second (of a
// weight) advanced it to 1, the number the op after it carries. The last op,
// with nothing after it, keeps autograd.
TEST(AutogradLeaves, WithoutABackwardTheSequenceNumbersSayWhichOpsMadeANode) {
    testing::TestTrace tt;
    tt.op("aten::mul", kMul, {tt.tensor({4, 4}, "float", 10), tt.tensor({4, 4}, "float", 11)}, {tt.tensor({4, 4}, "float", 12)});
    tt.t.nodes.back().seq_id = 0;
    tt.op("aten::mul", kMul, {tt.tensor({4, 4}, "float", 20), tt.tensor({4, 4}, "float", 21)}, {tt.tensor({4, 4}, "float", 22)});
    tt.t.nodes.back().seq_id = 0;
    tt.op("aten::t", kT, {tt.tensor({4, 4}, "float", 22)}, {tt.tensor({4, 4}, "float", 22, 0, {1, 4})});
    tt.t.nodes.back().seq_id = 1;
    const Trace trace = tt.finish();

    const std::unique_ptr<Replayer> replayer = planned_replayer(trace);
    Replayer& r = *replayer;
    ASSERT_EQ(r.steps().size(), 3u);
    EXPECT_FALSE(r.steps()[0].grad_mode);
    EXPECT_FALSE(r.steps()[0].args.at(0).toTensor().requires_grad());
    EXPECT_TRUE(r.steps()[1].grad_mode);
    EXPECT_TRUE(r.steps()[1].args.at(0).toTensor().requires_grad());
    EXPECT_TRUE(r.steps()[2].grad_mode);
    r.check();
    EXPECT_GT(r.run_iteration(), 0.0);
    EXPECT_EQ(r.runtime_errors(), 0u);
}

// With a backward: both muls carry number 3 and MulBackward0 carries 3, but
// the first left the counter at 3 (the second's number): the second made the
// node, the first (of labels, say) none.
TEST(AutogradLeaves, AnOpWhoseNumberTheNextCallRepeatsMadeNoNodeThoughTheBackwardCarriesIt) {
    testing::TestTrace tt;
    tt.op("aten::mul", kMul, {tt.tensor({4, 4}, "float", 10), tt.tensor({4, 4}, "float", 11)}, {tt.tensor({4, 4}, "float", 12)});
    tt.t.nodes.back().seq_id = 3;
    tt.op("aten::mul", kMul, {tt.tensor({4, 4}, "float", 20), tt.tensor({4, 4}, "float", 21)}, {tt.tensor({4, 4}, "float", 22)});
    tt.t.nodes.back().seq_id = 3;
    const uint64_t engine = tt.label("autograd::engine::evaluate_function: MulBackward0", 0, 3);
    tt.label("MulBackward0", 1 /* BACKWARD_FUNCTION */, 3, engine);
    const Trace trace = tt.finish();

    const std::unique_ptr<Replayer> replayer = planned_replayer(trace);
    Replayer& r = *replayer;
    ASSERT_EQ(r.steps().size(), 2u);
    EXPECT_FALSE(r.steps()[0].grad_mode);
    EXPECT_FALSE(r.steps()[0].args.at(0).toTensor().requires_grad());
    EXPECT_TRUE(r.steps()[1].grad_mode);
    EXPECT_TRUE(r.steps()[1].args.at(0).toTensor().requires_grad());
    r.check();
    EXPECT_GT(r.run_iteration(), 0.0);
    EXPECT_EQ(r.runtime_errors(), 0u);
}

const char* kBatchNorm =
    "aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, "
    "bool training, float momentum, float eps, bool cudnn_enabled) -> Tensor";
const char* kHardtanhInPlace = "aten::hardtanh_(Tensor(a!) self, Scalar min_val=-1, Scalar max_val=1) -> Tensor(a!)";

// Batch norm's running mean and variance are read by a recorded op but are no
// parameters: autograd refuses them as inputs that require grad. The op keeps
// grad mode (its weight and bias stay leaves), so its output requires grad and
// the in-place ReLU6 after it records as the original's did.
TEST(AutogradLeaves, BatchNormRunningStatsAreNoParameters) {
    testing::TestTrace tt;
    Value x = tt.tensor({2, 3, 4, 4}, "float", 10);
    Value weight = tt.tensor({3}, "float", 11);
    Value bias = tt.tensor({3}, "float", 12);
    Value mean = tt.tensor({3}, "float", 13);
    Value var = tt.tensor({3}, "float", 14);
    Value y = tt.tensor({2, 3, 4, 4}, "float", 15);
    tt.op("aten::batch_norm", kBatchNorm,
          {x, weight, bias, mean, var, testing::TestTrace::boolean(true), testing::TestTrace::real(0.1),
           testing::TestTrace::real(1e-5), testing::TestTrace::boolean(false)},
          {y});
    tt.t.nodes.back().seq_id = 7;
    Value y_again = tt.same(y);
    tt.op("aten::hardtanh_", kHardtanhInPlace, {y_again, testing::TestTrace::real(0), testing::TestTrace::real(6)},
          {y_again});
    tt.t.nodes.back().seq_id = 8;
    const Trace trace = tt.finish();

    const std::unique_ptr<Replayer> replayer = planned_replayer(trace);
    Replayer& r = *replayer;
    ASSERT_EQ(r.steps().size(), 2u);
    r.check();
    const Step& bn = r.steps()[0];
    EXPECT_FALSE(bn.skipped) << bn.skip_reason;
    EXPECT_TRUE(bn.grad_mode) << "batch norm lost autograd for the sake of its running stats";
    EXPECT_TRUE(bn.args.at(1).toTensor().requires_grad()) << "the weight is a parameter";
    EXPECT_TRUE(bn.args.at(2).toTensor().requires_grad()) << "the bias is a parameter";
    EXPECT_FALSE(bn.args.at(3).toTensor().requires_grad()) << "the running mean is no parameter";
    EXPECT_FALSE(bn.args.at(4).toTensor().requires_grad()) << "the running variance is no parameter";
    EXPECT_TRUE(r.steps()[1].grad_mode);
    EXPECT_FALSE(r.steps()[1].skipped) << r.steps()[1].skip_reason;
    EXPECT_GT(r.run_iteration(), 0.0);
    EXPECT_EQ(r.runtime_errors(), 0u);
}

}  // namespace
}  // namespace mimic::replay

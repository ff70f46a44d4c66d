// Which replayed tensors require grad: the original's parameters do wherever
// they are used, in the ops autograd recorded and in the backward's and the
// optimizer's ops, which run without grad mode.
#include <gtest/gtest.h>

#include "replay/replayer.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

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

    ReplayOptions options;
    options.lazy = false;
    Replayer r(trace, options);
    r.plan();
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

}  // namespace
}  // namespace mimic::replay

// Python numbers passed as tensors (`loss * 0.5`): PyTorch wraps them in 0-d
// double tensors that type promotion ignores. The pool's 0-d double and
// int64 tensors are marked so too, so a 0-d float loss times a number stays
// float and the float ops after it accept it.
#include <gtest/gtest.h>

#include "replay/exec/tensor_pool.h"
#include "replay/replayer.h"
#include "replay_once.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

using testing::TestTrace;

TEST(WrappedScalars, PoolMarksZeroDimDoublesAndLongs) {
    TestTrace b;
    Value d = b.tensor({}, "double", 60), l = b.tensor({}, "long int", 61), f = b.tensor({}, "float", 62);
    Value vec = b.tensor({3}, "double", 63);
    Trace t = b.finish();
    TensorPool pool(t, c10::Device(c10::kCPU));
    for (const Value* v : {&d, &l, &f, &vec}) ASSERT_EQ(pool.reserve(t.tensor(*v)), "");
    EXPECT_TRUE(pool.view(t.tensor(d)).unsafeGetTensorImpl()->is_wrapped_number());
    EXPECT_TRUE(pool.view(t.tensor(l)).unsafeGetTensorImpl()->is_wrapped_number());
    EXPECT_FALSE(pool.view(t.tensor(f)).unsafeGetTensorImpl()->is_wrapped_number());  // a real float scalar (a loss)
    EXPECT_FALSE(pool.view(t.tensor(vec)).unsafeGetTensorImpl()->is_wrapped_number());
}

TEST(WrappedScalars, AFloatLossTimesANumberStaysFloat) {
    TestTrace b;
    Value loss = b.tensor({}, "float", 70), half = b.tensor({}, "double", 71);
    Value scaled = b.tensor({}, "float", 72);
    b.op("aten::mul", "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor", {loss, half}, {scaled});
    Value flat = b.tensor({1}, "float", 72);
    b.op("aten::view", "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)", {b.same(scaled), b.ints({1})}, {flat});
    b.op("aten::dot", "aten::dot(Tensor self, Tensor tensor) -> Tensor",  // refuses two dtypes
         {b.same(flat), b.tensor({1}, "float", 73)}, {b.tensor({}, "float", 74)});
    Trace trace = b.finish();
    auto r = testing::replay_once(trace);
    EXPECT_EQ(r->replayed_count(), 3u) << testing::skipped_ops(*r);
}

}  // namespace
}  // namespace mimic::replay

// `conj` of a complex tensor returns the same storage with PyTorch's lazy
// conjugate bit set. Later readers of that storage that are not the conj's
// output (an optimizer reading the parameter) must not inherit the bit:
// `view_as_real` refuses a conjugated tensor.
#include <gtest/gtest.h>

#include "replay/replayer.h"
#include "replay_once.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

using testing::TestTrace;

TEST(ConjugateViews, AParameterReadAfterItsConjIsThePlainParameter) {
    TestTrace b;
    Value weight = b.tensor({4}, "c10::complex<float>", 90);
    Value conjugated = b.tensor({4}, "c10::complex<float>", 90);  // a new tensor on the parameter's storage
    b.op("aten::conj", "aten::conj(Tensor(a) self) -> Tensor(a)", {weight}, {conjugated});
    b.op("aten::view_as_real", "aten::view_as_real(Tensor(a) self) -> Tensor(a)", {b.same(weight)},
         {b.tensor({4, 2}, "float", 90)});
    Trace trace = b.finish();
    auto r = testing::replay_once(trace);
    EXPECT_EQ(r->replayed_count(), 2u) << testing::skipped_ops(*r);
}

}  // namespace
}  // namespace mimic::replay

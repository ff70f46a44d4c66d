// Ops recorded under torch.autocast: the outer call (float inputs, a bfloat16
// result), its casts and the inner call on the cast tensors. The replay runs
// the outer call under autocast, so its result is bfloat16 as recorded and
// the backward's bfloat16 GEMM that reads it runs.
#include <gtest/gtest.h>

#include <ATen/autocast_mode.h>

#include "replay/exec/autocast_region.h"
#include "replay/replayer.h"
#include "replay_once.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

using testing::TestTrace;

const char* kLinear = "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor";
const char* kTo =
    "aten::to.dtype(Tensor(a) self, ScalarType dtype, bool non_blocking=False, bool copy=False, "
    "MemoryFormat? memory_format=None) -> Tensor(a)";
const char* kMm = "aten::mm(Tensor self, Tensor mat2) -> Tensor";
constexpr int64_t kBFloat16Code = 15;  // c10::ScalarType::BFloat16, as the ET writes a dtype argument

struct AutocastTrace {
    Trace trace;
    uint64_t linear = 0;
};

constexpr int64_t kHalfCode = 5;

// linear(x, w) recorded under autocast to `dtype` when `under_autocast`,
// else a plain float linear; then, with `then_mm`, mm(its result, y) in that dtype.
AutocastTrace linear_then_mm(bool under_autocast, const std::string& dtype = "c10::BFloat16",
                             int64_t dtype_code = kBFloat16Code, bool then_mm = true) {
    TestTrace b;
    Value x = b.tensor({8, 16}, "float", 40), w = b.tensor({4, 16}, "float", 41);
    Value out = b.tensor({8, 4}, under_autocast ? dtype : "float", 42);
    AutocastTrace t;
    t.linear = b.op("aten::linear", kLinear, {x, w, TestTrace::none()}, {out});
    if (under_autocast) {
        Value xb = b.tensor({8, 16}, dtype, 43), wb = b.tensor({4, 16}, dtype, 44);
        b.op("aten::to", kTo, {b.same(x), TestTrace::integer(dtype_code), TestTrace::boolean(false),
                               TestTrace::boolean(false), TestTrace::none()}, {xb}, t.linear);
        b.op("aten::to", kTo, {b.same(w), TestTrace::integer(dtype_code), TestTrace::boolean(false),
                               TestTrace::boolean(false), TestTrace::none()}, {wb}, t.linear);
        b.op("aten::linear", kLinear, {b.same(xb), b.same(wb), TestTrace::none()}, {b.same(out)}, t.linear);
    }
    if (then_mm) b.op("aten::mm", kMm, {b.same(out), b.tensor({4, 2}, dtype, 45)}, {b.tensor({8, 2}, dtype, 46)});
    t.trace = b.finish();
    return t;
}

size_t replayed(const Trace& trace) { return testing::replay_once(trace)->replayed_count(); }

TEST(AutocastRegion, FoundFromTheCastsAndTheInnerCall) {
    AutocastTrace with = linear_then_mm(true), without = linear_then_mm(false);
    EXPECT_EQ(autocast_dtype(with.trace, with.trace.find(NodeId(with.linear))), c10::kBFloat16);
    EXPECT_EQ(autocast_dtype(without.trace, without.trace.find(NodeId(without.linear))), c10::ScalarType::Undefined);
}

TEST(AutocastRegion, TheBackwardGemmReadsABfloat16Result) {
    EXPECT_EQ(replayed(linear_then_mm(true).trace), 2u);
}

TEST(AutocastRegion, AGpuTracesFloat16RegionReplaysWithoutIt) {
    // torch 1.13's CPU autocast takes bfloat16 only: the linear runs in float, as before.
    AutocastTrace t = linear_then_mm(true, "c10::Half", kHalfCode, /*then_mm=*/false);
    EXPECT_EQ(autocast_dtype(t.trace, t.trace.find(NodeId(t.linear))), c10::kHalf);
    EXPECT_EQ(replayed(t.trace), 1u);
}

TEST(AutocastRegion, LeavesAutocastAsItFoundIt) {
    replayed(linear_then_mm(true).trace);
    EXPECT_FALSE(at::autocast::is_cpu_enabled());
    {
        AutocastScope outer(c10::kBFloat16);
        EXPECT_THROW(AutocastScope inner(c10::kHalf), c10::Error);  // torch 1.13's CPU autocast: bfloat16 only
        EXPECT_TRUE(at::autocast::is_cpu_enabled());
        EXPECT_EQ(at::autocast::get_autocast_cpu_dtype(), c10::kBFloat16);
    }
    EXPECT_FALSE(at::autocast::is_cpu_enabled());
}

}  // namespace
}  // namespace mimic::replay

#include "replay/exec/tensor_pool.h"

#include <gtest/gtest.h>

#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

const TensorMeta& meta_of(const testing::TestTrace& tt, const Value& v) { return tt.t.tensors[v.payload.index]; }

// restore() puts every buffer back as it was at the snapshot.
TEST(TensorPool, RestorePutsBackValuesChangedInPlace) {
    testing::TestTrace tt;
    Value a = tt.tensor({4, 8}, "float", 10);
    Value b = tt.tensor({16}, "long int", 11);
    TensorPool pool(tt.t, c10::Device(c10::kCPU));
    ASSERT_EQ(pool.reserve(meta_of(tt, a)), "");
    ASSERT_EQ(pool.reserve(meta_of(tt, b)), "");
    at::Tensor va = pool.view(meta_of(tt, a));
    at::Tensor vb = pool.view(meta_of(tt, b));
    pool.snapshot();
    const at::Tensor a0 = va.clone(), b0 = vb.clone();
    va.mul_(3).add_(1);
    vb.fill_(5);
    ASSERT_FALSE(va.equal(a0));
    pool.restore();
    EXPECT_TRUE(va.equal(a0));
    EXPECT_TRUE(vb.equal(b0));
}

// A buffer first used after the snapshot is snapshotted by the next restore
// and from then on restored too.
TEST(TensorPool, RestoreSnapshotsLaterBuffers) {
    testing::TestTrace tt;
    Value a = tt.tensor({8}, "float", 10);
    Value late = tt.tensor({8}, "float", 12);
    TensorPool pool(tt.t, c10::Device(c10::kCPU));
    ASSERT_EQ(pool.reserve(meta_of(tt, a)), "");
    ASSERT_EQ(pool.reserve(meta_of(tt, late)), "");
    pool.view(meta_of(tt, a));
    pool.snapshot();
    at::Tensor v = pool.view(meta_of(tt, late));
    pool.restore();
    const at::Tensor saved = v.clone();
    v.zero_();
    pool.restore();
    EXPECT_TRUE(v.equal(saved));
}

}  // namespace
}  // namespace mimic::replay

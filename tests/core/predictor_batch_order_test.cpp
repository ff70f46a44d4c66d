#include <gtest/gtest.h>

#include "model/predictor.h"

namespace mimic::model {
namespace {

Prediction two_ops(double gemm_us, double add_us) {
    Prediction p;
    p.ops.push_back({1, "aten::mm", OpFamily::Gemm, gemm_us, 2.0, 0.0, CostSource::FamilyModel, false});
    p.ops.push_back({2, "aten::add", OpFamily::Elementwise, add_us, 1.0, 0.0, CostSource::FamilyModel, false});
    p.compute_us = gemm_us + add_us;
    p.host_us = 3.0;
    p.iteration_us = p.compute_us + p.host_us;
    p.compute_by_family_us[OpFamily::Gemm] = gemm_us;
    p.compute_by_family_us[OpFamily::Elementwise] = add_us;
    return p;
}

TEST(BatchOrder, ABiggerBatchNeverMakesAnOpFaster) {
    const Prediction recorded = two_ops(100, 10);
    Prediction doubled = two_ops(60, 18);  // the GEMM fell into a faster bin of its family curve
    EXPECT_EQ(hold_batch_order(doubled, recorded, 2.0), 1u);
    EXPECT_DOUBLE_EQ(doubled.ops[0].op_us, 100);
    EXPECT_DOUBLE_EQ(doubled.ops[1].op_us, 18);  // slower at 2x: kept as modelled
    EXPECT_DOUBLE_EQ(doubled.compute_us, 118);
    EXPECT_DOUBLE_EQ(doubled.compute_by_family_us[OpFamily::Gemm], 100);
    EXPECT_DOUBLE_EQ(doubled.iteration_us, 121);
    EXPECT_EQ(doubled.held_to_recorded_batch, 1u);
}

TEST(BatchOrder, ASmallerBatchNeverMakesAnOpSlower) {
    const Prediction recorded = two_ops(100, 10);
    Prediction halved = two_ops(55, 12);
    EXPECT_EQ(hold_batch_order(halved, recorded, 0.5), 1u);
    EXPECT_DOUBLE_EQ(halved.ops[1].op_us, 10);
    EXPECT_DOUBLE_EQ(halved.compute_us, 65);
    EXPECT_DOUBLE_EQ(halved.compute_by_family_us[OpFamily::Elementwise], 10);
}

TEST(BatchOrder, OpsWithoutACounterpartAndTheRecordedBatchAreLeftAlone) {
    const Prediction recorded = two_ops(100, 10);
    Prediction same = two_ops(50, 5);
    EXPECT_EQ(hold_batch_order(same, recorded, 1.0), 0u);
    Prediction other = two_ops(50, 5);
    for (PredictedOp& op : other.ops) op.node_id += 10;
    EXPECT_EQ(hold_batch_order(other, recorded, 2.0), 0u);
    EXPECT_DOUBLE_EQ(other.compute_us, 55);
}

}  // namespace
}  // namespace mimic::model

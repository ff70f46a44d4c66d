// Quantized linear layers take their weights prepacked, an object the trace
// records only as "<Object>": the replay rebuilds it from the call's shapes.
#include <gtest/gtest.h>

#include "replay/replayer.h"
#include "replay_once.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

using testing::TestTrace;

constexpr const char* kLinearDynamic =
    "quantized::linear_dynamic(Tensor X, __torch__.torch.classes.quantized.LinearPackedParamsBase W_prepack, "
    "bool reduce_range=False) -> Tensor Y";

TEST(PackedParams, ADynamicallyQuantizedLinearRunsOnAWeightOfTheCallsShapes) {
    TestTrace b;
    Value y = b.tensor({8, 48}, "float", 902);
    b.op("quantized::linear_dynamic", kLinearDynamic, {b.tensor({8, 32}, "float", 901), TestTrace::object(), TestTrace::boolean(true)},
         {y});
    b.op("aten::relu", "aten::relu(Tensor self) -> Tensor", {b.same(y)}, {b.tensor({8, 48}, "float", 903)});
    Trace trace = b.finish();
    auto r = testing::replay_once(trace);
    EXPECT_EQ(r->replayed_count(), 2u) << testing::skipped_ops(*r);
    EXPECT_EQ(r->shape_mismatches(), 0u);  // [8, 32] x a [48, 32] weight gives the recorded [8, 48]
}

TEST(PackedParams, ADynamicallyQuantizedTwoLayerLstmRunsOnCellsOfItsShapes) {
    TestTrace b;
    Value hx = b.list({b.tensor({2, 3, 16}, "float", 921), b.tensor({2, 3, 16}, "float", 922)});
    b.op("aten::quantized_lstm",
         "aten::quantized_lstm.input(Tensor input, Tensor[] hx, __torch__.torch.classes.rnn.CellParamsBase[] params, "
         "bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first, *, "
         "ScalarType? dtype=None, bool use_dynamic=False) -> (Tensor, Tensor, Tensor)",
         {b.tensor({3, 5, 8}, "float", 920), hx, b.list({TestTrace::object(), TestTrace::object()}), TestTrace::boolean(true),
          TestTrace::integer(2), TestTrace::real(0.0), TestTrace::boolean(false), TestTrace::boolean(false),
          TestTrace::boolean(true), TestTrace::integer(12), TestTrace::boolean(true)},
         {b.tensor({3, 5, 16}, "float", 923), b.tensor({2, 3, 16}, "float", 924), b.tensor({2, 3, 16}, "float", 925)});
    Trace trace = b.finish();
    auto r = testing::replay_once(trace);
    EXPECT_EQ(r->replayed_count(), 1u) << testing::skipped_ops(*r);
    EXPECT_EQ(r->shape_mismatches(), 0u);
}

TEST(PackedParams, ABidirectionalGrusSecondLayerTakesBothDirections) {
    TestTrace b;
    b.op("aten::quantized_gru",
         "aten::quantized_gru.input(Tensor input, Tensor hx, __torch__.torch.classes.rnn.CellParamsBase[] params, "
         "bool has_biases, int num_layers, float dropout, bool train, bool bidirectional, bool batch_first) -> (Tensor, Tensor)",
         {b.tensor({2, 6, 8}, "float", 930), b.tensor({4, 2, 12}, "float", 931),
          b.list({TestTrace::object(), TestTrace::object(), TestTrace::object(), TestTrace::object()}),
          TestTrace::boolean(true), TestTrace::integer(2), TestTrace::real(0.0), TestTrace::boolean(false),
          TestTrace::boolean(true), TestTrace::boolean(true)},
         {b.tensor({2, 6, 24}, "float", 932), b.tensor({4, 2, 12}, "float", 933)});
    Trace trace = b.finish();
    auto r = testing::replay_once(trace);
    EXPECT_EQ(r->replayed_count(), 1u) << testing::skipped_ops(*r);  // a second layer of 12 inputs would throw
    EXPECT_EQ(r->shape_mismatches(), 0u);
}

TEST(PackedParams, AnObjectOfAClassItCannotRebuildIsSkippedWithTheClassNamed) {
    TestTrace b;
    // A convolution's packed weight holds its kernel size, stride and padding, which no shape says.
    b.op("quantized::conv2d_dynamic",
         "quantized::conv2d_dynamic(Tensor qx, __torch__.torch.classes.quantized.Conv2dPackedParamsBase packed_weight, "
         "bool reduce_range=False) -> Tensor",
         {b.tensor({1, 3, 8, 8}, "float", 911), TestTrace::object(), TestTrace::boolean(true)},
         {b.tensor({1, 4, 8, 8}, "float", 912)});
    Trace trace = b.finish();
    auto r = testing::replay_once(trace);
    EXPECT_EQ(r->replayed_count(), 0u);
    ASSERT_EQ(r->skipped().size(), 1u);
    EXPECT_NE(r->skipped()[0].reason.find("Conv2dPackedParamsBase"), std::string::npos) << r->skipped()[0].reason;
}

}  // namespace
}  // namespace mimic::replay

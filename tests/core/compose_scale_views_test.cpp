// Where a view lies in its storage once the tensor filling the storage has
// grown with the batch (compose/scale_views.h).
#include <gtest/gtest.h>

#include <vector>

#include "compose/scale_views.h"

namespace mimic {
namespace {

using compose::StorageLayout;

// z = [2B, 24] at B = 16 doubled: z[B:] starts at row 16, then at row 32.
TEST(ScaleViews, TheSecondHalfOfAStackedPairStartsAtTheNewBatch) {
    const StorageLayout z{{32, 24}, {64, 24}, 0, -1, false};
    EXPECT_EQ(compose::moved_offset(z, 16 * 24), 32 * 24);
    EXPECT_EQ(compose::moved_offset(z, 0), 0);
}

// A GRU's input projection [T=10, B=16, 144]: step t starts at whole rows of
// B x 144, and a column offset inside a row stays.
TEST(ScaleViews, AStepOfASequenceFirstTensorMovesByWholeNewRows) {
    const StorageLayout gates{{10, 16, 144}, {10, 32, 144}, 1, -1, false};
    EXPECT_EQ(compose::moved_offset(gates, 3 * 16 * 144), 3 * 32 * 144);
    EXPECT_EQ(compose::moved_offset(gates, 3 * 16 * 144 + 48), 3 * 32 * 144 + 48);
}

// Tokens data[:T] seen as [12, 16]; targets data[1:] start one row past it,
// outside the tensor seen: the outermost coordinate is open-ended.
TEST(ScaleViews, AViewPastTheTensorSeenKeepsItsRow) {
    const StorageLayout tokens{{12, 16}, {12, 32}, 1, -1, true};
    EXPECT_EQ(compose::moved_offset(tokens, 16), 32);
    EXPECT_EQ(compose::moved_offset(tokens, 13 * 16), 13 * 32);
}

// q of attention's [T=12, B=16, 3E=192] viewed as [B x heads, T, E / heads]:
// strides [16, 1024 (= B x 64), 1] become [16, 2048, 1]; 1024 is whole rows
// of B x 64 below T, and rows of the batch dimension stay rows.
TEST(ScaleViews, StridesAreTheSameRowsOfTheNewLayout) {
    const StorageLayout qkv{{12, 16, 64}, {12, 32, 64}, 1, -1, false};
    EXPECT_EQ(compose::moved_strides(qkv, {16, 1024, 1}), (std::vector<int64_t>{16, 2048, 1}));
    EXPECT_EQ(compose::moved_strides(qkv, {64, 1}), (std::vector<int64_t>{64, 1}));
    EXPECT_EQ(compose::moved_strides(qkv, {99999}), (std::vector<int64_t>{99999}));  // past the layout: not its rows
}

}  // namespace
}  // namespace mimic

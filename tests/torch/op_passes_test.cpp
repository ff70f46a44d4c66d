#include "replay/op_passes.h"

#include <gtest/gtest.h>

#include <limits>

namespace mimic::replay {
namespace {

TEST(OpPasses, AskedForCountWins) {
    EXPECT_EQ(op_pass_count(3, 10, false), 3);
    EXPECT_EQ(op_pass_count(40, 10, true), 40);
}

// About a second of passes: a 25 ms step gets 25 passes (the cap), a 100 ms
// one 10, a step longer than 200 ms the floor of 5.
TEST(OpPasses, ShortIterationsGetMorePassesWithinTheBudget) {
    EXPECT_EQ(op_pass_count(0, 0.5, false), kMaxAutoOpPasses);
    EXPECT_EQ(op_pass_count(0, 25, false), 25);
    EXPECT_EQ(op_pass_count(0, 100, false), 10);
    EXPECT_EQ(op_pass_count(0, 199, false), kMinOpPasses);
    EXPECT_EQ(op_pass_count(0, 5000, false), kMinOpPasses);
}

// Ranks must agree on the count, and an iteration time that is missing or
// not a number must not pick an arbitrary one.
TEST(OpPasses, ManyRanksAndUnknownTimesKeepTheFloor) {
    EXPECT_EQ(op_pass_count(0, 10, true), kMinOpPasses);
    EXPECT_EQ(op_pass_count(0, 0, false), kMinOpPasses);
    EXPECT_EQ(op_pass_count(0, -1, false), kMinOpPasses);
    EXPECT_EQ(op_pass_count(0, std::numeric_limits<double>::quiet_NaN(), false), kMinOpPasses);
    EXPECT_EQ(op_pass_count(0, std::numeric_limits<double>::infinity(), false), kMinOpPasses);
}

}  // namespace
}  // namespace mimic::replay

#include "replay/timing/fault_targets.h"

#include <gtest/gtest.h>

namespace mimic::replay {
namespace {

// Four steps: ET nodes 10, 11 and 13 replayed, the third step skipped.
const std::vector<int64_t> kSteps = {10, 11, -1, 13};

OpFaults profiled_faults() {
    OpFaults f;
    f.by_node = {{10, 100}, {11, 0}, {12, 7}, {13, 300}};
    f.total = 407;
    return f;
}

TEST(FaultTargets, TheProfiledIterationsCountsAreTheUntracedTargetWhenNothingElseIsKnown) {
    const FaultTargets t = fault_targets(kSteps, profiled_faults(), nullptr, std::nullopt);
    EXPECT_EQ(t.profiled, (std::vector<int64_t>{100, 0, -1, 300}));
    EXPECT_EQ(t.untraced, t.profiled);
    EXPECT_FALSE(t.untraced_calls_differ());
    EXPECT_EQ(t.untraced_excess(), 0);
}

TEST(FaultTargets, TheUntracedSpreadIsScaledToTheTimedIterationsRate) {
    // meta.json: 800 faults per untraced iteration, twice the profiled spread.
    const FaultTargets t = fault_targets(kSteps, profiled_faults(), nullptr, 800.0);
    EXPECT_EQ(t.untraced, (std::vector<int64_t>{200, 0, -1, 600}));
    EXPECT_EQ(t.untraced_excess(), 400);
}

TEST(FaultTargets, TheUntracedCallsCountsWinOverTheProfiledOnes) {
    OpGaps calls;
    calls.by_node[10] = {1, 50, -1, 0};
    calls.by_node[11] = {1, 50, -1, 20};
    calls.by_node[13] = {1, 50, -1, 60};
    const FaultTargets t = fault_targets(kSteps, profiled_faults(), &calls, 40.0);
    EXPECT_TRUE(t.untraced_calls_differ());
    EXPECT_EQ(t.untraced_calls, (std::vector<int64_t>{0, 20, -1, 60}));
    EXPECT_EQ(t.untraced, (std::vector<int64_t>{0, 10, -1, 30}));
    // The timed iterations take 360 faults fewer than the profiled durations hold.
    EXPECT_EQ(t.untraced_excess(), -360);
}

TEST(FaultTargets, NoUntracedFaultsAnywhereLeavesTheTimedIterationsNone) {
    OpGaps calls;
    for (int64_t id : {10, 11, 13}) calls.by_node[uint64_t(id)] = {1, 50, -1, 0};
    // meta.json's rate cannot be spread over ops that took none.
    const FaultTargets t = fault_targets(kSteps, profiled_faults(), &calls, 240.0);
    EXPECT_EQ(t.untraced, (std::vector<int64_t>{0, 0, -1, 0}));
    EXPECT_EQ(t.untraced_excess(), -400);
}

}  // namespace
}  // namespace mimic::replay

#include "replay/timing/profiler_cost_fit.h"

#include <gtest/gtest.h>

#include <cmath>

namespace mimic::replay {
namespace {

// Ops of a modelled recording: the profile adds `self` to each op and `per`
// for each nested event; durations and nesting vary as in a real step.
std::vector<ProfiledOpSample> modelled(double self, double per, size_t n) {
    std::vector<ProfiledOpSample> s;
    for (size_t i = 0; i < n; ++i) {
        const double untraced = 0.3 + double(i % 17) * 3.7;
        const double nested = double(i % 5 == 0 ? 0 : i % 4);
        s.push_back({untraced + self + per * nested, untraced, nested});
    }
    return s;
}

TEST(ProfilerCostFit, RecoversSelfAndPerEventCosts) {
    auto fit = fit_profiler_cost(modelled(0.42, 0.31, 60), 0.1);
    ASSERT_TRUE(fit);
    EXPECT_NEAR(fit->self_us, 0.42, 1e-3);
    EXPECT_NEAR(fit->per_event_us, 0.31, 1e-3);
    EXPECT_TRUE(fit->per_event_fitted);
    size_t short_ops = 0;
    for (const ProfiledOpSample& x : modelled(0.42, 0.31, 60)) short_ops += x.untraced_us < kProfilerFitMaxUntracedUs;
    EXPECT_EQ(fit->samples, short_ops);
}

// Long ops with many nested events and microseconds of noise (a backward
// convolution) would tilt the per-event slope; the fit leaves them out.
TEST(ProfilerCostFit, LongNoisyOpsDoNotSetTheCosts) {
    auto s = modelled(0.4, 0.3, 60);
    for (int i = 0; i < 40; ++i) {
        const double untraced = 800 + 50.0 * i, nested = 10 + i;
        s.push_back({untraced + 0.4 + 0.3 * nested + 2.5 * nested, untraced, nested});  // noise that grows with nesting
    }
    auto fit = fit_profiler_cost(s, 0.1);
    ASSERT_TRUE(fit);
    EXPECT_NEAR(fit->self_us, 0.4, 1e-3);
    EXPECT_NEAR(fit->per_event_us, 0.3, 1e-3);
}

// The fitted per-event cost holds over the nesting the fitted ops had; an
// op with thousands of nested events (dlrm's bmm) pays the calibration
// loop's cost for those past it, not the short ops' colder one.
TEST(ProfilerCostFit, EventsPastTheFittedNestingCostTheLoops) {
    auto fit = fit_profiler_cost(modelled(0.4, 0.45, 60), 0.3);
    ASSERT_TRUE(fit);
    EXPECT_DOUBLE_EQ(fit->fitted_nested_max, 3);  // modelled() nests 0-3 events
    EXPECT_DOUBLE_EQ(fit->loop_per_event_us, 0.3);
    EXPECT_NEAR(fit->cost_us(0), 0.4, 1e-3);
    EXPECT_NEAR(fit->cost_us(2), 0.4 + 2 * 0.45, 1e-3);
    EXPECT_NEAR(fit->cost_us(2050), 0.4 + 3 * 0.45 + 2047 * 0.3, 1e-2);
}

// Too few short ops: all of them are fitted rather than none.
TEST(ProfilerCostFit, FitsLongOpsWhenTooFewAreShort) {
    std::vector<ProfiledOpSample> s;
    for (int i = 0; i < 30; ++i) {
        const double untraced = 100 + 10.0 * i, nested = double(i % 4);
        s.push_back({untraced + 0.5 + 0.2 * nested, untraced, nested});
    }
    auto fit = fit_profiler_cost(s, 0.1);
    ASSERT_TRUE(fit);
    EXPECT_EQ(fit->samples, 30u);
    EXPECT_NEAR(fit->self_us, 0.5, 1e-3);
    EXPECT_NEAR(fit->per_event_us, 0.2, 1e-3);
}

// A robust line: a fifth of the ops far off (page faults in one kind of
// call only, a preempted op) do not move it.
TEST(ProfilerCostFit, OutliersDoNotMoveIt) {
    auto s = modelled(0.5, 0.25, 100);
    for (size_t i = 0; i < s.size(); i += 5) s[i].profiled_us += 40 + double(i);
    auto fit = fit_profiler_cost(s, 0.1);
    ASSERT_TRUE(fit);
    EXPECT_NEAR(fit->self_us, 0.5, 0.02);
    EXPECT_NEAR(fit->per_event_us, 0.25, 0.02);
}

// Instrumentation cannot make an op faster: costs stay >= 0 even when the
// profiled calls ran faster than the untraced ones.
TEST(ProfilerCostFit, CostsAreNeverNegative) {
    auto s = modelled(0, 0, 40);
    for (auto& x : s) x.profiled_us = x.untraced_us * 0.9;
    auto fit = fit_profiler_cost(s, 0.3);
    ASSERT_TRUE(fit);
    EXPECT_GE(fit->self_us, 0);
    EXPECT_GE(fit->per_event_us, 0);
    EXPECT_DOUBLE_EQ(fit->slowdown, 1);
}

// Past the costs per op and per event, the profiled calls ran the ops' own
// work slower (measured: 7-12% for ops of 2-256 us, none for ops of
// milliseconds). The factor is fitted on the ops of 2-256 us and taken off
// each op's first 256 us of corrected time.
TEST(ProfilerCostFit, SlowdownOfTheOpsOwnWorkIsFittedAndSaturates) {
    std::vector<ProfiledOpSample> s;
    const double self = 0.4, per = 0.3;
    for (int i = 0; i < 60; ++i) {  // short ops: the additive costs alone
        const double untraced = 0.3 + 0.025 * i, nested = double(i % 3);
        s.push_back({untraced + self + per * nested, untraced, nested});
    }
    for (int i = 0; i < 40; ++i) {  // 2-250 us: slowed by 10%
        const double untraced = 2.5 + 6.0 * i, nested = double(i % 4);
        s.push_back({untraced * 1.1 + self + per * nested, untraced, nested});
    }
    for (int i = 0; i < 10; ++i) {  // milliseconds: not slowed
        const double untraced = 1000 + 500.0 * i;
        s.push_back({untraced + self + per * 2, untraced, 2});
    }
    auto fit = fit_profiler_cost(s, 0.3);
    ASSERT_TRUE(fit);
    EXPECT_NEAR(fit->self_us, self, 1e-3);
    EXPECT_NEAR(fit->per_event_us, per, 1e-3);
    EXPECT_NEAR(fit->slowdown, 1.1, 1e-3);
    EXPECT_EQ(fit->slowdown_samples, 40u);
    EXPECT_NEAR(fit->corrected_us(100 * 1.1 + self + per * 2, 2), 100, 0.05);
    EXPECT_NEAR(fit->corrected_us(1.0 + self, 0), 1.0 / 1.1, 1e-3);
    // The extra saturates at the slowdown's share of 256 us.
    EXPECT_NEAR(fit->corrected_us(2000 + self + per * 2, 2), 2000 - kProfilerSlowdownSaturationUs * (1 - 1 / 1.1), 0.05);
    EXPECT_DOUBLE_EQ(fit->corrected_us(0.1, 2), 0);  // never below 0
}

// Too few ops in the slowdown's range (or none slower): no slowdown.
TEST(ProfilerCostFit, NoSlowdownWithoutOpsToShowIt) {
    std::vector<ProfiledOpSample> s;
    for (int i = 0; i < 30; ++i) s.push_back({0.3 + 0.05 * i + 0.4, 0.3 + 0.05 * i, 0});
    for (int i = 0; i < int(kMinProfilerFitSamples) - 1; ++i) s.push_back({(5.0 + i) * 1.2 + 0.4, 5.0 + i, 0});
    auto fit = fit_profiler_cost(s, 0.3);
    ASSERT_TRUE(fit);
    EXPECT_EQ(fit->slowdown_samples, kMinProfilerFitSamples - 1);
    EXPECT_DOUBLE_EQ(fit->slowdown, 1);
    auto exact = fit_profiler_cost(modelled(0.42, 0.31, 60), 0.1);
    ASSERT_TRUE(exact);
    EXPECT_GT(exact->slowdown_samples, kMinProfilerFitSamples);
    EXPECT_NEAR(exact->slowdown, 1, 1e-9);
}

// No op with a nested event: the slope cannot be fitted and the given
// per-event cost stays; too few usable ops: no fit at all.
TEST(ProfilerCostFit, KeepsTheGivenPerEventCostOrGivesUp) {
    std::vector<ProfiledOpSample> leaves;
    for (int i = 0; i < 20; ++i) leaves.push_back({1.0 + i + 0.3, 1.0 + i, 0});
    auto fit = fit_profiler_cost(leaves, 0.27);
    ASSERT_TRUE(fit);
    EXPECT_FALSE(fit->per_event_fitted);
    EXPECT_DOUBLE_EQ(fit->per_event_us, 0.27);
    EXPECT_NEAR(fit->self_us, 0.3, 1e-9);

    auto few = modelled(0.4, 0.3, kMinProfilerFitSamples - 1);
    EXPECT_FALSE(fit_profiler_cost(few, 0.3));
    auto bad = modelled(0.4, 0.3, 30);
    for (auto& x : bad) x.untraced_us = NAN;
    EXPECT_FALSE(fit_profiler_cost(bad, 0.3));
}

}  // namespace
}  // namespace mimic::replay

#include "replay/timing/torch_profiler_pass.h"

#include <ATen/ATen.h>
#include <gtest/gtest.h>

#include <stdexcept>

#include "record/fault_probe.h"

namespace mimic::replay {
namespace {

const std::string kAdd = "aten::add", kMul = "aten::mul", kMm = "aten::mm";

TEST(MatchBrackets, EachBracketTakesItsOwnEventByNameAndTime) {
    // Between the two calls the pass ran a copy_ of its own (a restore):
    // no bracket has it, and it is passed.
    const std::vector<ProfiledOpEvent> events{
        {"aten::add", 1000, 3000}, {"aten::copy_", 5000, 9000}, {"aten::mul", 10000, 10500}, {"aten::add", 12000, 15000}};
    const std::vector<OpBracket> brackets{{&kAdd, 900, 3100}, {&kMul, 9900, 10600}, {&kAdd, 11900, 15100}};
    const std::vector<double> us = match_brackets(brackets, events);
    ASSERT_EQ(us.size(), 3u);
    EXPECT_DOUBLE_EQ(us[0], 2.0);
    EXPECT_DOUBLE_EQ(us[1], 0.5);
    EXPECT_DOUBLE_EQ(us[2], 3.0);
}

TEST(MatchBrackets, AnEventIsTakenOnceAndOthersStayUnmatched) {
    // Two brackets of one name around one event: the second finds none; a
    // bracket whose op the profiler did not see (another name) finds none.
    const std::vector<ProfiledOpEvent> events{{"aten::add", 1000, 2000}};
    const std::vector<OpBracket> brackets{{&kAdd, 900, 2100}, {&kAdd, 2200, 2300}, {&kMm, 2400, 2500}};
    const std::vector<double> us = match_brackets(brackets, events);
    EXPECT_DOUBLE_EQ(us[0], 1.0);
    EXPECT_DOUBLE_EQ(us[1], -1.0);
    EXPECT_DOUBLE_EQ(us[2], -1.0);
}

TEST(MatchBrackets, StampsALittleOutsideTheBracketStillMatch) {
    // The profiler's converted TSC stamps may fall just before the bracket.
    const std::vector<ProfiledOpEvent> events{{"aten::add", 1000 - kBracketSlackNs / 2, 2000}};
    EXPECT_DOUBLE_EQ(match_brackets({{&kAdd, 1000, 2100}}, events)[0], (1000.0 + kBracketSlackNs / 2) / 1000.0);
    // Far outside: another call's.
    const std::vector<ProfiledOpEvent> early{{"aten::add", 1000 - 3 * kBracketSlackNs, 2000}};
    EXPECT_DOUBLE_EQ(match_brackets({{&kAdd, 1000, 2100}}, early)[0], -1.0);
}

TEST(TorchProfilerSession, GivesTheTopLevelOpsOfThisThreadInOrder) {
    const at::Tensor a = at::ones({64, 64}), b = at::ones({64, 64});
    std::vector<OpBracket> brackets;
    std::vector<ProfiledOpEvent> events;
    {
        TorchProfilerSession session;
        EXPECT_THROW(TorchProfilerSession second, std::runtime_error);  // one profiler at a time
        const int64_t t0 = profiler_clock_ns();
        at::Tensor c = at::add(a, b);
        const int64_t t1 = profiler_clock_ns();
        at::Tensor d = at::mm(c, b);  // nests no top-level event of its own
        const int64_t t2 = profiler_clock_ns();
        brackets = {{&kAdd, t0, t1}, {&kMm, t1, t2}};
        events = session.finish();
    }
    ASSERT_GE(events.size(), 2u);
    for (size_t i = 1; i < events.size(); ++i) EXPECT_LE(events[i - 1].start_ns, events[i].start_ns);
    const std::vector<double> us = match_brackets(brackets, events);
    EXPECT_GT(us[0], 0);
    EXPECT_GT(us[1], 0);
    for (const ProfiledOpEvent& e : events) EXPECT_NE(e.name, "aten::empty") << "a nested op came out as top-level";
    // Off again: a new session can start.
    TorchProfilerSession again;
    EXPECT_TRUE(again.finish().empty());
}

// The recorder's profiled calls ran the fault probe; the replay's pass runs
// it the same way, and a stop without a path keeps no file.
TEST(TorchProfilerSession, RunsWithTheFaultProbe) {
    TorchProfilerSession session;
    ASSERT_EQ(mimic_fault_probe_start(), 0);
    EXPECT_EQ(mimic_fault_probe_start(), -1);  // already on
    const at::Tensor x = at::ones({8});
    at::Tensor y = at::mul(x, x);
    EXPECT_EQ(mimic_fault_probe_stop(nullptr), 2);  // ones, mul
    EXPECT_GE(session.finish().size(), 2u);
}

}  // namespace
}  // namespace mimic::replay

#include "replay/timing/host_gaps.h"

#include <gtest/gtest.h>

#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

// Top-level ops of 100 us each, profiled from `starts`; by default three,
// at 0, 150 and 400 us, so the recorded gaps are 50 and 150 us.
struct ThreeOps {
    Trace trace;
    std::vector<NodeIndex> ops;
    explicit ThreeOps(const std::vector<double>& starts = {0, 150, 400}) {
        testing::TestTrace b;
        std::vector<uint64_t> ids;
        for (size_t i = 0; i < starts.size(); ++i) ids.push_back(b.op("aten::relu", "aten::relu(Tensor self) -> Tensor", {}, {}));
        trace = b.finish();
        trace.timing.assign(trace.nodes.size(), NodeTiming{});
        for (size_t i = 0; i < starts.size(); ++i) {
            const NodeIndex n = trace.find(NodeId(ids[i]));
            trace.timing[n.value].start_us = starts[i];
            trace.timing[n.value].duration_us = 100;
            ops.push_back(n);
        }
    }
};

TEST(HostGaps, RecordedGapsLoseTheInstrumentationOfTheEventsInThem) {
    ThreeOps t;
    const HostGapModel m = host_gaps(t.trace, t.ops, 10.0);
    ASSERT_EQ(m.gap_us.size(), 3u);
    EXPECT_DOUBLE_EQ(m.gap_us[0], 0.0);
    EXPECT_DOUBLE_EQ(m.gap_us[1], 40.0);  // the op ending the gap is one event
    EXPECT_DOUBLE_EQ(m.gap_us[2], 140.0);
    EXPECT_DOUBLE_EQ(m.recorded_total_us, 200.0);
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 180.0);
}

// A collective's work label ended at 380 us, inside the gap [250, 400):
// until then the step waited on it (DDP's reducer waits between two
// recorded ops), and only the 20 us after it were host work.
// Completions outside every gap (inside an op, after the last) change nothing.
TEST(HostGaps, TimeWaitingForACollectiveToCompleteIsNotHostTime) {
    ThreeOps t;
    const HostGapModel m = host_gaps(t.trace, t.ops, 0.0, {60.0, 120.0, 380.0, 450.0});
    ASSERT_EQ(m.gap_us.size(), 3u);
    EXPECT_DOUBLE_EQ(m.gap_us[1], 30.0);  // [100, 150): completed at 120
    EXPECT_DOUBLE_EQ(m.gap_us[2], 20.0);  // [250, 400): completed at 380
    EXPECT_DOUBLE_EQ(m.blocked_total_us, 150.0);
    EXPECT_DOUBLE_EQ(m.recorded_total_us, 200.0);
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 50.0);
}

// Four ops at 0, 150, 400 and 600 us; the profile shows the second and
// third inside an op the trace does not hold (the observer failed to write
// it): the gap between them ran in C++, and the gap after the third held
// that op's exit; both are left out. The gap before the second is host time.
TEST(HostGaps, GapsInsideAnOpTheTraceDoesNotHoldAreNotHostTime) {
    ThreeOps t({0, 150, 400, 600});
    for (size_t k : {1, 2}) t.trace.unrecorded_callers[t.trace.nodes[t.ops[k].value].id.value] = 7;
    const HostGapModel m = host_gaps(t.trace, t.ops, 0.0);
    ASSERT_EQ(m.gap_us.size(), 4u);
    EXPECT_DOUBLE_EQ(m.gap_us[1], 50.0);
    EXPECT_DOUBLE_EQ(m.gap_us[2], 0.0);
    EXPECT_DOUBLE_EQ(m.gap_us[3], 0.0);
    EXPECT_DOUBLE_EQ(m.unrecorded_total_us, 250.0);
    EXPECT_DOUBLE_EQ(m.recorded_total_us, 300.0);
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 50.0);
}

TEST(HostGaps, FromTheUntracedRunTheGapsAddUpToItsTimeLessTheOps) {
    ThreeOps t;
    HostGapModel m = host_gaps(t.trace, t.ops, 0.0);
    // 390 us untraced - 300 us of ops = 90 us of host time, split 1:3 as recorded.
    EXPECT_EQ(calibrate_to_untraced(m, t.trace, t.ops, 390.0), "");
    EXPECT_TRUE(m.from_untraced);
    EXPECT_DOUBLE_EQ(m.op_time_us, 300.0);
    EXPECT_DOUBLE_EQ(m.scale, 0.45);
    EXPECT_DOUBLE_EQ(m.gap_us[1], 22.5);
    EXPECT_DOUBLE_EQ(m.gap_us[2], 67.5);
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 90.0);
}

TEST(HostGaps, FaultsTheUntracedCallsTookBeyondTheProfiledOnesAreOpTimeNotHostTime) {
    ThreeOps t;
    HostGapModel m = host_gaps(t.trace, t.ops, 0.0);
    // 390 us untraced - 300 us of ops - 40 faults x 1.5 us the timed iterations
    // take in their ops = 30 us of host time, split 1:3 as recorded.
    EXPECT_EQ(calibrate_to_untraced(m, t.trace, t.ops, 390.0, 40, 1.5), "");
    EXPECT_EQ(m.fault_excess, 40);
    EXPECT_DOUBLE_EQ(m.fault_cost_us, 1.5);
    EXPECT_DOUBLE_EQ(m.gap_us[1], 7.5);
    EXPECT_DOUBLE_EQ(m.gap_us[2], 22.5);
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 30.0);
    // Fewer faults untraced than profiled: the profiled durations hold time the
    // timed iterations do not spend, and the host time grows by it.
    m = host_gaps(t.trace, t.ops, 0.0);
    EXPECT_EQ(calibrate_to_untraced(m, t.trace, t.ops, 390.0, -20, 1.5), "");
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 120.0);
    // More faults than the host time can hold: none left, and the warning says why.
    m = host_gaps(t.trace, t.ops, 0.0);
    const std::string warning = calibrate_to_untraced(m, t.trace, t.ops, 390.0, 100, 1.5);
    EXPECT_NE(warning.find("page faults the untraced calls took beyond the profiled iteration"), std::string::npos) << warning;
    EXPECT_EQ(m.corrected_total_us, 0.0);
}

TEST(HostGaps, MeasuredGapsAreTheUntracedCallsWithSkippedOpsFoldedIntoTheNext) {
    ThreeOps t;
    OpGaps g;
    g.tail_us = 7;
    const auto id = [&](int k) { return t.trace.nodes[t.ops[size_t(k)].value].id.value; };
    g.by_node[id(0)] = {11, 100};
    g.by_node[id(1)] = {20, 30};
    g.by_node[id(2)] = {5, 100};
    // All three run: each op gets its own gap, the first the tail too (the iteration repeats).
    HostGapModel m = measured_host_gaps(t.trace, t.ops, {true, true, true}, g);
    EXPECT_TRUE(m.measured);
    EXPECT_EQ(m.gap_us, (std::vector<double>{18, 20, 5}));
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 43);
    // The second is skipped: its gap and its 30 us go before the third.
    m = measured_host_gaps(t.trace, t.ops, {true, false, true}, g);
    EXPECT_EQ(m.gap_us, (std::vector<double>{18, 55}));
    // An op the file does not name adds nothing.
    g.by_node.erase(id(2));
    m = measured_host_gaps(t.trace, t.ops, {true, true, true}, g);
    EXPECT_EQ(m.gap_us, (std::vector<double>{18, 20, 0}));
    EXPECT_TRUE(m.gap_cpu_us.empty());  // the file gives no CPU times
}

TEST(HostGaps, MeasuredGapsCarryTheirCpuTimeWhenEveryGapHasOne) {
    ThreeOps t;
    OpGaps g;
    g.tail_us = 7;
    g.tail_cpu_us = 6;
    const auto id = [&](int k) { return t.trace.nodes[t.ops[size_t(k)].value].id.value; };
    g.by_node[id(0)] = {11, 100, 4};
    g.by_node[id(1)] = {20, 30, 2};  // 18 of its 20 us the thread waited
    g.by_node[id(2)] = {5, 100, 5};
    HostGapModel m = measured_host_gaps(t.trace, t.ops, {true, true, true}, g);
    EXPECT_EQ(m.gap_cpu_us, (std::vector<double>{10, 2, 5}));
    EXPECT_DOUBLE_EQ(m.cpu_total_us, 17);
    // A skipped op's duration is work: it joins both the wall and the CPU time of the next gap.
    m = measured_host_gaps(t.trace, t.ops, {true, false, true}, g);
    EXPECT_EQ(m.gap_us, (std::vector<double>{18, 55}));
    EXPECT_EQ(m.gap_cpu_us, (std::vector<double>{10, 37}));
    // One gap without its CPU time: none are used.
    g.by_node[id(1)].gap_cpu_us = -1;
    EXPECT_TRUE(measured_host_gaps(t.trace, t.ops, {true, true, true}, g).gap_cpu_us.empty());
}

TEST(HostGaps, TheFaultProbesCostComesOffEveryTopLevelOpOnce) {
    ThreeOps t;
    const std::vector<uint32_t> sizes = subtree_sizes(t.trace);
    EXPECT_DOUBLE_EQ(corrected_duration_us(t.trace, t.ops[0], sizes, 10.0), 100.0);
    EXPECT_DOUBLE_EQ(corrected_duration_us(t.trace, t.ops[0], sizes, 10.0, 1.5), 98.5);
    EXPECT_DOUBLE_EQ(corrected_duration_us(t.trace, t.ops[0], sizes, 10.0, 500.0), 0.0);
    // The untraced host time grows by what the probe put inside the ops.
    HostGapModel m = host_gaps(t.trace, t.ops, 10.0);
    m.probe_cost_us = 2.0;
    EXPECT_EQ(calibrate_to_untraced(m, t.trace, t.ops, 390.0), "");
    EXPECT_DOUBLE_EQ(m.op_time_us, 294.0);
    EXPECT_DOUBLE_EQ(m.corrected_total_us, 96.0);
}

TEST(HostGaps, OpsLongerThanTheUntracedRunLeaveNoHostTimeAndSaySo) {
    ThreeOps t;
    HostGapModel m = host_gaps(t.trace, t.ops, 0.0);
    const std::string warning = calibrate_to_untraced(m, t.trace, t.ops, 250.0);
    EXPECT_NE(warning.find("exceed the untraced iteration"), std::string::npos) << warning;
    for (double g : m.gap_us) EXPECT_EQ(g, 0.0);
    EXPECT_EQ(m.corrected_total_us, 0.0);
}

TEST(HostGaps, WithoutAProfileThereIsNothingToScale) {
    ThreeOps t;
    t.trace.timing.clear();
    HostGapModel m = host_gaps(t.trace, t.ops, 0.0);
    EXPECT_EQ(calibrate_to_untraced(m, t.trace, t.ops, 390.0), "");
    for (double g : m.gap_us) EXPECT_EQ(g, 0.0);
}

// Five gaps, each 40 us of host work and 10 of the recording's callbacks;
// the original's one traced iteration also stalled 100 us in its third gap.
// Each of the replay's three traced passes stalled once, at another gap. The
// untraced host time is the 200 us of work: the replay's mean gaps take the
// stall off as often as its passes met one, where a median per gap (10 us
// everywhere) would leave the original's in (300 us).
TEST(HostGaps, StallsTheInstrumentationMetComeOffAsOftenAsTheReplayMetThem) {
    ThreeOps t({0, 150, 300, 550, 700, 850});
    const std::vector<std::vector<double>> replay_gaps = {
        {}, {110, 10, 10}, {10, 110, 10}, {10, 10, 110}, {10, 10, 10}, {10, 10, 10}};
    InstrumentationMeasure measure;
    measure.traced_gap_us = mean_per_step(replay_gaps);
    measure.traced_op_us.assign(6, 100.0);
    EXPECT_EQ(measure.traced_gap_us[0], -1.0);
    EXPECT_NEAR(measure.traced_gap_us[1], 130.0 / 3, 1e-9);
    EXPECT_EQ(measure.traced_gap_us[4], 10.0);
    const HostGapModel m = instrumented_host_gaps(t.trace, t.ops, {0, 1, 2, 3, 4, 5}, measure, 950.0);
    EXPECT_EQ(m.original_speed, 1.0);  // too few ops to say otherwise
    EXPECT_NEAR(m.corrected_total_us, 200.0, 1e-9);
}
}  // namespace
}  // namespace mimic::replay

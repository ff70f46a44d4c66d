// Ranks sharing a host's cores: ops slow down while more threads want the
// cores than there are, and speed up again as others finish.
#include <gtest/gtest.h>

#include <vector>

#include "sim/event_queue.h"
#include "sim/shared_cores.h"
#include "support/error.h"

namespace mimic::sim {
namespace {

// Stands for a rank's workload: when its op ends it no longer wants a core.
struct Rank final : EventTarget {
    SharedCores* cores = nullptr;
    EventQueue* queue = nullptr;
    int rank = 0;
    std::vector<Tick> done_at;
    void run(Tick work_ns) {
        cores->set_demand(rank, 1, false);
        cores->start(rank, work_ns, this, 0, 0);
    }
    void on_event(uint32_t, uint64_t) override {
        done_at.push_back(queue->now());
        cores->set_demand(rank, 0, false);
    }
};

struct Host {
    EventQueue queue{2};
    SharedCores cores;
    Rank a, b;
    explicit Host(const HostCores& h) : cores(h, 2, queue) {
        for (Rank* r : {&a, &b}) {
            r->cores = &cores;
            r->queue = &queue;
        }
        b.rank = 1;
    }
    void run() {
        while (queue.run_one()) {
        }
    }
    // An op on each rank from time 0, run to the end.
    void run_both(Tick a_ns, Tick b_ns) {
        a.run(a_ns);
        b.run(b_ns);
        run();
    }
};

TEST(SharedCores, TwoOpsOnOneCoreShareItThenTheLastRunsAlone) {
    Host h({2, 1.0, 1, 1});
    h.run_both(1000, 500);
    // Half a core each: b's 500 ns of work end at 1000; a has 500 left, alone.
    EXPECT_EQ(h.b.done_at, std::vector<Tick>{1000});
    EXPECT_EQ(h.a.done_at, std::vector<Tick>{1500});
}

TEST(SharedCores, EnoughCoresOrAHostPerRankChangeNothing) {
    Host two_cores({2, 2.0, 1, 1});
    two_cores.run_both(1000, 500);
    EXPECT_EQ(two_cores.a.done_at, std::vector<Tick>{1000});
    EXPECT_EQ(two_cores.b.done_at, std::vector<Tick>{500});
    Host own({1, 1.0, 1, 1});
    EXPECT_FALSE(own.cores.enabled());
}

TEST(SharedCores, ACollectiveInFlightTakesACoreFromTheOps) {
    // 2 ranks, 2 cores: both ops run, and rank 1's Gloo thread reduces a bucket.
    Host h({2, 2.0, 1, 1});
    h.a.run(900);
    h.cores.set_demand(1, 0, true);
    EXPECT_DOUBLE_EQ(h.cores.speed(0), 1.0);
    h.b.cores->set_demand(1, 1, true);
    h.b.cores->start(1, 300, &h.b, 0, 0);
    EXPECT_DOUBLE_EQ(h.cores.speed(0), 2.0 / 3.0);
    h.run();
    // Three threads on two cores: b's 300 ns take 450; a then has 600 left at full speed.
    EXPECT_EQ(h.b.done_at, std::vector<Tick>{450});
    // b's collective is still in flight: a's last 600 ns run with 2 threads on 2 cores.
    EXPECT_EQ(h.a.done_at, std::vector<Tick>{1050});
}

TEST(SharedCores, MessagesSlowOnlyBeyondWhatTheNetworkFitAlreadyHolds) {
    // calibrate --collectives measured 4 ranks' collectives on 2 cores: half a
    // core each. With every rank also running an op, a quarter: twice slower.
    EventQueue queue(4);
    SharedCores four(HostCores{4, 2.0, 1, 1}, 4, queue);
    for (int r = 0; r < 4; ++r) four.set_demand(r, 0, true);
    EXPECT_DOUBLE_EQ(four.message_slowdown(0), 1.0);
    for (int r = 0; r < 4; ++r) four.set_demand(r, 1, true);
    EXPECT_DOUBLE_EQ(four.message_slowdown(0), 2.0);
    // 2 ranks on 2 cores measured at full speed: ops beside them halve it.
    SharedCores two(HostCores{2, 2.0, 1, 1}, 2, queue);
    two.set_demand(0, 1, true);
    two.set_demand(1, 1, true);
    EXPECT_DOUBLE_EQ(two.message_slowdown(1), 2.0);
}

TEST(SharedCores, SharingWithoutCoresIsAnError) {
    EventQueue queue(2);
    EXPECT_THROW(SharedCores(HostCores{2, 0.0, 1, 1}, 2, queue), Error);
}

}  // namespace
}  // namespace mimic::sim

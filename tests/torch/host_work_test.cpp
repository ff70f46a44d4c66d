#include "replay/timing/host_work.h"

#include <gtest/gtest.h>

#include <chrono>

namespace mimic::replay {
namespace {

double now_us() {
    return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

// The work lasts until the clock says so, whatever it runs.
TEST(HostWork, WorksUntilTheClockReachesTheEnd) {
    HostWork w;
    const double start = now_us();
    w.until(now_us, start + 200);
    EXPECT_GE(now_us() - start, 200);
    EXPECT_GT(w.steps(), 0u);
}

// A gap already over costs nothing: no step is taken.
TEST(HostWork, NoWorkForAGapThatIsOver) {
    HostWork w;
    w.until(now_us, now_us() - 1);
    EXPECT_EQ(w.steps(), 0u);
}

#if defined(__x86_64__)
// On x86-64 the code ring is mapped and run: every chunk of it, and the
// data ring, are walked through many times in a long gap without a fault.
TEST(HostWork, RunsItsCodeRing) {
    HostWork w;
    ASSERT_TRUE(w.runs_code());
    const size_t chunks = HostWork::kCodeBytes / HostWork::kChunkBytes;
    for (size_t i = 0; i < 3 * chunks; ++i) w.step();
    EXPECT_EQ(w.steps(), 3 * chunks);
}
#endif

}  // namespace
}  // namespace mimic::replay

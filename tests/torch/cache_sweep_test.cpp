#include "replay/timing/cache_sweep.h"

#include <gtest/gtest.h>

namespace mimic::replay {
namespace {

TEST(CacheSweep, TwiceTheL2) {
    EXPECT_EQ(cache_sweep_bytes(2 << 20), size_t(4) << 20);
    EXPECT_EQ(cache_sweep_bytes(256 << 10), size_t(512) << 10);
}

// sysconf answers 0 or -1 where it does not know the L2, and a misreport of
// a huge cache must not make every pass sweep hundreds of megabytes.
TEST(CacheSweep, UnknownOrImplausibleL2) {
    EXPECT_EQ(cache_sweep_bytes(0), size_t(4) << 20);
    EXPECT_EQ(cache_sweep_bytes(-1), size_t(4) << 20);
    EXPECT_EQ(cache_sweep_bytes(480L << 20), size_t(64) << 20);
}

TEST(CacheSweep, SweepsItsWholeBuffer) {
    CacheSweep s(1 << 20);
    EXPECT_EQ(s.bytes(), size_t(1) << 20);
    EXPECT_EQ(s.sweep(), size_t(1 << 20) / 64);
    CacheSweep from_system;
    EXPECT_GE(from_system.bytes(), size_t(512) << 10);
    EXPECT_EQ(from_system.sweep(), from_system.bytes() / 64);
}

}  // namespace
}  // namespace mimic::replay

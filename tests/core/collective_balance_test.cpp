// collective_balance: per (group, collective), the spread of bytes and time
// over ranks, with the ranks at either end.
#include "analysis/collective_balance.h"

#include <gtest/gtest.h>

namespace mimic::analysis {
namespace {

CollectiveStats stats(const char* pg, const char* collective, int64_t rank, uint64_t count, uint64_t bytes, double us) {
    CollectiveStats s;
    s.pg_name = pg;
    s.collective = collective;
    s.rank = rank;
    s.count = count;
    s.total_bytes = bytes;
    s.max_bytes = bytes;
    s.total_us = us;
    return s;
}

TEST(CollectiveBalance, SpreadAndTheRanksAtEitherEnd) {
    const std::vector<CollectiveBalance> b = collective_balance({
        stats("0", "all_reduce", 0, 2, 100, 10),
        stats("0", "all_reduce", 1, 2, 100, 30),
        stats("0", "all_reduce", 2, 2, 300, 5),
        stats("0", "all_to_all", 0, 1, 64, 0),
        stats("0", "all_to_all", 1, 1, 64, 0),
    });
    ASSERT_EQ(b.size(), 2u);
    const CollectiveBalance& ar = b[0];
    EXPECT_EQ(ar.collective, "all_reduce");
    EXPECT_EQ(ar.ranks, 3u);
    EXPECT_EQ(ar.calls, 6u);
    EXPECT_EQ(ar.min_bytes, 100u);
    EXPECT_EQ(ar.max_bytes, 300u);
    EXPECT_EQ(ar.max_bytes_rank, 2);
    EXPECT_DOUBLE_EQ(ar.bytes_imbalance(), 3.0);
    EXPECT_TRUE(ar.timed);
    EXPECT_EQ(ar.fastest_rank, 2);
    EXPECT_EQ(ar.slowest_rank, 1);
    EXPECT_DOUBLE_EQ(ar.time_imbalance(), 6.0);
    const CollectiveBalance& a2a = b[1];
    EXPECT_FALSE(a2a.timed);
    EXPECT_DOUBLE_EQ(a2a.bytes_imbalance(), 1.0);
    EXPECT_DOUBLE_EQ(a2a.time_imbalance(), 0.0);  // untimed: no ratio
}

TEST(CollectiveBalance, ARanksRowsAddUp) {
    // One rank's calls can arrive as several rows (merged reports): they are one rank.
    const std::vector<CollectiveBalance> b =
        collective_balance({stats("1", "broadcast", 0, 1, 10, 1), stats("1", "broadcast", 0, 1, 30, 3)});
    ASSERT_EQ(b.size(), 1u);
    EXPECT_EQ(b[0].ranks, 1u);
    EXPECT_EQ(b[0].min_bytes, 40u);
    EXPECT_DOUBLE_EQ(b[0].max_us, 4.0);
}

}  // namespace
}  // namespace mimic::analysis

// What `calibrate --collectives TRACE...` fits to: the collectives a job's
// traces run, on real traces (a 2-rank Gloo DDP step recorded with PyTorch's
// own observer, and Chakra's 4-rank microbenchmarks from ../shared).
#include "analysis/collectives_used.h"

#include <gtest/gtest.h>

#include <string>

#include "io/trace_loader.h"
#include "test_support.h"

namespace mimic {
namespace {

TEST(CollectivesUsed, DdpBucketsOfAGlooStep) {
    const Trace trace =
        load_trace(std::string(MIMIC_SOURCE_DIR) + "/tests/data/gloo_sync_collectives/ddp_rank0.et.json.gz");
    analysis::CollectivesUsed used;
    analysis::add_collectives_used(used, trace);
    ASSERT_EQ(used.by_collective.size(), 1u);
    const analysis::CollectiveUse& ar = used.by_collective.at("all_reduce");
    // Three buckets, the largest a 1024 x 1024 weight's gradient and its bias's (analyze shows the same).
    EXPECT_EQ(ar.calls, 3u);
    EXPECT_EQ(ar.sized_calls, 3u);
    EXPECT_EQ(ar.max_bytes, 1025u * 1024 * 4);
    EXPECT_GT(ar.min_bytes, 0u);
    EXPECT_LE(ar.min_bytes, ar.max_bytes);
    EXPECT_EQ(used.traces, 1u);
}

TEST(CollectivesUsed, ChakraRanksAddUp) {
    MIMIC_REQUIRE_TRACE("chakra/microbench/all_to_all/all_to_all.0.et");
    analysis::CollectivesUsed used;
    uint64_t one_rank_calls = 0;
    for (int r = 0; r < 4; ++r) {
        const Trace trace =
            load_trace(testing::trace_path("chakra/microbench/all_to_all/all_to_all." + std::to_string(r) + ".et"));
        analysis::add_collectives_used(used, trace);
        if (r == 0) one_rank_calls = used.by_collective.at("all_to_all").calls;
    }
    ASSERT_EQ(used.by_collective.count("all_to_all"), 1u);
    const analysis::CollectiveUse& a2a = used.by_collective.at("all_to_all");
    EXPECT_GT(one_rank_calls, 0u);
    EXPECT_EQ(a2a.calls, 4 * one_rank_calls);
    EXPECT_EQ(a2a.sized_calls, a2a.calls);  // every Chakra node carries comm_size
    EXPECT_EQ(used.traces, 4u);
}

}  // namespace
}  // namespace mimic

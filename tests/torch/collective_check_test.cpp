// The ranks' planned calls compared per process group before any is issued.
#include "replay/dist/collective_check.h"

#include <gtest/gtest.h>

namespace mimic::replay {
namespace {

CallSignature call(const std::string& pg, const std::string& what, uint64_t bytes, uint64_t node) {
    return {pg, what, bytes, node};
}

std::map<std::string, ReplayGroup> groups_of(std::vector<std::pair<std::string, std::vector<int64_t>>> spec) {
    std::map<std::string, ReplayGroup> out;
    for (auto& [name, ranks] : spec) {
        ReplayGroup g;
        g.name = name;
        g.ranks = ranks;
        out.emplace(name, std::move(g));
    }
    return out;
}

TEST(CollectiveCheck, MatchingRanksPass) {
    const auto groups = groups_of({{"0", {0, 1}}, {"1", {1, 2}}});
    // all_to_all sizes may differ per rank; a group's non-members make no calls on it.
    std::vector<std::vector<CallSignature>> ranks = {
        {call("0", "all_to_all", 100, 5), call("0", "all_reduce", 64, 9)},
        {call("0", "all_to_all", 300, 6), call("1", "broadcast", 8, 7), call("0", "all_reduce", 64, 11)},
        {call("1", "broadcast", 8, 4)},
    };
    EXPECT_EQ(compare_call_sequences(ranks, groups), "");
}

TEST(CollectiveCheck, FirstDifferenceNamesRanksGroupCallAndNodes) {
    const auto groups = groups_of({{"0", {0, 1}}});
    std::vector<std::vector<CallSignature>> kinds = {
        {call("0", "all_reduce", 64, 5), call("0", "all_reduce", 32, 8)},
        {call("0", "all_reduce", 64, 6), call("0", "broadcast", 32, 9)},
    };
    EXPECT_EQ(compare_call_sequences(kinds, groups),
              "the ranks' traces do not match on group '0': call 2 is all_reduce of 32 B (node 8) on rank 0 but "
              "broadcast of 32 B (node 9) on rank 1");
    std::vector<std::vector<CallSignature>> sizes = {{call("0", "all_reduce", 64, 5)}, {call("0", "all_reduce", 128, 6)}};
    EXPECT_NE(compare_call_sequences(sizes, groups).find("all_reduce of 64 B (node 5) on rank 0 but all_reduce of 128 B"),
              std::string::npos);
    std::vector<std::vector<CallSignature>> counts = {{call("0", "all_reduce", 64, 5)}, {}};
    EXPECT_EQ(compare_call_sequences(counts, groups),
              "the ranks' traces do not match on group '0': rank 0 makes 1 calls, rank 1 makes 0");
}

}  // namespace
}  // namespace mimic::replay

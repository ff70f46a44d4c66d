#include "io/recording/op_gaps.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

TEST(OpGaps, ReadsEachOpsGapAndDurationAndTheTail) {
    const std::string path = testing::scratch_file(
        "op_gaps", "op_gaps.json", R"({"calls": 3, "tail_us": 12.5, "gaps": [[4, 30.25, 100], [9, 0, 2.5]]})");
    const OpGaps g = read_op_gaps(path);
    ASSERT_EQ(g.by_node.size(), 2u);
    EXPECT_DOUBLE_EQ(g.by_node.at(4).gap_before_us, 30.25);
    EXPECT_DOUBLE_EQ(g.by_node.at(4).duration_us, 100);
    EXPECT_DOUBLE_EQ(g.by_node.at(9).duration_us, 2.5);
    EXPECT_DOUBLE_EQ(g.tail_us, 12.5);
    EXPECT_DOUBLE_EQ(g.probe_cost_per_event_us, 0);  // not given: nothing to correct
    EXPECT_LT(g.by_node.at(4).gap_cpu_us, 0);          // no CPU times in this file
    EXPECT_LT(g.tail_cpu_us, 0);
}

TEST(OpGaps, ReadsTheCpuTimeOfEachGap) {
    const std::string path = testing::scratch_file("op_gaps_cpu", "op_gaps.json",
                                                   R"({"tail_us": 9, "tail_cpu_us": 4.5, "gaps": [[4, 30, 100, 12.25]]})");
    const OpGaps g = read_op_gaps(path);
    EXPECT_DOUBLE_EQ(g.by_node.at(4).gap_cpu_us, 12.25);
    EXPECT_DOUBLE_EQ(g.tail_cpu_us, 4.5);
    EXPECT_FALSE(g.has_faults());
}

TEST(OpGaps, ReadsEachOpsPageFaults) {
    const std::string path = testing::scratch_file("op_gaps_faults", "op_gaps.json",
                                                   R"({"gaps": [[4, 30, 100, 12, 7], [5, 1, 2, 1, 0]]})");
    const OpGaps g = read_op_gaps(path);
    EXPECT_EQ(g.by_node.at(4).faults, 7);
    EXPECT_EQ(g.by_node.at(5).faults, 0);
    EXPECT_TRUE(g.has_faults());
}

TEST(OpGaps, ReadsTheProbesCostPerEvent) {
    const std::string path = testing::scratch_file("op_gaps_cost", "op_gaps.json",
                                                   R"({"probe_cost_per_event_us": 0.125, "gaps": [[4, 1, 2]]})");
    EXPECT_DOUBLE_EQ(read_op_gaps(path).probe_cost_per_event_us, 0.125);
    const std::string null_cost = testing::scratch_file("op_gaps_cost", "null.json",
                                                        R"({"probe_cost_per_event_us": null, "gaps": []})");
    EXPECT_DOUBLE_EQ(read_op_gaps(null_cost).probe_cost_per_event_us, 0);
}

TEST(OpGaps, FoundBesideMetaJsonOrNotAtAll) {
    const std::string meta = testing::scratch_file("op_gaps_beside", "meta.json", "{}");
    std::filesystem::remove(std::filesystem::path(meta).parent_path() / "op_gaps.json");
    EXPECT_FALSE(read_op_gaps_beside(meta).has_value());
    testing::scratch_file("op_gaps_beside", "op_gaps.json", R"({"gaps": [[1, 2, 3]]})");
    ASSERT_TRUE(read_op_gaps_beside(meta).has_value());
    EXPECT_FALSE(read_op_gaps_beside("").has_value());
}

TEST(OpGaps, BadFilesNameTheFieldThatIsWrong) {
    struct Case {
        const char* text;
        const char* says;
    } cases[] = {
        {"[]", "not a JSON object"},
        {R"({"gaps": {}})", "gaps"},
        {R"({"gaps": [[1, 2]]})", "gaps[0]"},
        {R"({"gaps": [[1, 2, 3], [1, -2, 3]]})", "gaps[1]"},
        {R"({"gaps": [[1, 2, 1e12]]})", "gaps[0]"},
        {R"({"gaps": [["a", 2, 3]]})", "gaps[0]"},
        {R"({"gaps": [], "tail_us": -1})", "tail_us"},
        {R"({"gaps": [], "tail_cpu_us": "x"})", "tail_cpu_us"},
        {R"({"gaps": [[1, 2, 3, -4]]})", "gaps[0]"},
        {R"({"gaps": [[1, 2, 3, 4, 5, 6]]})", "gaps[0]"},
        {R"({"gaps": [[1, 2, 3, 4, -5]]})", "gaps[0]"},
        {R"({"gaps": [[1, 2, 3, 4, 1.5]]})", "gaps[0]"},
        {R"({"gaps": [], "probe_cost_per_event_us": 5000})", "probe_cost_per_event_us"},
        {R"({"gaps": [], "probe_cost_per_event_us": "x"})", "probe_cost_per_event_us"},
    };
    int i = 0;
    for (const Case& c : cases) {
        const std::string path = testing::scratch_file("op_gaps_bad", "case" + std::to_string(i++) + ".json", c.text);
        std::string error;
        try {
            read_op_gaps(path);
        } catch (const Error& e) {
            error = e.what();
        }
        EXPECT_NE(error.find(c.says), std::string::npos) << c.text << ": " << error;
        EXPECT_NE(error.find(path), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace mimic

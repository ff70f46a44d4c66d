#include "io/recording/op_faults.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string error_of(const std::string& path) {
    try {
        read_op_faults(path);
    } catch (const Error& e) {
        return e.what();
    }
    return "";
}

TEST(OpFaults, ReadsThePairsAndTheirTotal) {
    const std::string path = testing::scratch_file("op_faults", "op_faults.json",
                                                   R"({"paired_ops": 3, "faults": [[12, 0], [57, 128], [90, 3]]})");
    const OpFaults f = read_op_faults(path);
    EXPECT_EQ(f.by_node.size(), 3u);
    EXPECT_EQ(f.by_node.at(57), 128);
    EXPECT_EQ(f.total, 131);
}

TEST(OpFaults, FoundBesideMetaJsonOrNotAtAll) {
    const std::string meta = testing::scratch_file("op_faults_beside", "meta.json", "{}");
    std::filesystem::remove(std::filesystem::path(meta).parent_path() / "op_faults.json");  // from an earlier run
    EXPECT_FALSE(read_op_faults_beside(meta).has_value());
    testing::scratch_file("op_faults_beside", "op_faults.json", R"({"faults": [[1, 2]]})");
    ASSERT_TRUE(read_op_faults_beside(meta).has_value());
    EXPECT_EQ(read_op_faults_beside(meta)->total, 2);
    EXPECT_FALSE(read_op_faults_beside("").has_value());
}

TEST(OpFaults, BadFilesNameTheFieldThatIsWrong) {
    struct Case {
        const char* text;
        const char* says;
    } cases[] = {
        {"[1, 2]", "not a JSON object"},
        {R"({"faults": 3})", "faults"},
        {R"({"faults": [[1, 2], [3]]})", "faults[1]"},
        {R"({"faults": [[1, -4]]})", "faults[0]"},
        {R"({"faults": [["x", 4]]})", "faults[0]"},
        {R"({"faults": [[1, 4e3]]})", "faults[0]"},
        {R"({"faults": [[1, 99999999999999]]})", "out of range"},
        {R"({"faults": [[1, 2]])", "not a JSON object"},
    };
    int i = 0;
    for (const Case& c : cases) {
        const std::string path = testing::scratch_file("op_faults_bad", "case" + std::to_string(i++) + ".json", c.text);
        const std::string error = error_of(path);
        EXPECT_NE(error.find(path), std::string::npos) << c.text << ": " << error;
        EXPECT_NE(error.find(c.says), std::string::npos) << c.text << ": " << error;
    }
}

}  // namespace
}  // namespace mimic

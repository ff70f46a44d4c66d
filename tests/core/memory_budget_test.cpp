// Memory sizes as users write them, and what the machine has.
#include "support/memory_budget.h"

#include <gtest/gtest.h>

#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

TEST(MemoryBudget, SizesInTheUnitsUsersWrite) {
    EXPECT_EQ(parse_memory_size("1000000", "--max-memory"), 1000000u);
    EXPECT_EQ(parse_memory_size("4G", "--max-memory"), 4ull << 30);
    EXPECT_EQ(parse_memory_size("512m", "--max-memory"), 512ull << 20);
    EXPECT_EQ(parse_memory_size("1.5GiB", "--max-memory"), 3ull << 29);
    EXPECT_EQ(parse_memory_size("2KB", "--max-memory"), 2048u);
    EXPECT_EQ(parse_memory_size("1T", "--max-memory"), 1ull << 40);
}

TEST(MemoryBudget, ANonSizeNamesTheOption) {
    for (const char* bad : {"banana", "4X", "", "-1G", "G"}) {
        const std::string message = testing::error_message_of([&] { parse_memory_size(bad, "--max-memory"); });
        EXPECT_NE(message.find("--max-memory"), std::string::npos) << bad;
        EXPECT_NE(message.find("is not a memory size"), std::string::npos) << bad;
    }
}

TEST(MemoryBudget, ThisMachineHasSomeMemoryAvailable) {
    const uint64_t available = available_memory_bytes();
    EXPECT_GT(available, 64ull << 20);  // any machine that builds mimic has more than 64 MiB free
}

}  // namespace
}  // namespace mimic

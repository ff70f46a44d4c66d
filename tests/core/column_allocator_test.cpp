#include "support/column_allocator.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>

namespace mimic {
namespace {

bool on_huge_page_boundary(const void* p) { return reinterpret_cast<uintptr_t>(p) % column_memory::kHugePage == 0; }

TEST(ColumnAllocator, BigBlocksStartOnAHugePageAndSmallOnesComeFromTheHeap) {
    Column<int64_t> big;
    big.reserve(column_memory::kMappedFrom / sizeof(int64_t));
    EXPECT_TRUE(on_huge_page_boundary(big.data()));
    Column<int64_t> small;
    small.reserve(16);
    EXPECT_NE(small.data(), nullptr);
}

TEST(ColumnAllocator, GrowingCopyingAndFreeingKeepTheContents) {
    Column<int64_t> v;
    for (int64_t i = 0; i < 1'000'000; ++i) v.push_back(i);  // grows from the heap onto mapped blocks
    EXPECT_TRUE(on_huge_page_boundary(v.data()));
    Column<int64_t> copy = v;
    EXPECT_EQ(std::accumulate(copy.begin(), copy.end(), int64_t{0}), int64_t{999'999} * 1'000'000 / 2);
    v.clear();
    v.shrink_to_fit();
    EXPECT_EQ(copy.back(), 999'999);
}

TEST(ColumnAllocator, ABlockGivenBackServesTheNextRequestOfItsSize) {
    const size_t n = 3 * column_memory::kMappedFrom / sizeof(int64_t);
    const void* first;
    {
        Column<int64_t> v(n, 7);
        first = v.data();
    }
    Column<int64_t> again;
    again.reserve(n);
    EXPECT_EQ(again.data(), first);
    // A kept block is handed out as it is: what the last user wrote may be there.
    again.assign(n, 1);
    EXPECT_EQ(again[n - 1], 1);
}

TEST(ColumnAllocator, ASmallerRequestGetsAKeptBlockOnlyIfItWastesAtMostHalf) {
    const size_t big = 8 * column_memory::kHugePage / sizeof(int64_t);
    const void* block;
    {
        Column<int64_t> v;
        v.reserve(big);
        block = v.data();
    }
    Column<int64_t> tiny;  // 2 MiB: an 8 MiB block would waste three quarters
    tiny.reserve(column_memory::kHugePage / sizeof(int64_t));
    EXPECT_NE(tiny.data(), block);
}

}  // namespace
}  // namespace mimic

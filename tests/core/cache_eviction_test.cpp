#include "support/cache_eviction.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <numeric>
#include <vector>

namespace mimic {
namespace {

// Eviction writes dirty lines back: what was written is what is read after.
TEST(CacheEviction, KeepsWrittenValues) {
    std::vector<uint32_t> data(100000);
    std::iota(data.begin(), data.end(), 7u);
    evict_from_cpu_caches(data.data(), data.size() * sizeof(uint32_t));
    for (size_t i = 0; i < data.size(); ++i) ASSERT_EQ(data[i], uint32_t(i + 7)) << "at " << i;
}

// A range that starts and ends inside cache lines is covered to its last
// byte and nothing outside it is changed.
TEST(CacheEviction, UnalignedRanges) {
    std::vector<unsigned char> bytes(4096 + 64);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<unsigned char>(i * 31);
    for (size_t start : {size_t(1), size_t(63), size_t(65)})
        for (size_t len : {size_t(1), size_t(2), size_t(64), size_t(129), size_t(4000)}) {
            evict_from_cpu_caches(bytes.data() + start, len);
            bytes[start + len - 1] ^= 0xff;  // the last byte is still ordinary memory
            bytes[start + len - 1] ^= 0xff;
        }
    for (size_t i = 0; i < bytes.size(); ++i) ASSERT_EQ(bytes[i], static_cast<unsigned char>(i * 31)) << "at " << i;
}

TEST(CacheEviction, EmptyRangesDoNothing) {
    evict_from_cpu_caches(nullptr, 0);
    evict_from_cpu_caches(nullptr, 100);
    int x = 3;
    evict_from_cpu_caches(&x, 0);
    EXPECT_EQ(x, 3);
}

TEST(CacheEviction, LargestCacheHasAFloor) {
    EXPECT_GE(largest_cpu_cache_bytes(), size_t(32) << 20);
}

TEST(CacheEviction, AvailableOnX86) {
#if defined(__x86_64__) || defined(__i386__)
    EXPECT_TRUE(can_evict_from_cpu_caches());
#else
    EXPECT_FALSE(can_evict_from_cpu_caches());
#endif
}

}  // namespace
}  // namespace mimic

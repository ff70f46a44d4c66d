// The table of IOInfo sides a Chakra reader has decoded: found by their three
// texts exactly, never by a text that only hashes alike, and bounded.
#include "io/chakra/chakra_seen_sides.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mimic {
namespace {

ChakraSeenSides::Where where_at(uint32_t k) {
    ChakraSeenSides::Where w;
    w.values_begin = k;
    w.values_end = k + 1;
    return w;
}

TEST(ChakraSeenSides, FindsEverySideRememberedAcrossTableGrowth) {
    ChakraSeenSides seen;
    std::vector<std::string> values;
    // Texts of every short length class (1-3, 4-7, 8-15, 16-31 bytes) and long.
    for (int k = 0; k < 5000; ++k) {
        std::string v = std::to_string(k);
        v = k % 5 == 0 ? v : "[" + std::string(static_cast<size_t>(k % 40), ' ') + v + "]";
        values.push_back(v);
    }
    for (uint32_t k = 0; k < values.size(); ++k) {
        const uint64_t h = ChakraSeenSides::hash(values[k], "", "");
        ASSERT_EQ(seen.find(h, values[k], "", ""), nullptr) << values[k];
        seen.remember(h, values[k], "", "", where_at(k));
    }
    for (uint32_t k = 0; k < values.size(); ++k) {
        const ChakraSeenSides::Where* w = seen.find(ChakraSeenSides::hash(values[k], "", ""), values[k], "", "");
        ASSERT_NE(w, nullptr) << values[k];
        EXPECT_EQ(w->values_begin, k);
    }
}

TEST(ChakraSeenSides, TheThreeTextsKeepTheirPlaces) {
    // The same bytes split differently between the texts, or the texts in
    // another order, are another side.
    ChakraSeenSides seen;
    const uint64_t h = ChakraSeenSides::hash("[1, 2]", "[[], []]", "['int', 'int']");
    seen.remember(h, "[1, 2]", "[[], []]", "['int', 'int']", where_at(1));
    EXPECT_NE(ChakraSeenSides::hash("[[], []]", "[1, 2]", "['int', 'int']"), h);
    EXPECT_EQ(seen.find(h, "[1, 2][", "[], []]", "['int', 'int']"), nullptr);
    EXPECT_EQ(seen.find(h, "[1, 2]", "[[], []]", "['int', 'int'] "), nullptr);
    ASSERT_NE(seen.find(h, "[1, 2]", "[[], []]", "['int', 'int']"), nullptr);
    // Empty texts without data (absent fields) compare as empty.
    const uint64_t empty = ChakraSeenSides::hash("[3]", std::string_view(), std::string_view());
    EXPECT_EQ(empty, ChakraSeenSides::hash("[3]", "", ""));
    seen.remember(empty, "[3]", std::string_view(), std::string_view(), where_at(2));
    EXPECT_NE(seen.find(empty, "[3]", "", ""), nullptr);
}

TEST(ChakraSeenSides, AForcedHashCollisionIsComparedNotTrusted) {
    // Callers pass the hash: give two different sides the same one.
    ChakraSeenSides seen;
    seen.remember(42, "[1]", "", "", where_at(1));
    EXPECT_EQ(seen.find(42, "[2]", "", ""), nullptr);
    seen.remember(42, "[2]", "", "", where_at(2));
    ASSERT_NE(seen.find(42, "[2]", "", ""), nullptr);
    EXPECT_EQ(seen.find(42, "[2]", "", "")->values_begin, 2u);
    EXPECT_EQ(seen.find(42, "[1]", "", "")->values_begin, 1u);
    // Past kMaxSameHash sides under one hash, a lookup stops comparing and
    // nothing more is remembered under it.
    for (int k = 3; k < 3 + ChakraSeenSides::kMaxSameHash + 4; ++k) {
        const std::string v = "[" + std::to_string(k) + "]";
        if (!seen.find(42, v, "", "")) seen.remember(42, v, "", "", where_at(static_cast<uint32_t>(k)));
    }
    int found = 0;
    for (int k = 1; k < 3 + ChakraSeenSides::kMaxSameHash + 4; ++k)
        found += seen.find(42, "[" + std::to_string(k) + "]", "", "") != nullptr;
    EXPECT_LE(found, ChakraSeenSides::kMaxSameHash);
    EXPECT_GE(found, 2);
}

TEST(ChakraSeenSides, RemembersNoMoreThanItsBoundOfText) {
    ChakraSeenSides seen;
    const std::string big(1 << 20, 'x');
    size_t remembered = 0;
    for (int k = 0; k < 40; ++k) {
        const std::string v = std::to_string(k) + big;
        const uint64_t h = ChakraSeenSides::hash(v, "", "");
        seen.remember(h, v, "", "", where_at(static_cast<uint32_t>(k)));
        remembered += seen.find(h, v, "", "") != nullptr;
    }
    EXPECT_EQ(remembered, ChakraSeenSides::kMaxBytes / (big.size() + 2));
}

}  // namespace
}  // namespace mimic

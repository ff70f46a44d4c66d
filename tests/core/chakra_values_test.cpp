// The IOInfo decoder copies a side it has decoded before instead of parsing
// it again. These tests check that a copy is the same values with references
// of its own, and that sides which only look alike are parsed.
#include "io/chakra/chakra_values.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "chakra_test_values.h"

namespace mimic {
namespace {

// A list of `n` tensors with ids from `first_id`, as Chakra's converter spells it.
std::string tensor_list(int n, int first_id) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) {
        if (i) s += ", ";
        s += "[" + std::to_string(first_id + i) + ", 7, 0, 64, 4, 'cuda:0']";
    }
    return s + "]";
}

std::string shape_list(int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += i ? ", [8, 8]" : "[8, 8]";
    return s + "]";
}

std::string type_list(int n) {
    std::string s = "[";
    for (int i = 0; i < n; ++i) s += i ? ", 'Tensor(float)'" : "'Tensor(float)'";
    return s + "]";
}

uint64_t id_of(const Trace& t, ValueRange r, uint32_t k) { return t.tensor(t.values[r.begin + k]).tensor_id; }

TEST(ChakraValues, ARepeatedSideIsCopiedWithReferencesOfItsOwn) {
    // Nested: a list of tensors, an int, a list of lists, one tensor.
    const std::string values = "[[[1, 2, 0, 6, 4, 'cpu'], [3, 4, 0, 6, 4, 'cpu']], 5, [[6], []], [9, 10, 0, 1, 8, 'cpu']]";
    const std::string shapes = "[[[2, 3], [3, 2]], [], [[], []], []]";
    const std::string types = "['GenericList[Tensor(float),Tensor(float)]', 'Int', 'GenericList[GenericList[Int],GenericList[]]', "
                              "'Tensor(double)']";
    Trace trace;
    ChakraIoDecoder decoder(trace);
    ValueRange first, other, again;
    ASSERT_TRUE(decoder.decode(values, shapes, types, first));
    ASSERT_TRUE(decoder.decode("[[11, 12, 0, 4, 4, 'cpu']]", "[[2, 2]]", "['Tensor(float)']", other));
    ASSERT_TRUE(decoder.decode(values, shapes, types, again));

    // An independent decoding of the same texts, by a decoder that has seen nothing.
    Trace fresh_trace;
    ValueRange fresh;
    ASSERT_TRUE(ChakraIoDecoder(fresh_trace).decode(values, shapes, types, fresh));
    ASSERT_EQ(again.count, fresh.count);
    for (uint32_t k = 0; k < fresh.count; ++k)
        testing::expect_same_value(trace, trace.values[again.begin + k], fresh_trace, fresh_trace.values[fresh.begin + k],
                                   "value " + std::to_string(k));
    // Its own slots: nothing of the copy points into the first decoding.
    EXPECT_GE(again.begin, other.begin + other.count);
    const Value& list = trace.values[again.begin];
    EXPECT_GT(list.payload.range.begin, first.begin + first.count);
    const TensorMeta& copied = trace.tensor(trace.values[list.payload.range.begin + 1]);
    const TensorMeta& original = trace.tensor(trace.values[trace.values[first.begin].payload.range.begin + 1]);
    EXPECT_NE(&copied, &original);
    EXPECT_GT(copied.dims_begin, original.dims_begin);
    EXPECT_EQ(trace.shape(copied)[0], 3);
    EXPECT_EQ(trace.shape(copied)[1], 2);
}

TEST(ChakraValues, SidesThatAgreeWhereSampledAreStillParsed) {
    // Same length, same bytes where the side hash samples a long text: only
    // one tensor's id differs, in a place the hash does not look at. Twenty
    // of them, more than the decoder compares under one hash.
    Trace trace;
    ChakraIoDecoder decoder(trace);
    const std::string shapes = shape_list(40), types = type_list(40);
    const std::string base = tensor_list(40, 100);
    const auto with_id = [&](uint32_t k, int id) {
        std::string values = base;
        values.replace(base.find("[" + std::to_string(100 + k) + ","), 4, "[" + std::to_string(id));
        return values;
    };
    uint32_t k = 0;
    const uint64_t base_hash = ChakraSeenSides::hash(base, shapes, types);
    while (k < 39 && ChakraSeenSides::hash(with_id(k, 500), shapes, types) != base_hash) ++k;
    ASSERT_LT(k, 39u) << "the test's premise: some tensor id lies outside the hash's samples";
    std::vector<ValueRange> ranges;
    for (int j = 0; j < 20; ++j) {
        ValueRange r;
        ASSERT_TRUE(decoder.decode(with_id(k, 500 + j), shapes, types, r));
        ranges.push_back(r);
    }
    for (int j = 0; j < 20; ++j) {
        EXPECT_EQ(id_of(trace, ranges[j], k), uint64_t(500 + j)) << j;
        EXPECT_EQ(id_of(trace, ranges[j], k + 1), 101u + k) << j;
    }
    // And each again, now from the copies (those the decoder remembered).
    for (int j = 0; j < 20; ++j) {
        ValueRange r;
        ASSERT_TRUE(decoder.decode(with_id(k, 500 + j), shapes, types, r));
        EXPECT_EQ(id_of(trace, r, k), uint64_t(500 + j)) << j;
    }
}

// Short sides are looked up only while most are found (a lookup that misses
// costs about a parse); long ones always are.
TEST(ChakraValues, ShortSidesStopBeingLookedUpWhereFewRepeat) {
    Trace trace;
    ChakraIoDecoder decoder(trace);
    ValueRange r;
    for (uint64_t k = 0; k < ChakraSeenSides::kTrialLookups; ++k)
        ASSERT_TRUE(decoder.decode(tensor_list(1, int(1000 + k)), shape_list(1), type_list(1), r));
    ASSERT_TRUE(decoder.decode(tensor_list(1, 1000), shape_list(1), type_list(1), r));
    EXPECT_FALSE(decoder.last_side_copied()) << "short sides that rarely repeat are parsed";
    EXPECT_EQ(id_of(trace, r, 0), 1000u);
    const std::string long_side = tensor_list(20, 5);
    ASSERT_GE(long_side.size(), ChakraSeenSides::kLongBytes);
    ASSERT_TRUE(decoder.decode(long_side, shape_list(20), type_list(20), r));
    ASSERT_TRUE(decoder.decode(long_side, shape_list(20), type_list(20), r));
    EXPECT_TRUE(decoder.last_side_copied()) << "a long side is copied wherever it repeats";
    EXPECT_EQ(id_of(trace, r, 19), 24u);
}

TEST(ChakraValues, ShortSidesThatMostlyRepeatAreCopied) {
    Trace trace;
    ChakraIoDecoder decoder(trace);
    ValueRange r;
    for (uint64_t k = 0; k < 2 * ChakraSeenSides::kTrialLookups; ++k) {
        ASSERT_TRUE(decoder.decode(tensor_list(1, int(1000 + k % 4)), shape_list(1), type_list(1), r));
        EXPECT_EQ(decoder.last_side_copied(), k >= 4) << k;
        EXPECT_EQ(id_of(trace, r, 0), 1000 + k % 4);
    }
}

TEST(ChakraValues, TheSameValuesWithOtherShapesOrTypesAreNotACopy) {
    Trace trace;
    ChakraIoDecoder decoder(trace);
    const std::string values = tensor_list(3, 1);
    ValueRange a, b, c;
    ASSERT_TRUE(decoder.decode(values, "[[1], [2], [3]]", type_list(3), a));
    ASSERT_TRUE(decoder.decode(values, "[[4], [5], [6]]", type_list(3), b));
    ASSERT_TRUE(decoder.decode(values, "[[4], [5], [6]]", "['Tensor(double)', 'Tensor(double)', 'Tensor(double)']", c));
    EXPECT_EQ(trace.shape(trace.tensor(trace.values[a.begin]))[0], 1);
    EXPECT_EQ(trace.shape(trace.tensor(trace.values[b.begin]))[0], 4);
    EXPECT_EQ(trace.str(trace.tensor(trace.values[b.begin]).dtype), "float");
    EXPECT_EQ(trace.str(trace.tensor(trace.values[c.begin]).dtype), "double");
}

TEST(ChakraValues, ASideThatDoesNotParseStaysRejectedWhenItComesAgain) {
    Trace trace;
    ChakraIoDecoder decoder(trace);
    ValueRange r;
    EXPECT_FALSE(decoder.decode("[1, 2", "", "", r));
    EXPECT_FALSE(decoder.decode("[1, 2", "", "", r));
    EXPECT_TRUE(trace.values.empty());
}

}  // namespace
}  // namespace mimic

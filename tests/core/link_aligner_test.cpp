#include <gtest/gtest.h>

#include <random>

#include "link/sequence_aligner.h"

namespace mimic {
namespace {

using Pairs = std::vector<std::pair<uint32_t, uint32_t>>;

std::vector<uint32_t> repeat(const std::vector<uint32_t>& v, int times) {
    std::vector<uint32_t> out;
    for (int i = 0; i < times; ++i) out.insert(out.end(), v.begin(), v.end());
    return out;
}

TEST(SequenceAligner, IdenticalSequencesPairOneToOne) {
    std::vector<uint32_t> a = {1, 2, 3, 2, 1, 4};
    Pairs p = align_sequences(a, a);
    ASSERT_EQ(p.size(), a.size());
    for (uint32_t i = 0; i < a.size(); ++i) EXPECT_EQ(p[i], std::make_pair(i, i));
}

TEST(SequenceAligner, FindsTheEtInsideALongerProfile) {
    // The profile has events before and after the ET's stretch.
    std::vector<uint32_t> a = {5, 6, 7, 8, 9, 5, 6};
    std::vector<uint32_t> b = {1, 2, 3, 1, 2, 5, 6, 7, 8, 9, 5, 6, 3, 3};
    Pairs p = align_sequences(a, b);
    ASSERT_EQ(p.size(), a.size());
    for (uint32_t i = 0; i < a.size(); ++i) EXPECT_EQ(p[i], std::make_pair(i, i + 5));
}

TEST(SequenceAligner, SkipsWhatEitherSideLacks) {
    std::vector<uint32_t> a = {1, 2, 99, 3, 4, 5, 6};  // 99: only in the ET
    std::vector<uint32_t> b = {1, 2, 3, 77, 4, 5, 6};  // 77: only in the profile
    Pairs p = align_sequences(a, b);
    Pairs want = {{0, 0}, {1, 1}, {3, 2}, {4, 4}, {5, 5}, {6, 6}};
    EXPECT_EQ(p, want);
}

TEST(SequenceAligner, OfTwoEqualCandidatesTheFirstPairs) {
    // mean (outer), mean (inner), sum, div_, div_ against a profile with one of
    // each pair: the first of two equal names takes the event, or the last
    // when the caller reversed both sequences.
    std::vector<uint32_t> a = {7, 7, 8, 9, 9, 10};
    std::vector<uint32_t> b = {7, 8, 9, 10};
    EXPECT_EQ(align_sequences(a, b), (Pairs{{0, 0}, {2, 1}, {3, 2}, {5, 3}}));
    AlignOptions reversed;
    reversed.ties_to_first_a = false;
    EXPECT_EQ(align_sequences(a, b, reversed), (Pairs{{1, 0}, {2, 1}, {4, 2}, {5, 3}}));
}

TEST(SequenceAligner, RepeatedIterationsPickTheFirstFullMatch) {
    std::vector<uint32_t> iteration = {1, 2, 3, 4, 5, 6, 7, 8};
    std::vector<uint32_t> first = {1, 2, 4, 5, 6, 8};  // warm-up iteration lacks some ops
    std::vector<uint32_t> b = first;
    std::vector<uint32_t> rest = repeat(iteration, 5);
    b.insert(b.end(), rest.begin(), rest.end());
    Pairs p = align_sequences(iteration, b);
    ASSERT_EQ(p.size(), iteration.size());
    EXPECT_EQ(p.front().second, first.size());
    EXPECT_EQ(p.back().second, first.size() + iteration.size() - 1);
}

TEST(SequenceAligner, UnrelatedSequencesPairNothing) {
    std::vector<uint32_t> a(3000), b(5000);
    std::mt19937 rng(7);
    for (auto& x : a) x = rng() % 1000;
    for (auto& x : b) x = 1000 + rng() % 1000;
    EXPECT_TRUE(align_sequences(a, b).empty());
    std::vector<uint32_t> never(100, UINT32_MAX), also(100, UINT32_MAX);
    EXPECT_TRUE(align_sequences(never, also).empty());  // UINT32_MAX: a name the profile lacks
    EXPECT_TRUE(align_sequences({}, b).empty());
    EXPECT_TRUE(align_sequences(a, {}).empty());
}

TEST(SequenceAligner, LongSequencesWithNoiseStayInStepAcrossChunks) {
    // 20,000 ops; the profile drops 1 in 50 and inserts an extra event every 37.
    std::mt19937 rng(11);
    std::vector<uint32_t> a(20000);
    for (auto& x : a) x = rng() % 40;
    std::vector<uint32_t> b;
    std::vector<int64_t> where(a.size(), -1);
    for (size_t i = 0; i < a.size(); ++i) {
        if (i % 37 == 0) b.push_back(500);
        if (i % 50 == 49) continue;
        where[i] = static_cast<int64_t>(b.size());
        b.push_back(a[i]);
    }
    Pairs p = align_sequences(a, b);
    size_t right = 0;
    for (auto [i, j] : p) right += where[i] == static_cast<int64_t>(j);
    for (size_t k = 1; k < p.size(); ++k) {
        ASSERT_LT(p[k - 1].first, p[k].first);
        ASSERT_LT(p[k - 1].second, p[k].second);
    }
    // Random names repeat, so a few dropped ops can be paired with a neighbour;
    // nearly all pairs are the true ones.
    EXPECT_GE(right, a.size() * 97 / 100);
    EXPECT_LE(p.size(), a.size() - a.size() / 50 + 50);
}

}  // namespace
}  // namespace mimic

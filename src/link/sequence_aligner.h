// Aligns two sequences of op names (ET nodes in id order, profiler events in
// start order) so that equal names pair up in order, either side may have
// items the other lacks, and pairs stay close together rather than scattered
// over a long profile: a pair scores kMatch, every skipped item costs kSkip.
//
// The alignment is computed chunk by chunk (a dynamic program over a chunk of
// `a` against a window of `b` just ahead of the last pair), so time grows
// linearly with the sequences, not with their product.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace mimic {

struct AlignOptions {
    // Profile items before the first pair cost nothing: the ET may cover only
    // a later part of the profile (e.g. one iteration of many).
    bool free_leading_b = true;
    // Where two items of `a` in a row could take the same item of `b` for
    // the same score, the first takes it (else the last). An op that calls
    // its own other overload (aten::mean -> aten::mean.dim, aten::eye ->
    // aten::eye.m) is two ET nodes of one name, one inside the other, and
    // torch's profiler wrote one event for the pair: the outer node, the
    // top-level op, must have it. Set false when `a` and `b` are reversed.
    bool ties_to_first_a = true;
    size_t chunk = 512;         // items of `a` per dynamic-program chunk
    size_t anchor_chunk = 256;  // items of `a` used to find where `a` starts in `b`
    size_t near_b_skip = 1024;   // the window of `b` reaches this far beyond the chunk first,
    size_t max_b_skip = 2048;   // and this far when the near window is not enough
    size_t first_window_cells = size_t(64) << 20;  // budget for finding where `a` starts in `b`
};

struct AlignScore {
    static constexpr int kMatch = 3;
    static constexpr int kSkip = 1;
};

// Pairs (index into a, index into b), both increasing. Names are compared as
// integers; a value of UINT32_MAX in `a` never matches.
std::vector<std::pair<uint32_t, uint32_t>> align_sequences(const std::vector<uint32_t>& a,
                                                           const std::vector<uint32_t>& b,
                                                           const AlignOptions& options = {});

}  // namespace mimic

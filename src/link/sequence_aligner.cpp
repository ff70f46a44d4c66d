#include "link/sequence_aligner.h"

#include <algorithm>
#include <climits>


namespace mimic {

namespace {

enum Step : uint8_t { kPair = 0, kSkipA = 1, kSkipB = 2, kStart = 3 };

// Dynamic program over a[0, na) x b[0, nb): best score ending anywhere in b
// once all of the chunk of a is consumed. Leading b is free when
// `free_lead`. Appends the pairs (as offsets into the chunk and window).
class ChunkAligner {
public:
    // Returns the alignment's score.
    int run(const uint32_t* a, size_t na, const uint32_t* b, size_t nb, bool free_lead, bool ties_to_first_a,
            std::vector<std::pair<uint32_t, uint32_t>>& pairs) {
        const size_t width = nb + 1;
        steps_.resize((na + 1) * width);
        prev_.resize(width);
        cur_.resize(width);
        for (size_t j = 0; j <= nb; ++j) {
            prev_[j] = free_lead ? 0 : -static_cast<int>(j) * AlignScore::kSkip;
            steps_[j] = (free_lead || j == 0) ? kStart : kSkipB;
        }
        base_.resize(width);
        for (size_t i = 1; i <= na; ++i) {
            uint8_t* row = steps_.data() + i * width;
            const uint32_t name = a[i - 1];
            // Two passes: pairing or skipping this node depends only on the
            // previous row (a loop the compiler vectorises); skipping a
            // profile event depends on the cell to the left (a running max).
            // UINT32_MAX: a name the other side never uses; it must not pair even with itself.
            const int pair_gain = name == UINT32_MAX ? INT_MIN / 2 : AlignScore::kMatch;
            for (size_t j = 1; j <= nb; ++j) {
                int up = prev_[j] - AlignScore::kSkip;
                int diag = b[j - 1] == name ? prev_[j - 1] + pair_gain : INT_MIN / 2;
                // On a tie, skipping this node leaves the event to an earlier one.
                bool pair = ties_to_first_a ? diag > up : diag >= up;
                base_[j] = pair ? diag : up;
                row[j] = pair ? kPair : kSkipA;
            }
            int left = prev_[0] - AlignScore::kSkip;
            cur_[0] = left;
            row[0] = kSkipA;
            for (size_t j = 1; j <= nb; ++j) {
                left -= AlignScore::kSkip;
                if (left > base_[j]) {
                    row[j] = kSkipB;
                } else {
                    left = base_[j];
                }
                cur_[j] = left;
            }
            std::swap(prev_, cur_);
        }
        // Free end in b: the leftmost best keeps the pairs compact.
        size_t j = 0;
        for (size_t k = 1; k <= nb; ++k)
            if (prev_[k] > prev_[j]) j = k;
        const size_t best_j = j;
        size_t i = na;
        size_t first = pairs.size();
        while (i > 0) {
            uint8_t step = steps_[i * width + j];
            if (step == kPair) {
                pairs.emplace_back(static_cast<uint32_t>(i - 1), static_cast<uint32_t>(j - 1));
                --i;
                --j;
            } else if (step == kSkipA) {
                --i;
            } else if (step == kSkipB) {
                --j;
            } else {
                break;
            }
        }
        std::reverse(pairs.begin() + static_cast<std::ptrdiff_t>(first), pairs.end());
        return prev_[best_j];
    }

private:
    std::vector<uint8_t> steps_;
    std::vector<int> prev_, cur_, base_;
};

}  // namespace

std::vector<std::pair<uint32_t, uint32_t>> align_sequences(const std::vector<uint32_t>& a,
                                                           const std::vector<uint32_t>& b,
                                                           const AlignOptions& options) {
    std::vector<std::pair<uint32_t, uint32_t>> result;
    const size_t n = a.size();
    const size_t m = b.size();
    if (n == 0 || m == 0) return result;
    const size_t chunk = std::max<size_t>(options.chunk, 16);
    ChunkAligner dp;
    std::vector<std::pair<uint32_t, uint32_t>> pairs;

    size_t pos_a = 0, pos_b = 0;
    bool anchoring = options.free_leading_b;  // looking for where a starts in b
    int anchor_attempts = 0;
    int empty_chunks = 0;
    constexpr int kMaxAnchorAttempts = 8;
    while (pos_a < n && pos_b < m) {
        size_t na = std::min(chunk, n - pos_a);
        // A narrow window first; the wide one only when the narrow one has
        // nothing good or its pairs run into its right edge.
        size_t nb = std::min(m - pos_b, na + std::min(options.near_b_skip, options.max_b_skip));
        if (anchoring) {
            // Search as much of b as the budget allows; a shorter chunk of a
            // when b is long.
            size_t rest = m - pos_b;
            na = std::min({na, options.anchor_chunk, std::max<size_t>(32, options.first_window_cells / rest)});
            nb = std::min(rest, std::max(nb, options.first_window_cells / na));
            ++anchor_attempts;
        }
        pairs.clear();
        int score = dp.run(a.data() + pos_a, na, b.data() + pos_b, nb, anchoring, options.ties_to_first_a, pairs);
        const size_t wide = std::min(m - pos_b, na + options.max_b_skip);
        if (!anchoring && wide > nb && (score <= 0 || pairs.empty() || pairs.back().second + 64 >= nb)) {
            nb = wide;
            pairs.clear();
            score = dp.run(a.data() + pos_a, na, b.data() + pos_b, nb, false, options.ties_to_first_a, pairs);
        }
        // A stretch where fewer than about a quarter of the nodes pair up is
        // not found here: its few pairs would be coincidences of common names.
        if (score <= 0) pairs.clear();
        const bool last = pos_a + na == n;
        // Only the first half of a chunk is kept: its end is settled by what follows.
        const size_t keep_below = last ? na : std::max<size_t>(na / 2, 1);
        size_t kept = 0;
        for (auto [i, j] : pairs) {
            if (i >= keep_below) break;
            result.emplace_back(static_cast<uint32_t>(pos_a + i), static_cast<uint32_t>(pos_b + j));
            ++kept;
        }
        if (last) break;
        if (kept > 0) {
            pos_a = result.back().first + 1;
            pos_b = result.back().second + 1;
            anchoring = false;
            empty_chunks = 0;
            continue;
        }
        // Nothing in this stretch of a is in b here: pass over it, and after
        // two such stretches look for a afresh further along b.
        pos_a += keep_below;
        if (!anchoring && ++empty_chunks >= 2 && options.free_leading_b && anchor_attempts < kMaxAnchorAttempts) {
            anchoring = true;
            empty_chunks = 0;
        } else if (anchoring && anchor_attempts >= kMaxAnchorAttempts) {
            anchoring = false;
        }
    }
    return result;
}

}  // namespace mimic

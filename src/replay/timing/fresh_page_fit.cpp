#include "replay/timing/fresh_page_fit.h"

#include <algorithm>
#include <cstdlib>

namespace mimic::replay {
namespace {

// Whether `seen` is nearer `target` than `than`. On a tie the one at or over
// the target wins: the op did fault in the original, and a fault too many
// costs its time less, relatively, than a whole fresh allocation too few.
bool nearer(int64_t seen, int64_t than, int64_t target) {
    const int64_t a = std::llabs(seen - target), b = std::llabs(than - target);
    return a < b || (a == b && seen >= target && than < target);
}

// How far the steps' faults are from their targets: the sum of |faults -
// target|, then, between rounds equally far, the faults missing under the
// targets (as in nearer(): fewer faults than the original is the worse miss).
struct Miss {
    int64_t total = INT64_MAX, under = INT64_MAX;
    bool operator<(const Miss& o) const { return total < o.total || (total == o.total && under < o.under); }
};

Miss miss(const std::vector<int64_t>& seen, const std::vector<int64_t>& target) {
    Miss m{0, 0};
    for (size_t s = 0; s < target.size(); ++s) {
        if (target[s] < 0) continue;
        m.total += std::llabs(seen[s] - target[s]);
        m.under += std::max<int64_t>(0, target[s] - seen[s]);
    }
    return m;
}

}  // namespace

std::vector<int64_t> fit_fresh_pages(const std::vector<int64_t>& target, const MeasureStepFaults& measure) {
    constexpr int kRounds = kFitIterations - 1;  // and the combination of each step's best
    const size_t n = target.size();
    std::vector<int64_t> budgets(n, 0), best = budgets;
    Miss best_miss;
    // Per step: the budget of the round where its faults came nearest its target.
    std::vector<int64_t> step_budget(n, 0), step_seen(n, -1);
    const auto try_budgets = [&](const std::vector<int64_t>& b) {
        std::vector<int64_t> seen = measure(b);
        seen.resize(n, 0);
        const Miss m = miss(seen, target);
        if (m < best_miss) {
            best_miss = m;
            best = b;
        }
        return seen;
    };
    for (int round = 0; round < kRounds; ++round) {
        const std::vector<int64_t> seen = try_budgets(budgets);
        for (size_t s = 0; s < n; ++s) {
            if (target[s] < 0) continue;
            if (step_seen[s] < 0 || nearer(seen[s], step_seen[s], target[s])) {
                step_seen[s] = seen[s];
                step_budget[s] = budgets[s];
            }
            budgets[s] = std::max<int64_t>(0, budgets[s] + target[s] - seen[s]);
        }
    }
    try_budgets(step_budget);
    return best;
}

}  // namespace mimic::replay

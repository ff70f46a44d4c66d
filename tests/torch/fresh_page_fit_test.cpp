// The fit of fresh-page budgets to the original's faults per step, against
// modelled steps: each allocates whole buffers, served fresh (and so
// faulting on every page) when the budget left covers half of it, as
// FreshPageAllocator does.
#include "replay/timing/fresh_page_fit.h"

#include <gtest/gtest.h>

#include <vector>

namespace mimic::replay {
namespace {

// One step's allocations in pages, in order; faults on each served fresh.
int64_t faults_of(const std::vector<int64_t>& allocations, int64_t budget) {
    int64_t faults = 0;
    for (int64_t pages : allocations) {
        if (budget > 0 && 2 * budget >= pages) {
            faults += pages;
            budget -= pages;
        }
    }
    return faults;
}

MeasureStepFaults model(const std::vector<std::vector<int64_t>>& steps, int* calls = nullptr) {
    return [steps, calls](const std::vector<int64_t>& budgets) {
        if (calls) ++*calls;
        std::vector<int64_t> seen;
        for (size_t s = 0; s < steps.size(); ++s) seen.push_back(faults_of(steps[s], budgets[s]));
        return seen;
    };
}

TEST(FreshPageFit, StepsOfSmallAllocationsGetTheirTargetsExactly) {
    const std::vector<std::vector<int64_t>> steps{std::vector<int64_t>(40, 1), std::vector<int64_t>(10, 2), {}};
    const std::vector<int64_t> target{25, 8, 0};
    const auto measure = model(steps);
    const std::vector<int64_t> budgets = fit_fresh_pages(target, measure);
    EXPECT_EQ(measure(budgets), target);
}

// An op that faulted on half of a 256-page buffer can only get all of it or
// none fresh; the fit gives it all (the op did fault), not none, and a
// step without a target gets no budget.
TEST(FreshPageFit, AWholeBufferTooManyBeatsNone) {
    const std::vector<std::vector<int64_t>> steps{{256}, {256, 1, 256}, {512}};
    const std::vector<int64_t> target{128, 257, -1};
    const auto measure = model(steps);
    const std::vector<int64_t> budgets = fit_fresh_pages(target, measure);
    const std::vector<int64_t> seen = measure(budgets);
    EXPECT_EQ(seen[0], 256);
    EXPECT_EQ(seen[1], 257);  // the 1-page and one 256-page buffer: within one page of the target
    EXPECT_EQ(budgets[2], 0);
}

// When no budget brings the steps nearer their targets than none, none it is.
TEST(FreshPageFit, NoBudgetWhenBudgetsOnlyMakeItWorse) {
    // Any budget makes the step fault on 1,000 pages; its target is 10.
    const MeasureStepFaults measure = [](const std::vector<int64_t>& budgets) {
        return std::vector<int64_t>{budgets[0] > 0 ? 1000 : 0};
    };
    EXPECT_EQ(fit_fresh_pages({10}, measure), std::vector<int64_t>{0});
}

// Every rank runs the fit, and each iteration runs collectives: a fit whose
// targets are met at once still measures as many iterations as any other.
TEST(FreshPageFit, MeasuresAsManyIterationsWhateverTheTargets) {
    int met = 0, unmet = 0;
    EXPECT_EQ(fit_fresh_pages({0, -1}, model({{64}, {}}, &met)), (std::vector<int64_t>{0, 0}));
    fit_fresh_pages({128, 257}, model({{256}, {256, 1, 256}}, &unmet));
    EXPECT_EQ(met, kFitIterations);
    EXPECT_EQ(unmet, kFitIterations);
}

}  // namespace
}  // namespace mimic::replay

// Fresh pages per step that make each replayed step take the page faults its
// op took in the original (see fresh_page_allocator.h).
//
// A budget does not translate into faults one for one: an allocation is
// served fresh whole or not at all (an op that faulted on 128 pages of a
// 256-page output gets 0 or 256), and fresh pages for one op change the heap
// the others allocate from, and so their own faults. So the fit measures:
// a few rounds of giving each step its target less what it took by itself,
// then each step's budget from the round where its faults came closest to
// its target, measured together once more. The budgets kept are those of
// the measured round with the smallest sum over steps of |faults - target|:
// judged by the total only, cnn's fit once kept a round where its
// threshold_backward took no fault instead of 128 (its replayed time 50 us
// against 262) and its batch_norm_backward twice its 257.
#pragma once

#include <cstdint>
#include <functional>
#include <vector>

namespace mimic::replay {

constexpr int kFitIterations = 5;

// Runs an iteration with these budgets and returns each step's faults.
using MeasureStepFaults = std::function<std::vector<int64_t>(const std::vector<int64_t>& budgets)>;

// Measures kFitIterations times whatever the targets: each iteration runs
// the step's collectives, and every rank must run as many.
// `target[s]` < 0: no target (the step's budget stays 0 and its faults do
// not count). No budget at all is one of the rounds measured, so the fit
// never leaves the steps further from their targets than that.
std::vector<int64_t> fit_fresh_pages(const std::vector<int64_t>& target, const MeasureStepFaults& measure);

}  // namespace mimic::replay

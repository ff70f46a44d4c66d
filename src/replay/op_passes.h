// How many passes the per-op timing runs (each op's time is its median over
// them).
//
// Why more than a handful when they are cheap: on a shared machine the speed
// of memory-bound work moves by 5-20% over seconds (measured in one replay
// process: the mean per-op time of a 5-pass block, 0.5 s apart, moved by up
// to 21% with nothing else running), so the median of a few back-to-back
// passes sits wherever the machine was in that instant. Passes that take
// about a second in all sample more of it: 25 passes against 5 on 12
// recordings (twice each, alternating), the per-op error against the
// original's untraced op times went from 16.6% to 14.9% (mean), and against
// the profile from 21.9% to 19.0% in one run, 21.0% to 21.0% in another
// (median 20.3 -> 19.2%). A long iteration keeps the 5 passes it had.
#pragma once

#include <algorithm>
#include <cmath>

namespace mimic::replay {

inline constexpr int kMinOpPasses = 5;
inline constexpr int kMaxAutoOpPasses = 25;
inline constexpr double kOpPassBudgetMs = 1000;

// `requested` > 0: that many. Otherwise as many as take about
// kOpPassBudgetMs at `iteration_ms` each, between kMinOpPasses and
// kMaxAutoOpPasses; ranks of one replay must run as many passes as each
// other (the passes run the collectives), and their iteration times differ,
// so `many_ranks` keeps kMinOpPasses.
inline int op_pass_count(int requested, double iteration_ms, bool many_ranks) {
    if (requested > 0) return requested;
    if (many_ranks || !(iteration_ms > 0)) return kMinOpPasses;
    const double fit = std::floor(kOpPassBudgetMs / iteration_ms);
    return int(std::clamp(fit, double(kMinOpPasses), double(kMaxAutoOpPasses)));
}

}  // namespace mimic::replay

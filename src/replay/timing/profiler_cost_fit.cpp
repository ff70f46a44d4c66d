#include "replay/timing/profiler_cost_fit.h"

#include <algorithm>
#include <cmath>

#include "support/median.h"

namespace mimic::replay {
namespace {

double residual(const ProfiledOpSample& x, double per_event) {
    return x.profiled_us - x.untraced_us - per_event * x.nested_events;
}

// The intercept >= 0 that minimises the sum of absolute residuals for a
// given slope (the median of the residuals, or 0), and that sum.
std::pair<double, double> best_self(const std::vector<ProfiledOpSample>& s, double per_event) {
    std::vector<double> r;
    r.reserve(s.size());
    for (const ProfiledOpSample& x : s) r.push_back(residual(x, per_event));
    const double a = std::max(0.0, median(r));
    double cost = 0;
    for (double v : r) cost += std::fabs(v - a);
    return {a, cost};
}

// The minimum of a convex function on [0, 5] (5 us per event is far above
// any profiler's cost: 0.2-0.6 us measured), by ternary search.
template <typename F>
double argmin_convex(F cost) {
    double lo = 0, hi = 5;
    while (hi - lo > 1e-4) {
        const double m1 = lo + (hi - lo) / 3, m2 = hi - (hi - lo) / 3;
        if (cost(m1) <= cost(m2))
            hi = m2;
        else
            lo = m1;
    }
    return (lo + hi) / 2;
}

// The median log ratio of the corrected durations to the untraced ones over
// the ops in the slowdown's range (of the valid samples, long ones too).
void fit_slowdown(ProfilerCostFit& fit, const std::vector<ProfiledOpSample>& valid) {
    std::vector<double> log_ratios;
    for (const ProfiledOpSample& s : valid) {
        if (s.untraced_us < kProfilerSlowdownMinUntracedUs || s.untraced_us >= kProfilerSlowdownSaturationUs) continue;
        const double corrected = s.profiled_us - fit.cost_us(s.nested_events);
        if (corrected > 0) log_ratios.push_back(std::log(corrected / s.untraced_us));
    }
    fit.slowdown_samples = log_ratios.size();
    // Never below 1: instrumentation does not speed an op up; a median under
    // it is the calls' noise.
    if (log_ratios.size() >= kMinProfilerFitSamples) fit.slowdown = std::exp(std::max(0.0, median(log_ratios)));
}

}  // namespace

std::optional<ProfilerCostFit> fit_profiler_cost(const std::vector<ProfiledOpSample>& samples,
                                                 double loop_per_event_us) {
    std::vector<ProfiledOpSample> valid;
    for (const ProfiledOpSample& s : samples)
        if (std::isfinite(s.profiled_us) && std::isfinite(s.untraced_us) && s.profiled_us > 0 && s.untraced_us > 0 &&
            s.nested_events >= 0)
            valid.push_back(s);
    if (valid.size() < kMinProfilerFitSamples) return std::nullopt;
    // The short ops carry the information: see kProfilerFitMaxUntracedUs.
    std::vector<ProfiledOpSample> short_ops;
    for (const ProfiledOpSample& s : valid)
        if (s.untraced_us < kProfilerFitMaxUntracedUs) short_ops.push_back(s);
    const std::vector<ProfiledOpSample>& usable = short_ops.size() >= kMinProfilerFitSamples ? short_ops : valid;
    ProfilerCostFit fit;
    fit.samples = usable.size();
    fit.per_event_fitted = std::any_of(usable.begin(), usable.end(), [](const auto& s) { return s.nested_events > 0; });
    // The sum of absolute deviations, minimised over the intercept, is
    // convex in the slope: a ternary search finds its minimum.
    fit.per_event_us = fit.per_event_fitted
                           ? argmin_convex([&](double e) { return best_self(usable, e).second; })
                           : std::max(0.0, loop_per_event_us);
    fit.self_us = best_self(usable, fit.per_event_us).first;
    fit.loop_per_event_us = std::max(0.0, loop_per_event_us);
    for (const ProfiledOpSample& s : usable) fit.fitted_nested_max = std::max(fit.fitted_nested_max, s.nested_events);
    fit_slowdown(fit, valid);
    return fit;
}

double ProfilerCostFit::corrected_us(double profiled_us, double nested) const {
    const double after_costs = std::max(0.0, profiled_us - cost_us(nested));
    return after_costs - std::min(after_costs, kProfilerSlowdownSaturationUs) * (1 - 1 / slowdown);
}

double ProfilerCostFit::cost_us(double nested) const {
    const double fitted = std::min(nested, fitted_nested_max);
    return self_us + per_event_us * fitted + loop_per_event_us * (nested - fitted);
}

}  // namespace mimic::replay

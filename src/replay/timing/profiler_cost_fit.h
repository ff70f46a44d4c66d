// What the profiler added to each profiled op's duration in this recording,
// fitted against the same ops timed in untraced calls of the step.
//
// Why a fit and not only the recorder's calibration loop: the loop
// (calibrate.py, profiler_event_cost_us) times one small op back to back,
// where the profiler's callbacks and buffers stay hot. In a training step,
// Python and autograd run between the ops and the callbacks run cold: on
// the 2026-11-23 machine a profiled op took 0.3-0.55 us more than the same
// op in untraced calls even with no op nested in it, where the loop had
// measured no cost inside the op's own interval at all, and each nested
// event cost 0.26-0.48 us, not the loop's 0.31. Durations corrected with
// the loop's figures alone read 17-31% above the untraced ones per op.
//
// Model, per recording: profiled = untraced + self_us + per_event_us x
// (ops nested in the op), fitted by least absolute deviations over the
// step's short top-level ops (kProfilerFitMaxUntracedUs; robust: a few
// ops that ran on other pages in the profiled calls do not move it), with
// both costs >= 0. Ops that faulted
// differently in the two kinds of call are left out: a page fault is the
// op's own work, not instrumentation. A third term for the profiler's
// "[memory]" records inside the op was tried: it is too alike the nested
// events' count to fit apart (0.04-1.15 us per record over 12 recordings,
// dlrm's `empty` corrected to nothing), and was left out.
#pragma once

#include <cstddef>
#include <optional>
#include <vector>

namespace mimic::replay {

struct ProfiledOpSample {
    double profiled_us = 0;  // the profile's duration (median over its profiled iterations), as recorded
    double untraced_us = 0;  // the same op in untraced calls, less the probe's cost per nested event
    double nested_events = 0;
};

struct ProfilerCostFit {
    // Inside each op's own interval: the fault probe's (its getrusage read,
    // 0.40-0.44 us measured) and the profiler's own.
    double self_us = 0;
    double per_event_us = 0;  // for each event nested in the op
    size_t samples = 0;
    bool per_event_fitted = false;  // false: no sample had a nested event, per_event_us is the given one
    // The most events nested in any fitted op (short ops: up to 4-10 in the
    // built-in workloads). Past it per_event_us is an extrapolation, and a
    // poor one: the events nested deep in one op (dlrm's `bmm`, 2,050-2,306)
    // run back to back, their callbacks hot as in the recorder's calibration
    // loop, and cost what that loop measured (0.27-0.35 us each against its
    // 0.27-0.33, 12 recordings), where the short-op fit gave 0.31-0.48 and
    // corrected bmm's 3 ms to 0.15-1.3 ms against 1.1-1.2 untraced.
    double fitted_nested_max = 0;
    double loop_per_event_us = 0;  // the calibration loop's, as given

    // The profiled calls' slowdown of the ops' own work, left once the
    // costs above are taken off (>= 1; 1 when too few ops could show it).
    // Measured on 60 recordings of the built-in workloads (the thirteenth
    // session's), ops that took the same page faults in both kinds of call:
    // corrected as above, those of 2-256 us untraced still read 7-12% (median)
    // above their untraced times, those under 2 us -4..-3%, those over 512 us
    // +0.3%. A cost per op or per event cannot take that out (it grows with
    // the op's own time); a factor fitted per recording does.
    double slowdown = 1;
    size_t slowdown_samples = 0;

    // What the profiler added inside an op with `nested` events in it:
    // self_us, per_event_us for each of the first fitted_nested_max events,
    // loop_per_event_us for each one after them.
    double cost_us(double nested) const;
    // A profiled duration less cost_us(nested), then less the slowdown's
    // share of its first kProfilerSlowdownSaturationUs: the extra time
    // saturates, as measured (ops of milliseconds were not slowed).
    double corrected_us(double profiled_us, double nested) const;
};

// The slowdown is fitted (the median of corrected / untraced, in logs) on
// the ops that took this long untraced: shorter ones are the additive fit's
// (their ratio is mostly its residual), and the extra saturates past the
// second bound. Measured on the 60 recordings: fitted on 2-256 us and
// applied as corrected_us does, the original's corrected profile against its
// untraced op times 16.7 -> 12.6% (geometric mean over op names), the
// replays' error against the profile 18.2 -> 15.9%; on 0-256 us 14.7 /
// 17.2%, on 5-256 us 12.5 / 16.0%, saturating at 128 or 512 us the same
// within 0.1 point.
inline constexpr double kProfilerSlowdownMinUntracedUs = 2;
inline constexpr double kProfilerSlowdownSaturationUs = 256;

// Fewer than kMinSamples usable samples: no fit.
inline constexpr size_t kMinProfilerFitSamples = 10;

// Only ops shorter than this in the untraced calls are fitted (all of them
// when fewer than kMinProfilerFitSamples are): the profiler's costs, under a
// microsecond per op and per nested event, are a fraction of a percent of a
// longer op, whose own call-to-call noise is microseconds. With them, cnn's
// convolution and batch-norm backward ops (milliseconds, tens of nested
// events) set the per-event cost at 0.83-1.99 us in 5 of 6 recordings, and
// its corrected profile read 20-50% from the untraced op times; fitted on
// the short ops alone, 0.35-0.48 us and 16-20% (twelfth session, 24
// recordings: 17.8% -> 16.2% mean, dlrm 19.1 -> 20.1%).
inline constexpr double kProfilerFitMaxUntracedUs = 20;

// `loop_per_event_us`: the recorder's calibration loop's cost per event,
// kept as the per-event cost when no sample has a nested event, and for the
// events past fitted_nested_max.
std::optional<ProfilerCostFit> fit_profiler_cost(const std::vector<ProfiledOpSample>& samples,
                                                 double loop_per_event_us);

}  // namespace mimic::replay

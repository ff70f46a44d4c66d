// What recording cost the original, measured on the replay machine: the
// replayed ops inside the original's labels (label_plan.h), run alternately
// bare and under the instrumentation that recorded the trace
// (recording_instrumentation.h). The traced runs less the bare ones are what
// the observer and profiler added; a foreign trace's profiled span less that
// is its untraced iteration, estimated without running the original
// (host_gaps.h, instrumented_host_gaps).
#pragma once

#include <vector>

#include "replay/replayer.h"
#include "replay/timing/recording_instrumentation.h"

namespace mimic::replay {

struct RecordingOverhead {
    InstrumentationSetup setup;
    double traced_ms = 0;      // median labelled iteration under the instrumentation
    double untraced_ms = 0;    // median labelled iteration without it
    // Per step (-1 where unknown): the profiler's duration of the op in the
    // traced runs (their median), and its gap between the previous op's end
    // and this one's start (their mean: host_gaps.h, mean_per_step).
    std::vector<double> traced_op_us;
    std::vector<double> traced_gap_us;
    double paired_overhead_ms = 0;  // the median of traced - bare over adjacent pairs
    double overhead_ms() const { return paired_overhead_ms; }
};

// `passes` of each kind after one of each to warm up. Throws
// std::runtime_error when the instrumentation cannot be switched on.
RecordingOverhead measure_recording_overhead(Replayer& replayer, const LabelPlan& plan, const InstrumentationSetup& setup,
                                             int passes);

}  // namespace mimic::replay

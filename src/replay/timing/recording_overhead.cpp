#include "replay/timing/recording_overhead.h"

#include "replay/timing/host_gaps.h"
#include "support/median.h"

namespace mimic::replay {

RecordingOverhead measure_recording_overhead(Replayer& replayer, const LabelPlan& plan, const InstrumentationSetup& setup,
                                             int passes) {
    const LabelledRun run = replayer.prepare_labels(plan);
    const size_t steps = replayer.steps().size();
    std::vector<double> traced, untraced;
    std::vector<std::vector<double>> traced_op(steps), traced_gap(steps);
    const auto bare = [&](bool keep) {
        const double ms = replayer.run_labelled_iteration(run);
        if (keep) untraced.push_back(ms);
    };
    const auto instrumented = [&](bool keep) {
        std::vector<OpBracket> brackets;
        RecordingInstrumentation on(setup);
        const double ms = replayer.run_labelled_iteration(run, &brackets);
        const std::vector<ProfiledOpEvent> events = on.finish();
        if (!keep) return;
        traced.push_back(ms);
        const std::vector<int64_t> matched = match_bracket_events(brackets, events);
        size_t k = 0;
        int64_t previous_end = -1;
        for (size_t s = 0; s < steps && k < brackets.size(); ++s) {
            if (replayer.steps()[s].skipped) continue;
            const int64_t e = matched[k++];
            if (e < 0) {
                previous_end = -1;
                continue;
            }
            const ProfiledOpEvent& ev = events[size_t(e)];
            traced_op[s].push_back(double(ev.end_ns - ev.start_ns) / 1000.0);
            if (previous_end >= 0) traced_gap[s].push_back(double(std::max<int64_t>(0, ev.start_ns - previous_end)) / 1000.0);
            previous_end = ev.end_ns;
        }
    };
    bare(false);
    instrumented(false);
    for (int p = 0; p < passes; ++p) {
        bare(true);
        instrumented(true);
    }
    RecordingOverhead out;
    out.setup = setup;
    out.traced_ms = median(traced);
    out.untraced_ms = median(untraced);
    // Each traced run less the bare run just before it: the machine's speed
    // moves between runs (this project's VMs switch between two levels), and
    // a pair sees one level where two medians may see two.
    std::vector<double> differences;
    for (size_t k = 0; k < traced.size() && k < untraced.size(); ++k) differences.push_back(traced[k] - untraced[k]);
    out.paired_overhead_ms = median(differences);
    const auto medians = [](std::vector<std::vector<double>>& samples) {
        std::vector<double> m(samples.size(), -1.0);
        for (size_t s = 0; s < samples.size(); ++s)
            if (!samples[s].empty()) m[s] = median(std::move(samples[s]));
        return m;
    };
    out.traced_op_us = medians(traced_op);
    out.traced_gap_us = mean_per_step(traced_gap);  // not medians: see mean_per_step
    return out;
}

}  // namespace mimic::replay

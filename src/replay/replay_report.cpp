#include "replay/replay_report.h"

#include <sys/resource.h>

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/categories.h"
#include "support/median.h"

namespace mimic::replay {
namespace {

std::vector<TimeCompare> sorted_by_time(std::map<std::string, TimeCompare>& m) {
    std::vector<TimeCompare> out;
    for (auto& [k, v] : m) {
        v.key = k;
        out.push_back(v);
    }
    std::sort(out.begin(), out.end(), [](const TimeCompare& a, const TimeCompare& b) {
        return std::max(a.replay_us, a.profile_us) > std::max(b.replay_us, b.profile_us);
    });
    return out;
}

std::string category_of(const Trace& trace, NodeIndex i) {
    const Node& n = trace.nodes[i.value];
    const Attr* backend = trace.find_attr(n, "kernel_backend");
    std::string_view kb = backend && backend->value.kind == ValueKind::String ? trace.str(backend->value.payload.str) : "";
    return std::string(analysis::category_key(
        analysis::categorize(n.kind, n.chakra_type, trace.name(n), trace.str(n.op_schema), kb, true)));
}

}  // namespace

uint64_t peak_rss_bytes() {
    struct rusage u {};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return uint64_t(u.ru_maxrss) * 1024;  // Linux reports KiB
}

uint64_t minor_page_faults() {
    struct rusage u {};
    if (getrusage(RUSAGE_SELF, &u) != 0) return 0;
    return uint64_t(u.ru_minflt);
}

std::string recorded_device(const Trace& trace, const Selection& sel) {
    std::string device;
    for (NodeIndex n : sel.ops) {
        const Node& node = trace.nodes[n.value];
        for (uint32_t k = 0; k < node.inputs.count; ++k) {
            const Value& v = trace.values[node.inputs.begin + k];
            if (v.kind != ValueKind::Tensor || trace.tensor(v).undefined) continue;
            std::string_view dev = trace.str(trace.tensor(v).device);
            if (device.empty() || (dev.rfind("cpu", 0) != 0 && !dev.empty())) device = std::string(dev);
        }
        if (!device.empty() && device.rfind("cpu", 0) != 0) break;
    }
    return device;
}

bool times_comparable(std::string_view recorded, std::string_view replay_device) {
    return recorded.empty() || recorded.substr(0, replay_device.size()) == replay_device;
}

std::optional<double> profiled_span(const Trace& trace, const Selection& sel) {
    if (trace.timing.size() != trace.nodes.size()) return std::nullopt;
    auto linked = [&](NodeIndex n) { return trace.timing[n.value].linked(); };
    if (sel.label_node != kNoNode && linked(sel.label_node)) return trace.timing[sel.label_node.value].duration_us / 1000.0;
    double lo = INFINITY, hi = -INFINITY;
    for (NodeIndex n : sel.ops)
        if (linked(n)) {
            lo = std::min(lo, trace.timing[n.value].start_us);
            hi = std::max(hi, trace.timing[n.value].start_us + trace.timing[n.value].duration_us);
        }
    if (hi > lo) return (hi - lo) / 1000.0;
    return std::nullopt;
}

ReplayReport make_report(const Trace& trace, const Replayer& replayer, const ReplaySettings& settings,
                         const std::vector<double>& iteration_ms, const std::optional<RecordingMeta>& meta,
                         const HostGapModel& gaps, uint64_t page_faults, const OpGaps* untraced,
                         const std::vector<double>* untraced_pass_us, const OpFaults* profiled_faults) {
    ReplayReport r;
    r.untraced_op_pass = untraced_pass_us != nullptr;
    r.settings = settings;
    const Selection& sel = replayer.selection();
    r.iteration_label = sel.iteration_label;
    r.iteration_ms = iteration_ms;
    r.median_ms = median(iteration_ms);
    r.ops_total = sel.ops.size() + sel.excluded.size();
    r.ops_replayed = replayer.replayed_count();
    r.gaps = gaps;
    r.pool_bytes = replayer.pool_bytes();
    r.peak_rss_bytes = peak_rss_bytes();
    if (!iteration_ms.empty()) r.page_faults_per_iter = double(page_faults) / double(iteration_ms.size());
    if (meta) r.original_page_faults_per_iter = meta->untraced_page_faults_per_iter;
    if (meta) r.original_machine = meta->machine;
    r.fallbacks = replayer.fallbacks();
    r.shape_mismatches = replayer.shape_mismatches();
    r.runtime_errors = replayer.runtime_errors();

    const bool timed = trace.timing.size() == trace.nodes.size();
    r.recorded_device = recorded_device(trace, sel);
    r.times_comparable = times_comparable(r.recorded_device, settings.device);
    auto linked = [&](NodeIndex n) { return timed && trace.timing[n.value].linked(); };

    // Original iteration time. Op time only with no host gaps: the
    // replayed ops' profiled durations, never a whole iteration's span.
    if (settings.host_gaps == "none") {
        if (timed) {
            const std::vector<uint32_t> sizes = subtree_sizes(trace);
            double us = 0;
            for (const Step& s : replayer.steps())
                if (!s.skipped && linked(s.node)) us += corrected_duration_us(trace, s.node, sizes, gaps.per_event_us, gaps.probe_cost_us);
            r.original_ms = us / 1000.0;
            r.original_source = gaps.calibrated ? "op time only: the replayed ops' profiled durations less the profiler's cost"
                                                : "op time only: the replayed ops' profiled durations, traced: instrumentation included";
        }
    } else if (meta && meta->untraced_median_ms) {
        r.original_ms = *meta->untraced_median_ms;
        r.original_source = "meta.json untraced median";
    } else if (gaps.instrumented && gaps.traced_span_us > 0) {
        if (gaps.untraced_us > 0) {
            r.original_ms = gaps.untraced_us / 1000.0;
            r.original_source = "untraced, estimated: the profiled span less the recording's instrumentation measured here";
        } else {
            // The replay paid more for the instrumentation than the whole
            // profiled span: its ops did more under it than the original's
            // (an op whose work depends on its inputs' values, replayed on
            // synthetic ones). No estimate is better than a zero.
            r.original_source = "no untraced estimate: the instrumentation measured here is not less than the profiled "
                                "span (the replay did more under it than the original: ops whose work depends on their "
                                "inputs' values)";
        }
    } else if (std::optional<double> span = profiled_span(trace, sel)) {
        r.original_ms = *span;
        r.original_source = sel.label_node != kNoNode && linked(sel.label_node)
                                ? "profiled iteration label, traced: instrumentation included"
                                : "profiled span of the replayed range, traced: instrumentation included";
    }
    if (r.original_ms && *r.original_ms > 0 && !iteration_ms.empty())
        r.error_pct = (r.median_ms - *r.original_ms) / *r.original_ms * 100.0;

    // Skipped ops, grouped.
    std::map<std::pair<std::string, std::string>, uint64_t> skips;
    for (const SkippedOp& s : replayer.skipped()) ++skips[{s.name, s.reason}];
    for (const auto& [k, n] : skips) r.skipped.push_back({k.first, k.second, n});
    std::sort(r.skipped.begin(), r.skipped.end(), [](const SkipCount& a, const SkipCount& b) { return a.count > b.count; });

    std::map<std::string, uint64_t> mismatched;
    for (NodeIndex n : replayer.mismatched_nodes()) ++mismatched[std::string(trace.name(trace.nodes[n.value]))];
    r.mismatched_ops.assign(mismatched.begin(), mismatched.end());
    std::sort(r.mismatched_ops.begin(), r.mismatched_ops.end(), [](const auto& a, const auto& b) { return a.second > b.second; });

    // Coverage by recorded time.
    std::vector<uint32_t> sizes = subtree_sizes(trace);
    // The original's untraced duration of an op, less the probe's cost for
    // each op nested in it, as the replay's timer is corrected for its own.
    auto untraced_us = [&](NodeIndex n) -> std::optional<double> {
        if (!untraced) return std::nullopt;
        auto it = untraced->by_node.find(trace.nodes[n.value].id.value);
        if (it == untraced->by_node.end()) return std::nullopt;
        return std::max(0.0, it->second.duration_us - untraced->probe_cost_per_event_us * double(sizes[n.value] - 1));
    };
    // The profiler's cost in this recording, fitted on the ops that took the
    // same page faults in the profiled and the untraced calls.
    if (untraced && timed) {
        std::vector<ProfiledOpSample> samples;
        for (const Step& s : replayer.steps()) {
            if (s.skipped || !linked(s.node)) continue;
            const std::optional<double> u = untraced_us(s.node);
            if (!u) continue;
            const uint64_t id = trace.nodes[s.node.value].id.value;
            if (profiled_faults) {
                auto p = profiled_faults->by_node.find(id);
                auto q = untraced->by_node.find(id);
                if (p == profiled_faults->by_node.end() || q->second.faults < 0 || p->second != q->second.faults) continue;
            }
            samples.push_back({trace.timing[s.node.value].typical_duration_us(), *u, double(sizes[s.node.value] - 1)});
        }
        r.profiler_cost_fit = fit_profiler_cost(samples, gaps.per_event_us);
    }
    // The events nested in the op carry the profiler's cost inside its
    // interval; the replay's timer is corrected the same way (time_ops).
    auto profile_us = [&](NodeIndex n) {
        const auto& f = r.profiler_cost_fit;
        return f ? f->corrected_us(trace.timing[n.value].typical_duration_us(), double(sizes[n.value] - 1))
                 : corrected_duration_us(trace, n, sizes, gaps.per_event_us, gaps.probe_cost_us);
    };
    if (timed) {
        double all = 0, done = 0;
        for (NodeIndex n : sel.ops)
            if (linked(n)) all += trace.timing[n.value].duration_us;
        for (const Excluded& e : sel.excluded)
            if (linked(e.node)) all += trace.timing[e.node.value].duration_us;
        for (const Step& s : replayer.steps())
            if (!s.skipped && linked(s.node)) done += trace.timing[s.node.value].duration_us;
        if (all > 0) r.coverage_time_pct = 100.0 * done / all;
    }

    // Per op name and per category: the replay's timing pass against the profile.
    std::map<std::string, TimeCompare> by_name, by_cat;
    const auto& steps = replayer.steps();
    for (size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        if (s.skipped) continue;
        const double us = replayer.op_us()[i];
        const double us_untraced_pass = untraced_pass_us ? (*untraced_pass_us)[i] : us;
        r.op_time_sum_ms += us / 1000.0;
        OpTime t;
        t.node_id = int64_t(trace.nodes[s.node.value].id.value);
        t.name = s.name;
        t.replay_us = us;
        if (untraced_pass_us) t.replay_untraced_pass_us = us_untraced_pass;
        if (settings.host_gaps != "none" && gaps.gap_us.size() == steps.size()) t.host_gap_us = gaps.gap_us[i];
        const std::vector<double>& profiled_pass = replayer.profiled_op_us();
        if (profiled_pass.size() == steps.size() && profiled_pass[i] >= 0) t.replay_profiled_us = profiled_pass[i];
        if (linked(s.node)) {
            t.profile_us = profile_us(s.node);
            t.profile_raw_us = trace.timing[s.node.value].typical_duration_us();
            r.profile_iterations = std::max<uint32_t>(r.profile_iterations, trace.timing[s.node.value].iterations);
        }
        t.untraced_us = untraced_us(s.node);
        if (profiled_faults) {
            const auto it = profiled_faults->by_node.find(uint64_t(t.node_id));
            if (it != profiled_faults->by_node.end()) t.original_page_faults = it->second;
        }
        for (auto* m : {&by_name[s.name], &by_cat[category_of(trace, s.node)]}) {
            ++m->count;
            m->replay_us += us;
            m->replay_untraced_pass_us += us_untraced_pass;
            if (t.replay_profiled_us) {
                m->replay_profiled_us += *t.replay_profiled_us;
                ++m->replay_profiled;
            }
            if (t.profile_us) {
                m->profile_us += *t.profile_us;
                m->profile_raw_us += *t.profile_raw_us;
                ++m->profiled;
            }
            if (t.untraced_us) {
                m->untraced_us += *t.untraced_us;
                ++m->untraced;
            }
        }
        r.op_times.push_back(std::move(t));
    }
    for (const analysis::ScheduledCollective& c : sel.collectives)
        if (c.kind != CommKind::Wait) ++r.collectives_total;
    for (size_t i = 0; i < steps.size(); ++i) {
        const Step& s = steps[i];
        if (s.collective < 0 || s.skipped) continue;
        const ReplayCollective& c = replayer.collectives()[size_t(s.collective)];
        if (c.recorded.kind == CommKind::Wait) continue;
        CollectiveTiming t;
        t.name = s.name;
        t.collective = analysis::call_name(c.recorded);
        t.pg_name = c.group->name;
        t.group_size = int64_t(c.group->ranks.size());
        t.input_bytes = c.recorded.input_bytes;
        t.output_bytes = c.recorded.output_bytes;
        t.latency_us = replayer.op_us()[i];
        if (linked(s.node)) t.recorded_us = trace.timing[s.node.value].duration_us;
        t.waits_at_once = c.recorded.waits_at_once;
        t.emulation = c.emulation;
        r.collectives.push_back(std::move(t));
    }
    r.per_op = sorted_by_time(by_name);
    r.per_category = sorted_by_time(by_cat);
    // Geometric mean over op names of max(replay/profile, profile/replay), as a percentage above 1.
    // Names with a reference for only some of their ops are left out: their sums would not compare.
    // The untraced times are compared with the pass that allocated as their calls did.
    using Field = double TimeCompare::*;
    using Count = uint64_t TimeCompare::*;
    auto geomean = [&](Field replay, Field reference, Count with_reference,
                       Count with_replay = &TimeCompare::count) -> std::optional<double> {
        double log_sum = 0;
        size_t n = 0;
        for (const TimeCompare& t : r.per_op) {
            if (t.*reference <= 0 || t.*replay <= 0 || t.*with_reference != t.count || t.*with_replay != t.count) continue;
            log_sum += std::fabs(std::log(t.*replay / (t.*reference)));
            ++n;
        }
        if (!n) return std::nullopt;
        return (std::exp(log_sum / double(n)) - 1.0) * 100.0;
    };
    r.per_op_error_geomean_pct = geomean(&TimeCompare::replay_us, &TimeCompare::profile_us, &TimeCompare::profiled);
    r.per_op_error_geomean_raw_pct =
        geomean(&TimeCompare::replay_us, &TimeCompare::profile_raw_us, &TimeCompare::profiled);
    r.per_op_error_geomean_untraced_pct =
        geomean(&TimeCompare::replay_untraced_pass_us, &TimeCompare::untraced_us, &TimeCompare::untraced);
    auto weighted = [&](Field replay, Field reference, Count with_reference,
                        Count with_replay = &TimeCompare::count) -> std::optional<double> {
        double abs_diff = 0, reference_sum = 0;
        for (const TimeCompare& t : r.per_op) {
            if (t.*with_reference != t.count || t.*with_replay != t.count) continue;
            abs_diff += std::fabs(t.*replay - t.*reference);
            reference_sum += t.*reference;
        }
        if (reference_sum <= 0) return std::nullopt;
        return 100.0 * abs_diff / reference_sum;
    };
    r.per_op_error_weighted_pct = weighted(&TimeCompare::replay_us, &TimeCompare::profile_us, &TimeCompare::profiled);
    r.per_op_error_weighted_untraced_pct =
        weighted(&TimeCompare::replay_untraced_pass_us, &TimeCompare::untraced_us, &TimeCompare::untraced);
    r.per_op_error_geomean_profiled_pct = geomean(&TimeCompare::replay_profiled_us, &TimeCompare::profile_raw_us,
                                                  &TimeCompare::profiled, &TimeCompare::replay_profiled);
    r.per_op_error_weighted_profiled_pct = weighted(&TimeCompare::replay_profiled_us, &TimeCompare::profile_raw_us,
                                                    &TimeCompare::profiled, &TimeCompare::replay_profiled);
    return r;
}

}  // namespace mimic::replay

// Text and JSON forms of a replay report.
#include <fmt/format.h>

#include "replay/replay_report.h"
#include "support/json_writer.h"

namespace mimic::replay {
namespace {

// `untraced_pass`: the untraced times were compared with a per-op pass of their own (ReplayReport::untraced_op_pass).
void compare_rows(JsonWriter& w, const std::vector<TimeCompare>& rows, bool untraced_pass) {
    w.begin_array();
    for (const TimeCompare& t : rows) {
        w.begin_object().field("name", t.key).field("count", uint64_t(t.count)).field("replay_us", t.replay_us);
        if (t.profiled) w.field("profile_us", t.profile_us).field("profile_raw_us", t.profile_raw_us);
        if (auto e = t.error_pct()) w.field("error_pct", *e);
        if (auto e = t.profiled_error_pct())
            w.field("replay_profiled_us", t.replay_profiled_us).field("profiled_error_pct", *e);
        if (auto e = t.untraced_error_pct()) {
            w.field("untraced_us", t.untraced_us).field("untraced_error_pct", *e);
            if (untraced_pass) w.field("replay_untraced_pass_us", t.replay_untraced_pass_us);
        }
        w.end_object();
    }
    w.end_array();
}

template <typename T>
void optional_field(JsonWriter& w, const char* key, const std::optional<T>& v) {
    if (v) w.field(key, *v);
    else w.key(key).null();
}

// The untraced budget's page-fault term (host_gaps.h, fault_excess), or "" when there is none.
std::string fault_excess_text(const HostGapModel& g) {
    if (g.fault_excess == 0) return "";
    const int64_t n = g.fault_excess > 0 ? g.fault_excess : -g.fault_excess;
    return fmt::format(" {} {:.3f} ms for the {} page faults per iteration the {} ({:.2f} us each here)",
                       g.fault_excess > 0 ? '-' : '+', static_cast<double>(n) * g.fault_cost_us / 1000.0, n,
                       g.fault_excess > 0 ? "untraced calls took beyond the profiled one" : "profiled one took beyond the untraced calls",
                       g.fault_cost_us);
}

}  // namespace

std::string report_json(const ReplayReport& r) {
    JsonWriter w;
    w.begin_object();
    w.field("trace", r.settings.trace_path).field("device", r.settings.device).field("threads", r.settings.threads);
    w.field("warmup", r.settings.warmup).field("iters", r.settings.iters).field("op_passes", r.settings.op_passes);
    w.field("profiled_sessions", r.settings.profiled_sessions).field("lazy", r.settings.lazy);
    w.field("host_gaps", r.settings.host_gaps).field("iteration_label", r.iteration_label);
    w.key("iteration_ms").begin_array();
    for (double ms : r.iteration_ms) w.value(ms);
    w.end_array();
    w.field("median_ms", r.median_ms);
    optional_field(w, "original_ms", r.original_ms);
    w.field("original_source", r.original_source);
    optional_field(w, "error_pct", r.error_pct);
    w.field("recorded_device", r.recorded_device).field("times_comparable", r.times_comparable);
    w.key("machines");
    write_machines_json(w, r.machines());
    w.field("ops_total", uint64_t(r.ops_total)).field("ops_replayed", uint64_t(r.ops_replayed));
    w.field("coverage_pct", r.coverage_pct());
    optional_field(w, "coverage_time_pct", r.coverage_time_pct);
    w.key("ops_skipped").begin_array();
    for (const SkipCount& s : r.skipped)
        w.begin_object().field("name", s.name).field("reason", s.reason).field("count", uint64_t(s.count)).end_object();
    w.end_array();
    w.field("op_time_sum_ms", r.op_time_sum_ms);
    optional_field(w, "per_op_error_geomean_pct", r.per_op_error_geomean_pct);
    w.field("profile_iterations", r.profile_iterations);
    optional_field(w, "per_op_error_geomean_raw_pct", r.per_op_error_geomean_raw_pct);
    w.key("profiler_cost_fit");
    if (const auto& f = r.profiler_cost_fit)
        w.begin_object()
            .field("self_us", f->self_us)
            .field("per_event_us", f->per_event_us)
            .field("per_event_fitted", f->per_event_fitted)
            .field("fitted_nested_max", f->fitted_nested_max)
            .field("loop_per_event_us", f->loop_per_event_us)
            .field("samples", uint64_t(f->samples))
            .field("slowdown", f->slowdown)
            .field("slowdown_samples", uint64_t(f->slowdown_samples))
            .end_object();
    else
        w.null();
    optional_field(w, "per_op_error_weighted_pct", r.per_op_error_weighted_pct);
    optional_field(w, "per_op_error_geomean_profiled_pct", r.per_op_error_geomean_profiled_pct);
    optional_field(w, "per_op_error_weighted_profiled_pct", r.per_op_error_weighted_profiled_pct);
    optional_field(w, "per_op_error_geomean_untraced_pct", r.per_op_error_geomean_untraced_pct);
    w.field("untraced_op_pass", r.untraced_op_pass);
    optional_field(w, "per_op_error_weighted_untraced_pct", r.per_op_error_weighted_untraced_pct);
    w.key("host_gap_model").begin_object();
    w.field("calibrated", r.gaps.calibrated).field("per_event_overhead_us", r.gaps.per_event_us);
    w.field("probe_cost_per_op_us", r.gaps.probe_cost_us);
    w.field("recorded_gaps_ms", r.gaps.recorded_total_us / 1000.0).field("corrected_gaps_ms", r.gaps.corrected_total_us / 1000.0);
    w.field("blocked_on_collectives_ms", r.gaps.blocked_total_us / 1000.0);
    w.field("unrecorded_callers_ms", r.gaps.unrecorded_total_us / 1000.0);
    w.field("from_untraced", r.gaps.from_untraced);
    w.field("measured", r.gaps.measured);
    w.field("per_gap_cpu", !r.gaps.gap_cpu_us.empty());
    if (!r.gaps.gap_cpu_us.empty()) w.field("cpu_gaps_ms", r.gaps.cpu_total_us / 1000.0);
    if (r.gaps.cpu_share > 0) w.field("cpu_share", r.gaps.cpu_share);
    if (r.gaps.from_untraced)
        w.field("untraced_ms", r.gaps.untraced_us / 1000.0)
            .field("recorded_op_time_ms", r.gaps.op_time_us / 1000.0)
            .field("untraced_excess_page_faults", r.gaps.fault_excess)
            .field("page_fault_cost_us", r.gaps.fault_cost_us)
            .field("gap_scale", r.gaps.scale);
    w.field("instrumented", r.gaps.instrumented);
    if (r.gaps.instrumented)
        w.field("instrumentation", r.gaps.instrumentation)
            .field("traced_span_ms", r.gaps.traced_span_us / 1000.0)
            .field("instrumentation_ms", r.gaps.instrumentation_us / 1000.0)
            .field("original_speed", r.gaps.original_speed)
            .field("estimated_untraced_ms", r.gaps.untraced_us / 1000.0)
            .field("replay_traced_ms", r.gaps.replay_traced_ms)
            .field("replay_untraced_ms", r.gaps.replay_untraced_ms)
            .field("python_stack_events", r.gaps.python_stack_events);
    w.end_object();
    w.key("per_category");
    compare_rows(w, r.per_category, r.untraced_op_pass);
    w.key("per_op");
    compare_rows(w, r.per_op, r.untraced_op_pass);
    w.field("pool_bytes", uint64_t(r.pool_bytes)).field("peak_rss_bytes", uint64_t(r.peak_rss_bytes));
    w.field("estimated_peak_bytes", uint64_t(r.estimated_peak_bytes));
    if (r.page_faults_per_iter) w.field("page_faults_per_iter", *r.page_faults_per_iter);
    if (r.original_page_faults_per_iter) w.field("original_page_faults_per_iter", *r.original_page_faults_per_iter);
    w.field("page_faults_mode", r.settings.page_faults);
    w.field("denormals", r.settings.denormals);
    if (r.original_op_page_faults) w.field("original_op_page_faults", *r.original_op_page_faults);
    if (r.fresh_pages_per_iter) w.field("fresh_pages_per_iter", *r.fresh_pages_per_iter);
    if (r.fresh_pages_per_op_pass) w.field("fresh_pages_per_op_pass", *r.fresh_pages_per_op_pass);
    if (r.recorded_layout_tensors) {
        w.field("recorded_layout_tensors", uint64_t(*r.recorded_layout_tensors));
        w.field("recorded_layout_ops", uint64_t(r.recorded_layout_ops.value_or(0)));
        w.field("recorded_layout_mismatched_ops", uint64_t(r.recorded_layout_mismatched_ops.value_or(0)));
    }
    if (r.channels_last_tensors) {
        w.field("channels_last_tensors", uint64_t(*r.channels_last_tensors));
        w.field("channels_last_format", r.channels_last_format == 3 ? "channels_last_3d" : "channels_last");
        w.field("channels_last_converting_ops", uint64_t(r.channels_last_converting_ops));
    }
    w.field("fallbacks", uint64_t(r.fallbacks)).field("shape_mismatches", uint64_t(r.shape_mismatches));
    w.key("shape_mismatched_ops").begin_array();
    for (const auto& [name, count] : r.mismatched_ops) w.begin_object().field("name", name).field("count", count).end_object();
    w.end_array();
    w.field("runtime_errors", uint64_t(r.runtime_errors));
    w.field("rank", r.rank).field("world_size", r.world_size);
    w.field("collectives_total", r.collectives_total).field("collectives_replayed", uint64_t(r.collectives.size()));
    w.key("collectives").begin_array();
    for (const CollectiveTiming& c : r.collectives) {
        w.begin_object().field("name", c.name).field("collective", c.collective).field("pg_name", c.pg_name);
        w.field("group_size", c.group_size).field("input_bytes", c.input_bytes).field("output_bytes", c.output_bytes);
        w.field("latency_us", c.latency_us);
        optional_field(w, "recorded_us", c.recorded_us);
        w.field("waits_at_once", c.waits_at_once).field("emulation", c.emulation);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.str() + "\n";
}

std::string op_times_json(const ReplayReport& r) {
    JsonWriter w;
    w.begin_object().field("trace", r.settings.trace_path).field("iteration_label", r.iteration_label);
    w.field("host_gaps", r.settings.host_gaps);  // what each op's host_gap_us is
    w.key("ops").begin_array();
    for (const OpTime& t : r.op_times) {
        w.begin_object().field("node_id", t.node_id).field("name", t.name).field("replay_us", t.replay_us);
        optional_field(w, "profile_us", t.profile_us);
        optional_field(w, "profile_raw_us", t.profile_raw_us);
        optional_field(w, "untraced_us", t.untraced_us);
        if (t.replay_untraced_pass_us) w.field("replay_untraced_pass_us", *t.replay_untraced_pass_us);
        if (t.replay_profiled_us) w.field("replay_profiled_us", *t.replay_profiled_us);
        if (t.host_gap_us) w.field("host_gap_us", *t.host_gap_us);
        if (t.original_page_faults) w.field("original_page_faults", *t.original_page_faults);
        if (t.replay_page_faults) w.field("replay_page_faults", *t.replay_page_faults);
        w.end_object();
    }
    w.end_array().end_object();
    return w.str() + "\n";
}

std::string report_text(const ReplayReport& r, size_t max_rows) {
    std::string out;
    auto line = [&](const std::string& s) { out += s + "\n"; };
    line(fmt::format("replay of {}{}", r.settings.trace_path,
                     r.iteration_label.empty() ? " (whole trace)" : " (" + r.iteration_label + ")"));
    line(fmt::format("  device {}, {} threads, {} warmup + {} iterations, per-op median of {} passes, host gaps {}{}{}",
                     r.settings.device, r.settings.threads, r.settings.warmup, r.settings.iters, r.settings.op_passes,
                     r.settings.host_gaps,
                     r.settings.lazy ? ", lazy" : "", r.settings.denormals == "flush" ? ", denormals flushed" : ""));
    out += machines_text(r.machines());
    line(fmt::format("  ops: {} of {} top-level replayed ({:.2f}%{})", r.ops_replayed, r.ops_total, r.coverage_pct(),
                     r.coverage_time_pct ? fmt::format(", {:.2f}% of recorded time", *r.coverage_time_pct) : ""));
    line(fmt::format("  replay median {:.3f} ms per iteration (op time {:.3f} ms, host gaps {:.3f} ms)", r.median_ms,
                     r.op_time_sum_ms, r.gaps.corrected_total_us / 1000.0));
    if (!r.gaps.gap_cpu_us.empty() && r.settings.host_gaps != "none")
        line(fmt::format("  host gaps spun as the CPU time the original's thread ran in each: {:.3f} ms of {:.3f} ms",
                         r.gaps.cpu_total_us / 1000.0, r.gaps.corrected_total_us / 1000.0));
    else if (r.gaps.cpu_share > 0 && r.settings.host_gaps != "none")
        line(fmt::format("  host gaps spun in CPU time at the original's CPU share {:.2f}", r.gaps.cpu_share));
    if (r.gaps.instrumented)
        line(fmt::format("  recording's instrumentation, measured here: the replay {:.3f} ms per iteration under the {} "
                         "and {:.3f} ms without; at the original's speed (x{:.2f}, its profiled ops over the replay's) the "
                         "profiled span {:.3f} ms less {:.3f} ms{} = {:.3f} ms untraced (estimated)",
                         r.gaps.replay_traced_ms, r.gaps.instrumentation, r.gaps.replay_untraced_ms, r.gaps.original_speed,
                         r.gaps.traced_span_us / 1000.0, r.gaps.instrumentation_us / 1000.0,
                         r.gaps.unrecorded_total_us > 0
                             ? fmt::format(" and the {:.3f} ms of gaps left out below", r.gaps.unrecorded_total_us / 1000.0)
                             : std::string(),
                         r.gaps.untraced_us / 1000.0));
    if (r.gaps.instrumented && r.gaps.python_stack_events > 0)
        line(fmt::format("  warning: the profile holds {} Python function events: the recording captured Python's stack at "
                         "each op (with_stack), a cost a replay without Python cannot measure, so the untraced time and "
                         "host gaps estimated here are high by it (a GPT-style step recorded with_stack replayed +37%)",
                         r.gaps.python_stack_events));
    if (r.gaps.instrumented)
        line(fmt::format("  host time: the recorded gaps {:.3f} ms{}{} less the replay's traced gaps there = {:.3f} ms",
                         r.gaps.recorded_total_us / 1000.0,
                         r.gaps.blocked_total_us > 0
                             ? fmt::format(" less {:.3f} ms waiting for collectives to complete", r.gaps.blocked_total_us / 1000.0)
                             : std::string(),
                         r.gaps.unrecorded_total_us > 0
                             ? fmt::format(" less {:.3f} ms inside profiled ops the trace does not hold (their calls ran "
                                           "from C++; the observer failed to write them)",
                                           r.gaps.unrecorded_total_us / 1000.0)
                             : std::string(),
                         r.gaps.corrected_total_us / 1000.0));
    if (r.gaps.from_untraced)
        line(fmt::format("  host time from the untraced run: {:.3f} ms untraced - {:.3f} ms recorded op time "
                         "(corrected){}; recorded gaps x {:.2f}",
                         r.gaps.untraced_us / 1000.0, r.gaps.op_time_us / 1000.0,
                         fault_excess_text(r.gaps),
                         r.gaps.scale));
    if (r.original_ms)
        line(fmt::format("  original {:.3f} ms ({}), error {:+.1f}%", *r.original_ms, r.original_source, r.error_pct.value_or(0)));
    else if (!r.original_source.empty())
        line(fmt::format("  original: {}", r.original_source));
    else
        line("  original time unknown (no meta.json and no linked profile)");
    if (!r.times_comparable)
        line(fmt::format("  note: recorded on {}, replayed on {}: the times measure different hardware", r.recorded_device,
                         r.settings.device));
    if (r.per_op_error_geomean_pct)
        line(fmt::format("  per-op time vs profile{}: geometric mean error {:.1f}% (corrected durations), {:.1f}% (as recorded)",
                         r.profile_iterations > 1 ? fmt::format(" (each op's median over {} profiled iterations)", r.profile_iterations)
                                                  : std::string(),
                         *r.per_op_error_geomean_pct, r.per_op_error_geomean_raw_pct.value_or(0)));
    if (const auto& f = r.profiler_cost_fit)
        line(fmt::format("  profile durations corrected by the profiler's cost fitted against the untraced calls on {} ops: "
                         "{:.2f} us per op, {:.2f} us per nested event{}, the recorder's {:.2f} for each past {:g}; "
                         "then the profiled calls' slowdown x{:.3f} (fitted on {} ops of {:g}-{:g} us) on each op's first {:g} us",
                         f->samples, f->self_us, f->per_event_us, f->per_event_fitted ? "" : " (the recorder's)",
                         f->loop_per_event_us, f->fitted_nested_max, f->slowdown, f->slowdown_samples,
                         kProfilerSlowdownMinUntracedUs, kProfilerSlowdownSaturationUs, kProfilerSlowdownSaturationUs));
    if (r.per_op_error_weighted_pct)
        line(fmt::format("  per-op time vs profile, weighted by time: {:.1f}% of profiled op time", *r.per_op_error_weighted_pct));
    if (r.per_op_error_geomean_profiled_pct)
        line(fmt::format("  per-op time under torch's profiler (set up as the recorder's, {} sessions) vs the profile "
                         "as recorded: geometric mean error {:.1f}%, weighted by time {:.1f}%",
                         r.settings.profiled_sessions, *r.per_op_error_geomean_profiled_pct,
                         r.per_op_error_weighted_profiled_pct.value_or(0)));
    if (r.per_op_error_geomean_untraced_pct)
        line(fmt::format("  per-op time vs the original's untraced op times (op_gaps.json{}): geometric mean error {:.1f}%, "
                         "weighted by time {:.1f}%",
                         r.untraced_op_pass ? ", against a pass given their calls' page faults" : "",
                         *r.per_op_error_geomean_untraced_pct, r.per_op_error_weighted_untraced_pct.value_or(0)));
    line(fmt::format("  memory: pool {:.1f} MiB, peak RSS {:.1f} MiB (estimated before allocating: {:.1f} MiB); {} consumers "
                     "rerouted to pool tensors, {} shape mismatches",
                     double(r.pool_bytes) / 1048576.0, double(r.peak_rss_bytes) / 1048576.0,
                     double(r.estimated_peak_bytes) / 1048576.0, r.fallbacks, r.shape_mismatches));
    if (r.page_faults_per_iter)
        line(fmt::format("  page faults per iteration: {:.0f}{}", *r.page_faults_per_iter,
                         r.original_page_faults_per_iter
                             ? fmt::format(" (original {:.0f}: a difference is allocator state, and costs time)",
                                           *r.original_page_faults_per_iter)
                             : std::string()));
    if (r.fresh_pages_per_iter)
        line(fmt::format("  fresh pages given to ops: {} per timed iteration (for the untraced iterations' faults), "
                         "{} in the per-op pass (for the {} faults of the profiled iteration's ops)",
                         *r.fresh_pages_per_iter, r.fresh_pages_per_op_pass.value_or(0),
                         r.original_op_page_faults.value_or(0)));
    if (r.recorded_layout_tensors)
        line(fmt::format("  original tensor layouts (op_layouts.json): strides given to {} tensors of {} ops{}",
                         *r.recorded_layout_tensors, r.recorded_layout_ops.value_or(0),
                         r.recorded_layout_mismatched_ops.value_or(0)
                             ? fmt::format(", {} ops did not match the trace and kept its layouts",
                                           *r.recorded_layout_mismatched_ops)
                             : std::string()));
    if (r.channels_last_tensors) {
        const char* format = r.channels_last_format == 3 ? "channels-last-3d" : "channels-last";
        line(r.channels_last_evidence.empty()
                 ? fmt::format("  layout: {} {}-D tensors from outside the step made {} (--channels-last yes)",
                               *r.channels_last_tensors, r.channels_last_format == 3 ? 5 : 4, format)
                 : fmt::format("  layout: the trace converts tensors to {} in {} ops (first {}) and records no strides: "
                               "its {} {}-D tensors from outside the step made {}, as a converted model's are "
                               "(--channels-last no keeps them contiguous)",
                               format, r.channels_last_converting_ops, r.channels_last_evidence, *r.channels_last_tensors,
                               r.channels_last_format == 3 ? 5 : 4, format));
    }
    if (!r.mismatched_ops.empty()) {
        line("  outputs unlike the recording (their consumers took pool tensors; shapes that depend on values "
             "differ with the replay's values):");
        for (size_t i = 0; i < r.mismatched_ops.size() && i < max_rows; ++i)
            line(fmt::format("    {:5} {}", r.mismatched_ops[i].second, r.mismatched_ops[i].first));
    }
    if (!r.skipped.empty()) {
        line("  skipped:");
        for (size_t i = 0; i < r.skipped.size() && i < max_rows; ++i)
            line(fmt::format("    {:5} {}: {}", r.skipped[i].count, r.skipped[i].name, r.skipped[i].reason));
    }
    if (!r.collectives.empty()) {
        line(fmt::format("  rank {} of {}: {} communication calls", r.rank, r.world_size, r.collectives.size()));
        line(fmt::format("    {:<30} {:>8} {:>14} {:>12} {:>12} {:>12}", "call (group)", "bytes", "latency_us",
                         "recorded_us", "algbw_GBps", "busbw_GBps"));
        for (size_t i = 0; i < r.collectives.size() && i < max_rows; ++i) {
            const CollectiveTiming& c = r.collectives[i];
            const double alg = c.latency_us > 0 ? double(c.message_bytes()) / c.latency_us / 1e3 : 0.0;
            const double bus = alg * analysis::bus_bandwidth_factor(collective_from_name(c.collective), c.group_size);
            line(fmt::format("    {:<30} {:>8} {:>14.1f} {:>12} {:>12.3f} {:>12.3f}{}", c.collective + " (" + c.pg_name + ")",
                             c.message_bytes(), c.latency_us, c.recorded_us ? fmt::format("{:.1f}", *c.recorded_us) : "-",
                             alg, bus, c.emulation.empty() ? "" : "  [" + c.emulation + "]"));
        }
    }
    const bool untraced = r.per_op_error_geomean_untraced_pct.has_value();
    line(fmt::format("  {:<40} {:>6} {:>12} {:>12} {:>8}{}", "op", "count", "replay_us", "profile_us", "error",
                     untraced ? fmt::format(" {:>12} {:>8}", "untraced_us", "error") : ""));
    for (size_t i = 0; i < r.per_op.size() && i < max_rows; ++i) {
        const TimeCompare& t = r.per_op[i];
        auto e = t.error_pct();
        const auto u = t.untraced_error_pct();
        line(fmt::format("  {:<40} {:>6} {:>12.1f} {:>12} {:>8}{}", t.key.substr(0, 40), t.count, t.replay_us,
                         t.profiled ? fmt::format("{:.1f}", t.profile_us) : "-", e ? fmt::format("{:+.1f}%", *e) : "-",
                         !untraced ? ""
                         : u      ? fmt::format(" {:>12.1f} {:>8}", t.untraced_us, fmt::format("{:+.1f}%", *u))
                                  : fmt::format(" {:>12} {:>8}", "-", "-")));
    }
    return out;
}

}  // namespace mimic::replay

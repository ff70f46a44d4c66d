// What `mimic replay` reports: the replay's iteration times against the
// original's (meta.json's untraced median, else the profiled iteration
// span), operator coverage by count and by recorded time, skipped ops with
// reasons, and per op name and per category the replay's op time against
// the profiler's durations (corrected for instrumentation when calibrated).
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "io/recording/op_faults.h"
#include "io/recording/op_gaps.h"
#include "replay/timing/host_gaps.h"
#include "replay/timing/profiler_cost_fit.h"
#include "replay/recording_meta.h"
#include "replay/replayer.h"
#include "support/machine_info.h"
#include "trace/trace.h"

namespace mimic::replay {

struct ReplaySettings {
    std::string trace_path;
    std::string device = "cpu";
    int threads = 0;
    int warmup = 0;
    int iters = 0;
    int op_passes = 0;  // per-op timing passes (each op's time: its median over them)
    int profiled_sessions = 0;  // sessions of op_passes passes under torch's profiler (0: no such pass)
    bool lazy = false;
    std::string host_gaps = "none";  // "recorded", "untraced" or "none"
    std::string page_faults = "none";  // "recorded": fresh pages per op from op_faults.json
    std::string denormals = "keep";  // "flush": subnormal floats flushed to zero
};

struct SkipCount {
    std::string name;
    std::string reason;
    uint64_t count = 0;
};

struct TimeCompare {
    std::string key;        // op name or category
    uint64_t count = 0;     // replayed ops
    double replay_us = 0;   // sum over the timing pass
    double profile_us = 0;  // sum of profiler durations (corrected), 0 when not linked
    double profile_raw_us = 0;  // the same as recorded, uncorrected
    uint64_t profiled = 0;  // ops with a profiler duration
    double untraced_us = 0;  // sum of the original's untraced durations (op_gaps.json), 0 when not measured
    uint64_t untraced = 0;   // ops with an untraced duration
    // The replay's side of that comparison: the per-op pass that allocated
    // as the untraced calls faulted, when it ran (else the same as replay_us).
    double replay_untraced_pass_us = 0;
    // The per-op pass under torch's own profiler (torch_profiler_pass.h):
    // the durations it gave, compared with profile_raw_us as recorded.
    double replay_profiled_us = 0;
    uint64_t replay_profiled = 0;  // ops it gave a duration
    std::optional<double> error_pct() const {
        if (profiled == 0 || profile_us <= 0) return std::nullopt;
        return (replay_us - profile_us) / profile_us * 100.0;
    }
    // Under the profiler against the profile as recorded, when every op of
    // the name has both.
    std::optional<double> profiled_error_pct() const {
        if (profiled != count || replay_profiled != count || profile_raw_us <= 0) return std::nullopt;
        return (replay_profiled_us - profile_raw_us) / profile_raw_us * 100.0;
    }
    // Against the untraced durations, when every op of the name has one.
    std::optional<double> untraced_error_pct() const {
        if (untraced != count || untraced_us <= 0) return std::nullopt;
        return (replay_untraced_pass_us - untraced_us) / untraced_us * 100.0;
    }
};

// One replayed op of the per-op pass, for `mimic replay --op-times`.
struct OpTime {
    int64_t node_id = -1;  // the ET node's id
    std::string name;
    double replay_us = 0;
    std::optional<double> profile_us, profile_raw_us;  // corrected and as recorded
    std::optional<double> untraced_us;
    // The op in the per-op pass given the untraced calls' page faults, when
    // they differ from the profiled iteration's (untraced_us is compared with it).
    std::optional<double> replay_untraced_pass_us;
    std::optional<double> replay_profiled_us;  // under torch's profiler, when that pass ran
    // The host time the replay spent before this op (--host-gaps), for its timeline.
    std::optional<double> host_gap_us;
    // Minor page faults: the op's in the original's profiled calls (op_faults.json),
    // and the replay's in one iteration with the per-op pass's fresh pages.
    std::optional<int64_t> original_page_faults, replay_page_faults;
};

// One communication call of the replay: its recorded size and the latency
// of issuing it and waiting for it in the timing pass.
struct CollectiveTiming {
    std::string name;        // as recorded: c10d::allreduce_, gloo:all_to_all
    std::string collective;  // all_reduce, all_to_all, send...
    std::string pg_name;
    int64_t group_size = 0;
    uint64_t input_bytes = 0;
    uint64_t output_bytes = 0;
    double latency_us = 0;
    std::optional<double> recorded_us;  // the original's duration of the call, when profiled
    bool waits_at_once = false;
    std::string emulation;
    // The message size bandwidth is counted on: the larger side (all_gather's output, reduce_scatter's input).
    uint64_t message_bytes() const { return std::max(input_bytes, output_bytes); }
};

struct ReplayReport {
    ReplaySettings settings;
    int64_t rank = -1;       // a multi-rank replay's rank, -1 for one process
    int64_t world_size = 1;
    std::vector<CollectiveTiming> collectives;
    uint64_t collectives_total = 0;  // communication calls in the replayed range (waits not counted)
    std::string iteration_label;
    std::vector<double> iteration_ms;
    double median_ms = 0;
    std::optional<double> original_ms;
    std::string original_source;  // "meta.json untraced median", "profiled iteration span"
    std::optional<double> error_pct;
    // The device the trace's tensors were on ("cuda:0"...); when it is not the
    // replay device, original and replay times measure different hardware.
    std::string recorded_device;
    bool times_comparable = true;
    // The machines: the original's from meta.json (none without one, or from
    // a recorder before it wrote one) and this replay's (replay_machine.h);
    // the report prints both and warns of each field that differs.
    std::optional<MachineInfo> original_machine;
    std::optional<MachineInfo> replay_machine;
    MachinePair machines() const { return {original_machine, replay_machine, "original", "replay"}; }
    uint64_t ops_total = 0;
    uint64_t ops_replayed = 0;
    std::optional<double> coverage_time_pct;  // share of recorded top-level op time replayed
    std::vector<SkipCount> skipped;
    std::vector<TimeCompare> per_op;
    std::vector<TimeCompare> per_category;
    std::optional<double> per_op_error_geomean_pct;  // over op names with a profile time
    // The profiled iterations each op's profile time is the median of (the
    // linked one and its repeats, link/iteration_repeats.h); 1: one iteration.
    uint32_t profile_iterations = 0;
    std::optional<double> per_op_error_geomean_raw_pct;  // the same against uncorrected durations
    // The profiler's cost per op and per nested event, fitted against the
    // untraced calls (profiler_cost_fit.h): the profile's durations are
    // corrected with it when there is one, else with the recorder's
    // calibration (gaps.per_event_us, gaps.probe_cost_us).
    std::optional<ProfilerCostFit> profiler_cost_fit;
    // sum over op names of |replay - profile| / sum of profile (corrected): big ops weigh most.
    std::optional<double> per_op_error_weighted_pct;
    // The per-op pass timed by torch's own profiler, set up as the recorder's,
    // against the profile's durations as recorded: both carry the same
    // instrumentation, so nothing is taken out of either (torch_profiler_pass.h).
    std::optional<double> per_op_error_geomean_profiled_pct;
    std::optional<double> per_op_error_weighted_profiled_pct;
    // The same two against the original's untraced op durations (op_gaps.json):
    // timed with the probe's start and end alone, to the nanosecond, in
    // iterations without the profiler or the ET observer.
    std::optional<double> per_op_error_geomean_untraced_pct;
    std::optional<double> per_op_error_weighted_untraced_pct;
    // The untraced op times were compared with a per-op pass of their own,
    // given the untraced calls' page faults instead of the profiled iteration's.
    bool untraced_op_pass = false;
    std::vector<OpTime> op_times;  // every replayed op, in order
    double op_time_sum_ms = 0;                       // replay's per-op pass, summed
    HostGapModel gaps;
    uint64_t pool_bytes = 0;
    uint64_t peak_rss_bytes = 0;
    uint64_t estimated_peak_bytes = 0;  // the trace's peak live set, and the copy of its starting values where it fits (analysis/memory_timeline.h), checked before allocating
    // Minor page faults per timed iteration, the replay's and the original's
    // untraced ones (meta.json): allocator state the replay cannot copy.
    std::optional<double> page_faults_per_iter;
    std::optional<double> original_page_faults_per_iter;
    // --page-faults recorded: the original's faults in its top-level ops in
    // the profiled iteration (op_faults.json), and the fresh pages the
    // replay's steps were given on top of the faults they take by themselves:
    // in the timed iterations (scaled to the untraced fault rate) and in the
    // per-op pass (as profiled).
    std::optional<int64_t> original_op_page_faults;
    std::optional<int64_t> fresh_pages_per_iter;
    std::optional<int64_t> fresh_pages_per_op_pass;
    // The original's tensor layouts (op_layouts.json) given to tensors the
    // trace has no strides for: tensors, ops matched, ops left as traced.
    std::optional<size_t> recorded_layout_tensors, recorded_layout_ops, recorded_layout_mismatched_ops;
    // Tensors from outside the step made channels-last where a trace without
    // strides converts to that format (analysis/channels_last.h): how many,
    // the format (2: 4-D, 3: 5-D), the ops that convert and the first.
    std::optional<size_t> channels_last_tensors;
    int64_t channels_last_format = 0;
    size_t channels_last_converting_ops = 0;
    std::string channels_last_evidence;  // "aten::contiguous (node 123)"; empty when asked for with --channels-last yes
    size_t fallbacks = 0;
    size_t shape_mismatches = 0;
    // Per op name, how many of its outputs came out unlike the recording
    // (shapes that depend on values: unique indices after a coalesce).
    std::vector<std::pair<std::string, uint64_t>> mismatched_ops;
    size_t runtime_errors = 0;
    double coverage_pct() const { return ops_total ? 100.0 * double(ops_replayed) / double(ops_total) : 0.0; }
};

// `page_faults`: the minor faults of the timed iterations, all of them;
// `untraced`: the recording's op_gaps.json, when it has one;
// `untraced_pass_us`: per step, the per-op pass that allocated as the
// untraced calls faulted, when it ran (else the untraced times are compared
// with the replayer's op_us(), the pass given the profiled iteration's faults);
// `profiled_faults`: op_faults.json, when the recording has one (the
// profiler's cost is fitted on ops that faulted alike in both kinds of call).
// The device of the trace: the first accelerator any selected op touched,
// else the first device seen ("" when none is recorded).
std::string recorded_device(const Trace& trace, const Selection& sel);
// Whether times recorded on `recorded` measure what a replay on
// `replay_device` does (the same kind of device, or unknown).
bool times_comparable(std::string_view recorded, std::string_view replay_device);

// The original's traced iteration in ms: its iteration label's profiled
// duration, else the span of the selected ops' profiled intervals.
std::optional<double> profiled_span(const Trace& trace, const Selection& sel);

ReplayReport make_report(const Trace& trace, const Replayer& replayer, const ReplaySettings& settings,
                         const std::vector<double>& iteration_ms, const std::optional<RecordingMeta>& meta,
                         const HostGapModel& gaps, uint64_t page_faults, const OpGaps* untraced = nullptr,
                         const std::vector<double>* untraced_pass_us = nullptr,
                         const OpFaults* profiled_faults = nullptr);

std::string report_json(const ReplayReport& r);
// `--op-times`: {"ops": [{node_id, name, replay_us, profile_us, profile_raw_us, untraced_us}...]}.
std::string op_times_json(const ReplayReport& r);
std::string report_text(const ReplayReport& r, size_t max_rows = 15);

// Peak resident memory of this process, bytes.
uint64_t peak_rss_bytes();
// Minor page faults of this process so far.
uint64_t minor_page_faults();

}  // namespace mimic::replay

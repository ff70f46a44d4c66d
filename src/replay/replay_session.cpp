#include "replay/replay_session.h"

#include <ATen/Context.h>
#include <ATen/Parallel.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <unordered_map>

#include "analysis/memory_timeline.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/op_faults.h"
#include "io/recording/op_gaps.h"
#include "analysis/channels_last.h"
#include "io/recording/op_layouts.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "replay/dist/collective_check.h"
#include "replay/timing/fresh_page_allocator.h"
#include "replay/timing/fault_targets.h"
#include "replay/timing/fresh_page_fit.h"
#include "replay/timing/host_gaps.h"
#include "replay/timing/label_plan.h"
#include "replay/timing/recording_overhead.h"
#include "replay/recording_meta.h"
#include "replay/replay_machine.h"
#include "replay/replay_recording.h"
#include "replay/replayer.h"
#include "support/error.h"
#include "support/memory_budget.h"
#include "support/paced_runs.h"
#include "support/page_fault_cost.h"
#include "support/phase_progress.h"

namespace mimic::replay {

namespace {

// Labelled iterations of each kind for --host-gaps instrumented: the traced
// ones write an ET of the whole iteration each, 3-7x the step's time.
constexpr int kInstrumentedPasses = 5;

int64_t sum(const std::vector<int64_t>& v) {
    int64_t total = 0;
    for (int64_t x : v) total += x;
    return total;
}

// Iterations run with no fresh pages before each fit. glibc takes a few to
// settle after the heap is kept (keep_heap_pages) and after a fit's fresh
// mappings: a cut's _log_softmax_backward_data faulted on its 125-page
// output by itself in the six iterations after each, then in none. Fitted
// sooner, it kept no fresh pages and ran in 90 us in the per-op pass
// against 319 us with them (docs/findings.md, 2026-11-26).
constexpr int kHeapSettleIterations = 8;

// fit_fresh_pages over this replayer's iterations, from a settled heap;
// leaves the fit set. Every rank runs as many iterations.
std::vector<int64_t> fit_replayer_fresh_pages(Replayer& replayer, const std::vector<int64_t>& target) {
    replayer.set_fresh_pages(std::vector<int64_t>(target.size(), 0));
    for (int i = 0; i < kHeapSettleIterations; ++i) replayer.step_page_faults();
    std::vector<int64_t> best = fit_fresh_pages(target, [&](const std::vector<int64_t>& budgets) {
        replayer.set_fresh_pages(budgets);
        return replayer.step_page_faults();
    });
    replayer.set_fresh_pages(best);
    return best;
}

// True when every rank passes `yes`: each publishes its answer under
// `key`/<rank> in the rendezvous store and reads the others'.
bool every_rank_says(ProcessGroups& groups, const std::string& key, bool yes) {
    const DistOptions& d = groups.options();
    groups.publish(key + "/" + std::to_string(d.rank), yes ? "1" : "0");
    bool all = true;
    for (int r = 0; r < d.world_size; ++r) all = groups.read_peer(key + "/" + std::to_string(r), r) == "1" && all;
    return all;
}

// What the replay will hold at its peak, and whether that leaves room for
// the copy of the starting values it restores before each iteration.
struct MemoryPlan {
    uint64_t estimated_bytes = 0;
    bool keep_input_copies = true;
};

// Checked before anything is allocated, so that a trace too big for this
// machine fails at once instead of swapping for an hour.
MemoryPlan check_memory(const Trace& trace, const SessionOptions& o) {
    const analysis::MemoryNeed need = analysis::memory_need(trace);
    // With room, the replay keeps a copy of what is there from the start
    // (TensorPool's pristine values), restored before each iteration so that
    // every one starts from the same parameters and optimizer state.
    const uint64_t with_copy = need.peak_bytes + need.resident_bytes;
    const int rank = o.dist ? o.dist->rank : -1;
    uint64_t limit = o.max_memory_bytes;
    std::string limit_source = "--max-memory";
    if (limit == 0) {
        limit = available_memory_bytes() / static_cast<uint64_t>(std::max(1, o.ranks_on_machine));
        limit_source = o.ranks_on_machine > 1 ? "available memory / " + std::to_string(o.ranks_on_machine) + " ranks here"
                                              : "available memory";
    }
    const std::string who = rank >= 0 ? "rank " + std::to_string(rank) + ": " : "";
    const std::string limit_text = (limit ? format_mib(limit) : std::string("unknown")) + " (" + limit_source + ")";
    const unsigned long long peak_node = need.peak_node_id;
    if (limit == 0 || with_copy <= limit) {
        std::fprintf(stderr, "mimic replay: %smemory needed (estimated from the trace): %s, the peak live set %s after "
                     "node %llu and a copy of the %s there from the start (parameters, inputs, optimizer state), restored "
                     "before each iteration; limit %s\n",
                     who.c_str(), format_mib(with_copy).c_str(), format_mib(need.peak_bytes).c_str(), peak_node,
                     format_mib(need.resident_bytes).c_str(), limit_text.c_str());
        return {with_copy, true};
    }
    if (need.peak_bytes > limit)
        fail({trace.source_path, static_cast<int64_t>(need.peak_node_id), -1, "--max-memory"},
             who + "the replay needs an estimated " + format_mib(need.peak_bytes) + " (the live set after this node), "
                 "more than " + limit_text + "; give a larger --max-memory to run it anyway, or replay a part "
                 "(mimic cut) or a smaller batch (mimic scale)");
    std::fprintf(stderr, "mimic replay: %smemory needed (estimated from the trace): %s, the peak live set after node %llu; "
                 "no room within %s for a copy of the %s there from the start (parameters, inputs, optimizer state), "
                 "so they are filled with fresh values before each iteration instead of restored from one\n",
                 who.c_str(), format_mib(need.peak_bytes).c_str(), peak_node, limit_text.c_str(),
                 format_mib(need.resident_bytes).c_str());
    return {need.peak_bytes, false};
}

}  // namespace

SessionResult run_replay_session(const SessionOptions& o) {
    const TraceInput& input = o.input;
    if (o.device != "cpu") fail({"", -1, -1, "--device"}, "this libtorch build replays on cpu only");

    Trace trace = load_trace(input.trace_path);
    if (trace.format == TraceFormat::KinetoProfile)
        fail({input.trace_path, -1, -1, ""},
             "a profile alone has no operator inputs to replay; replay needs the execution trace (ET) it was recorded with");
    // What recorded the profile, for --host-gaps instrumented: the observer
    // and torch's profiler, with input shapes and memory records or not.
    InstrumentationSetup recorded_under;
    std::vector<double> collective_ends_us;  // when the profile's asynchronous collectives completed
    if (!input.profile_path.empty()) {
        const ProfileTrace profile = read_kineto_trace(input.profile_path);
        link_profile(trace, profile);
        collective_ends_us = collective_work_ends_us(profile);
        // The legacy export writes no shapes whether or not they were
        // recorded: taken as not, the profiler's default.
        recorded_under.record_shapes = profile.stats.events_with_shapes > 0;
        recorded_under.profile_memory = profile.stats.memory_events > 0;
        for (const HostEvent& e : profile.host)
            if (e.category == HostCategory::PythonFunction) ++recorded_under.python_stack_events;
    }
    std::optional<RecordingMeta> meta;
    if (!input.meta_path.empty()) {
        meta = read_recording_meta(input.meta_path);
        apply_recording_meta(trace, input.meta_path);  // process groups and Python's calls: a 1.13 ET has neither
    }
    // The strides a 1.13 ET lacks, as the recorder saw them (op_layouts.h).
    std::optional<LayoutsApplied> layouts;
    if (auto recorded = read_op_layouts_beside(input.meta_path)) layouts = apply_op_layouts(trace, *recorded);
    // Without them, channels-last where the trace converts to it (analysis/channels_last.h).
    std::optional<analysis::ChannelsLastEvidence> channels_last;
    size_t channels_last_tensors = 0;
    if (o.channels_last == "yes" || (o.channels_last == "auto" && !layouts)) {
        channels_last = analysis::channels_last_evidence(trace);
        if (!channels_last && o.channels_last == "yes") channels_last = analysis::ChannelsLastEvidence{kNoNode, 2, 0};
        if (channels_last) channels_last_tensors = analysis::assume_channels_last_sources(trace, channels_last->format);
    }

    // Subnormal floats cost a microcode assist per operation on x86. The
    // replay's values are synthetic (normal inputs flowing through the
    // ops), and they produce subnormals where the original's did not: a
    // transformer's softmax took 102 us instead of the original's 53.
    // Flushed before the intra-op pool starts, as new threads inherit the
    // setting (MXCSR) from the thread that creates them.
    const bool flush_denormals = o.denormals == "flush" && at::globalContext().setFlushDenormal(true);
    int threads = o.threads;
    if (threads <= 0 && meta && meta->intra_op_threads) threads = *meta->intra_op_threads;
    if (threads > 0) at::set_num_threads(threads);
    // The original's inter-op threads too: nothing here runs inter-op work
    // yet, so the pool can still be sized (it can be only once, before use).
    if (meta && meta->inter_op_threads && *meta->inter_op_threads > 0 &&
        *meta->inter_op_threads != at::get_num_interop_threads()) {
        try {
            at::set_num_interop_threads(*meta->inter_op_threads);
        } catch (const c10::Error&) {
            // Already started: the report names both counts.
        }
    }
    // After the threads are set, so that it states the threads the replay ran with.
    const MachineInfo replay_machine = describe_replay_machine();
    const MemoryPlan memory = check_memory(trace, o);

    std::unique_ptr<ProcessGroups> groups;
    if (o.dist) {
        try {
            groups = std::make_unique<ProcessGroups>(*o.dist, trace.process_groups);
        } catch (const Error& e) {
            if (o.dist->rank == 0 && std::string(e.what()).find("could not serve") != std::string::npos)
                throw PortBusy(std::string(e.what()));
            throw;
        }
    }

    ReplayOptions options;
    options.selection.iteration = o.iteration;
    options.selection.max_ops = o.max_ops;
    options.selection.include = o.include;
    options.selection.exclude = o.exclude;
    options.selection.collectives = groups != nullptr;
    options.selection.python_calls = trace.python_collectives;
    options.lazy = o.lazy;
    options.groups = groups.get();
    options.keep_input_copies = memory.keep_input_copies;
    Replayer replayer(trace, options);
    // Planning, the check, the fresh-page fit, warmup, the timed iterations
    // and the per-op passes: seconds to an hour on a large trace. Lines on
    // the first rank only; no steps are counted until planning made them.
    std::optional<PhaseProgress> progress;
    if (!o.dist || o.dist->rank == 0) progress.emplace("mimic replay", "ops");
    const auto phase = [&](const std::string& name, int passes) {
        if (progress) progress->phase(name, passes, replayer.steps().size());
    };
    phase("planning", 1);
    replayer.plan();
    // glibc keeps its heap, as a training process's heap settles after its
    // first steps: without it the replay's own allocation pattern (restored
    // inputs, collectives' buffers) makes glibc map and trim afresh every
    // iteration (2,000 faults per step of a foreign 2-rank DDP MLP whose
    // original took none). Faults the original took are made on purpose
    // (--page-faults recorded, below).
    keep_heap_pages();
    if (progress) replayer.set_progress(&*progress);
    if (groups) check_calls_match(*groups, call_signatures(trace, replayer));
    phase("checking every op once", 1);
    replayer.check();
    if (replayer.replayed_count() == 0) {
        std::string why = replayer.skipped().empty() ? "no top-level operator in the selected range"
                                                     : "first skip: " + replayer.skipped().front().name + ": " +
                                                           replayer.skipped().front().reason;
        fail({input.trace_path, -1, -1, ""}, "nothing to replay (" + why + ")");
    }

    // The instrumentation each profiled event carries: measured by the
    // recorder when it says, else the traced iteration's excess spread over its nodes.
    double per_event = 0;
    if (meta && meta->profiler_event_cost_us)
        per_event = *meta->profiler_event_cost_us;
    else if (meta)
        per_event = per_event_overhead_us(meta->traced_iteration_ms, meta->untraced_median_ms,
                                          replayer.selection().nodes_in_range);
    // Host gaps between the ops that run; skipped ops' recorded time falls into the next gap.
    // The instrumentation the profile's durations are corrected for, on whichever gap model is used.
    const double probe_cost = meta && meta->probe_cost_per_op_us ? *meta->probe_cost_per_op_us : 0.0;
    const auto with_instrumentation = [&](HostGapModel m) {
        m.per_event_us = per_event;
        m.calibrated = per_event > 0;
        m.probe_cost_us = probe_cost;
        return m;
    };
    HostGapModel gaps = with_instrumentation({});
    std::vector<double> gap_per_step;
    // op_gaps.json: the host gaps of --host-gaps measured, the per-op pass's
    // second reference, and the untraced calls' faults per op. Read once.
    const std::optional<OpGaps> op_gaps = read_op_gaps_beside(input.meta_path);
    // Fresh pages: what each op faulted on in the original (see
    // fresh_page_allocator.h and fault_targets.h). Read before the host gaps:
    // the untraced gap budget takes off the faults the timed iterations are
    // given beyond those of the profiled durations it starts from.
    std::optional<OpFaults> op_faults;
    if (o.page_faults == "recorded") op_faults = read_op_faults_beside(input.meta_path);
    // Fitting runs iterations, and so collectives: the ranks fit all or none.
    if (groups && !every_rank_says(*groups, "mimic/fresh_pages", op_faults.has_value())) {
        if (op_faults)
            std::fprintf(stderr, "mimic: warning: rank %d: another rank's recording has no op_faults.json; "
                                 "no rank gets fresh pages\n", o.dist->rank);
        op_faults.reset();
    }
    std::optional<FaultTargets> fault_target;
    if (op_faults) {
        std::vector<int64_t> step_nodes;
        for (const Step& step : replayer.steps())
            step_nodes.push_back(step.skipped ? -1 : static_cast<int64_t>(trace.nodes[step.node.value].id.value));
        fault_target = fault_targets(step_nodes, *op_faults, op_gaps ? &*op_gaps : nullptr,
                                     meta ? meta->untraced_page_faults_per_iter : std::nullopt);
    }

    const bool timed = trace.timing.size() == trace.nodes.size();
    std::string host_gaps_mode = o.host_gaps;
    if (host_gaps_mode == "auto") {
        // The most faithful the inputs allow: the recorder's untraced gaps,
        // its untraced iteration time, the profile corrected by measuring
        // its instrumentation here (a CPU profile: a GPU trace's host ops
        // ran beside kernels this machine does not have), or op time only.
        bool can_measure = op_gaps.has_value(), can_untraced = meta && meta->untraced_median_ms.has_value(),
             can_instrument = timed && times_comparable(recorded_device(trace, replayer.selection()), o.device);
        if (groups) {  // every rank the same mode: each runs iterations, so collectives, as the others do
            can_measure = every_rank_says(*groups, "mimic/host_gaps_measured", can_measure);
            can_untraced = every_rank_says(*groups, "mimic/host_gaps_untraced", can_untraced);
            can_instrument = every_rank_says(*groups, "mimic/host_gaps_instrumented", can_instrument);
        }
        // One process: the untraced iteration's host time first (held-out
        // models on OpenBLAS, 2026-11-26: 13.5% geomean end to end against
        // 25.3% with the measured gaps). Many ranks: the measured gaps, which
        // leave out the time Python blocked on collectives that the replay
        // waits out in its own.
        if (groups)
            host_gaps_mode = can_measure ? "measured" : can_untraced ? "untraced" : can_instrument ? "instrumented" : "none";
        else
            host_gaps_mode = can_untraced ? "untraced" : can_measure ? "measured" : can_instrument ? "instrumented" : "none";
    }
    if (host_gaps_mode == "instrumented" && !timed)
        fail({input.trace_path, -1, -1, "profile"},
             "--host-gaps instrumented needs the trace's profile (give --profile, or a directory with both)");
    if (host_gaps_mode == "untraced" && (!meta || !meta->untraced_median_ms))
        fail({input.meta_path.empty() ? input.trace_path : input.meta_path, -1, -1, "untraced_median_ms"},
             "--host-gaps untraced needs the untraced iteration time a recording's meta.json gives "
             "(use --host-gaps recorded or none)");
    const bool measured = host_gaps_mode == "measured";
    if (measured && !op_gaps)
        fail({input.meta_path.empty() ? input.trace_path : input.meta_path, -1, -1, "op_gaps.json"},
             "--host-gaps measured needs the op_gaps.json that mimic record writes beside meta.json "
             "(use --host-gaps recorded or none)");
    if (host_gaps_mode != "none") {
        if (!measured && !timed)
            std::fprintf(stderr, "mimic: warning: --host-gaps %s needs a profile; replaying without gaps\n",
                         host_gaps_mode.c_str());
        std::vector<NodeIndex> ran, all;
        std::vector<size_t> ran_steps;
        std::vector<bool> runs;
        for (size_t k = 0; k < replayer.steps().size(); ++k) {
            const Step& s = replayer.steps()[k];
            if (!s.skipped) ran.push_back(s.node), ran_steps.push_back(k);
            all.push_back(s.node);
            runs.push_back(!s.skipped);
        }
        if (host_gaps_mode == "instrumented") {
            const Selection& sel = replayer.selection();
            const LabelPlan plan =
                plan_labels(trace, nodes_in_id_range(trace, sel.first_node_id, sel.last_node_id), all, runs);
            const double span_us = profiled_span(trace, sel).value_or(0.0) * 1000.0;
            phase("measuring what recording cost (bare and traced iterations)", 0);
            const RecordingOverhead overhead = measure_recording_overhead(replayer, plan, recorded_under, kInstrumentedPasses);
            InstrumentationMeasure m;
            m.instrumentation_us = overhead.overhead_ms() * 1000.0;
            m.traced_op_us = overhead.traced_op_us;
            m.traced_gap_us = overhead.traced_gap_us;
            gaps = instrumented_host_gaps(trace, ran, ran_steps, m, span_us, collective_ends_us);
            gaps.instrumentation = overhead.setup.describe();
            gaps.python_stack_events = overhead.setup.python_stack_events;
            gaps.replay_traced_ms = overhead.traced_ms;
            gaps.replay_untraced_ms = overhead.untraced_ms;
        } else {
            gaps = with_instrumentation(measured ? measured_host_gaps(trace, all, runs, *op_gaps)
                                                 : host_gaps(trace, ran, per_event, collective_ends_us));
        }
        if (host_gaps_mode == "untraced") {
            // The timed iterations get the untraced calls' faults (fault_targets.h); the
            // profiled durations hold the profiled iteration's. The difference is op time.
            const int64_t excess = fault_target ? fault_target->untraced_excess() : 0;
            const double fault_cost = excess != 0 ? measure_page_fault_us() : 0.0;
            const std::string warning =
                calibrate_to_untraced(gaps, trace, ran, *meta->untraced_median_ms * 1000.0, excess, fault_cost);
            // No host time left is kept as it is: spending the measured gaps
            // instead was tried (2026-11-26, Xeon) and put 9 such replays at 11.2%
            // geometric mean against 5.9% with none (docs/findings.md).
            if (!warning.empty()) std::fprintf(stderr, "mimic: warning: %s\n", warning.c_str());
        }
        // Each gap's own CPU time where the recording measured it, else the
        // gap at the untraced iteration's CPU share.
        const bool per_gap_cpu = !gaps.gap_cpu_us.empty();
        const std::vector<double>& spin = per_gap_cpu ? gaps.gap_cpu_us : gaps.gap_us;
        size_t k = 0;
        for (const Step& s : replayer.steps()) gap_per_step.push_back(s.skipped ? 0.0 : spin[k++]);
        if (per_gap_cpu) {
            replayer.set_gap_cpu_share(1.0);
        } else if (meta && meta->untraced_cpu_share && *meta->untraced_cpu_share > 0) {
            gaps.cpu_share = *meta->untraced_cpu_share;
            replayer.set_gap_cpu_share(gaps.cpu_share);
        }
    }

    std::vector<int64_t> fresh_profiled, fresh_untraced;
    std::optional<std::vector<int64_t>> untraced_calls_target;  // set when the untraced op times get a pass of their own
    if (fault_target) {
        phase("fitting fresh pages to the recorded faults", 0);
        fresh_profiled = fit_replayer_fresh_pages(replayer, fault_target->profiled);
        // The untraced op times come from the calls op_gaps.json counted, with
        // their faults: a per-op pass of their own when they differ from the
        // profiled iteration's (measured: by 55 to 1,837 faults per call, each
        // ~1.7 us). Every rank runs it if one does (it runs collectives).
        bool own_pass = fault_target->untraced_calls_differ();
        if (groups) own_pass = !every_rank_says(*groups, "mimic/untraced_op_pass", !own_pass);
        if (own_pass) untraced_calls_target = fault_target->untraced_calls;
        // Fitted again even when nothing changed: every iteration runs the
        // collectives, and all ranks must run as many (a rank whose original
        // took no fault skipping this fit left its peers waiting in a
        // collective it never issued).
        fresh_untraced = fit_replayer_fresh_pages(replayer, fault_target->untraced);
        replayer.set_fresh_pages(fresh_untraced);
    }

    phase("warmup", o.warmup);
    for (int i = 0; i < o.warmup; ++i) replayer.run_iteration(gap_per_step);
    std::vector<double> iteration_ms;
    uint64_t page_faults = 0;
    const auto iteration = [&](bool timed) {
        if (!timed) return replayer.run_iteration(gap_per_step);
        const uint64_t faults_before = minor_page_faults();
        const double ms = replayer.run_iteration(gap_per_step);
        page_faults += minor_page_faults() - faults_before;
        return ms;
    };
    // "ops": one per-op pass, with the timed iterations' fresh pages, for a
    // benchmark that alternates it with the original's op timing.
    const auto op_pass = [&] {
        replayer.time_ops(1, gap_per_step);
        std::string reply;
        for (size_t s = 0; s < replayer.steps().size(); ++s) {
            const Step& step = replayer.steps()[s];
            if (step.skipped) continue;
            if (!reply.empty()) reply += ' ';
            reply += std::to_string(trace.nodes[step.node.value].id.value) + ":" + std::to_string(replayer.op_us()[s]);
        }
        return reply;
    };
    if (!o.pace.empty()) {
        phase("paced iterations and per-op passes", 0);
        iteration_ms = run_paced(o.pace, o.dist ? o.dist->rank : 0, iteration, op_pass);
    } else {
        phase("timed iterations", o.iters);
        for (int i = 0; i < o.iters; ++i) {
            iteration_ms.push_back(iteration(true));
            // A long run shows each figure as it comes (one timed iteration of a GPT-2-large: minutes).
            if (progress) {
                char line[128];
                std::snprintf(line, sizeof line, "timed iteration %d of %d: %.1f ms", i + 1, o.iters, iteration_ms.back());
                progress->note(line);
            }
        }
    }
    if (iteration_ms.empty()) fail({o.pace, -1, -1, "--pace"}, "the benchmark driver stopped before any timed iteration");
    // First the pass for the untraced op times, if any, so that the
    // replayer's op_us() ends with the profiled one (report, --record-replay).
    const int op_passes = std::max(1, o.op_passes);
    std::optional<std::vector<double>> untraced_pass_us;
    if (untraced_calls_target) {
        phase("per-op passes, with the untraced calls' faults", op_passes);
        replayer.set_fresh_pages(fit_replayer_fresh_pages(replayer, *untraced_calls_target));
        replayer.time_ops(op_passes, gap_per_step);
        untraced_pass_us = replayer.op_us();
    }
    if (op_faults) replayer.set_fresh_pages(fresh_profiled);
    // Each op after its host gap's work, as in the timed iterations (host_work.h).
    phase("per-op passes", op_passes);
    replayer.time_ops(op_passes, gap_per_step);
    // The same pass again under torch's own profiler, compared with the
    // profile as recorded (torch_profiler_pass.h); with the same fresh pages.
    // Not for a trace from other hardware (a GPU's on this CPU): its times
    // do not compare, and the pass would double the per-op timing's cost.
    bool profiled_pass = o.profiled_pass && !trace.timing.empty() &&
                         times_comparable(recorded_device(trace, replayer.selection()), o.device);
    if (groups) profiled_pass = every_rank_says(*groups, "mimic/profiled_op_pass", profiled_pass);  // it runs collectives
    // meta.json names the probe's cost when the recorder's profiled calls ran it.
    if (profiled_pass) {
        phase("per-op passes under torch's profiler", 0);
        replayer.time_ops_under_profiler(op_passes, std::max(1, o.profiled_sessions), gap_per_step,
                                         meta && meta->probe_cost_per_op_us.has_value());
    }
    if (!o.record_replay.empty()) {
        phase("recording the replay", 0);
        std::string path = record_replay(replayer, o.record_replay);
        std::fprintf(stderr, "mimic: replay recorded to %s\n", path.c_str());
    }

    ReplaySettings settings;
    settings.trace_path = input.trace_path;
    settings.device = o.device;
    settings.threads = at::get_num_threads();
    settings.warmup = o.warmup;
    settings.iters = int(iteration_ms.size());
    settings.op_passes = op_passes;
    settings.profiled_sessions = profiled_pass ? std::max(1, o.profiled_sessions) : 0;
    settings.lazy = o.lazy;
    settings.host_gaps = host_gaps_mode;
    settings.page_faults = op_faults ? "recorded" : "none";
    settings.denormals = flush_denormals ? "flush" : "keep";
    // Each op's faults in one more iteration, with the fresh pages of the pass
    // the profile is compared with (--op-times lists them beside the original's);
    // every rank or none, as the iteration runs collectives.
    bool count_op_faults = o.count_op_faults;
    if (groups) count_op_faults = every_rank_says(*groups, "mimic/op_faults_pass", count_op_faults);
    if (count_op_faults) phase("counting each op's page faults", 1);
    const std::vector<int64_t> step_faults = count_op_faults ? replayer.step_page_faults() : std::vector<int64_t>{};
    replayer.set_progress(nullptr);
    if (progress) progress->finish();
    SessionResult result;
    // The original's untraced op durations are the per-op pass's second reference, whatever the gap mode.
    result.report = make_report(trace, replayer, settings, iteration_ms, meta, gaps, page_faults,
                                op_gaps ? &*op_gaps : nullptr, untraced_pass_us ? &*untraced_pass_us : nullptr,
                                op_faults ? &*op_faults : nullptr);
    result.report.replay_machine = replay_machine;
    result.report.estimated_peak_bytes = memory.estimated_bytes;
    std::unordered_map<int64_t, int64_t> faults_by_node;
    for (size_t s = 0; s < step_faults.size(); ++s)
        faults_by_node[int64_t(trace.nodes[replayer.steps()[s].node.value].id.value)] = step_faults[s];
    for (OpTime& t : result.report.op_times) {
        const auto it = faults_by_node.find(t.node_id);
        if (it != faults_by_node.end()) t.replay_page_faults = it->second;
    }
    if (channels_last) {
        result.report.channels_last_tensors = channels_last_tensors;
        result.report.channels_last_format = channels_last->format;
        result.report.channels_last_converting_ops = channels_last->ops;
        if (channels_last->node != kNoNode) {
            const Node& n = trace.nodes[channels_last->node.value];
            result.report.channels_last_evidence = std::string(trace.name(n)) + " (node " + std::to_string(n.id.value) + ")";
        }
    }
    if (layouts) {
        result.report.recorded_layout_tensors = layouts->tensors;
        result.report.recorded_layout_ops = layouts->ops;
        result.report.recorded_layout_mismatched_ops = layouts->mismatched_ops;
    }
    if (op_faults) {
        result.report.original_op_page_faults = op_faults->total;
        result.report.fresh_pages_per_iter = sum(fresh_untraced);
        result.report.fresh_pages_per_op_pass = sum(fresh_profiled);
    }
    if (o.dist) {
        result.report.rank = o.dist->rank;
        result.report.world_size = o.dist->world_size;
    }
    if (groups && o.gather_reports) {
        const std::string mine = report_json(result.report);
        groups->publish("mimic/report/" + std::to_string(o.dist->rank), mine);
        if (o.dist->rank == 0)
            for (int r = 0; r < o.dist->world_size; ++r)
                result.rank_reports_json.push_back(groups->read_peer("mimic/report/" + std::to_string(r), r));
        // Rank 0 serves the store: it leaves last, once it has read every report.
        groups->barrier();
    }
    return result;
}

}  // namespace mimic::replay

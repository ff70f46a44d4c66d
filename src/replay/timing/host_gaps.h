// Host time between operators. A C++ replay calls op after op; the original
// paid Python, autograd and framework time between them. With a linked
// profile, that time is the gap between one replayed op's end and the next
// one's start in the traced iteration.
//
// Recording inflates those gaps: the ET observer and the profiler run code
// at the start and end of every node, and nodes between two top-level ops
// (labels, autograd wrappers, skipped ops' children) pay it inside the gap.
// Model: each node of the iteration costs the same `per_event_us`, calibrated
// from meta.json as (traced - untraced iteration time) / nodes in the
// iteration; a gap loses per_event_us for every node that starts in it (and
// for the op that ends it). Without meta.json the gaps are taken as recorded.
//
// That per-event model is crude where host time is large and the machine
// busy: a traced iteration's gaps also hold time the process spent
// descheduled, and the observer's Python-side work. With meta.json's
// untraced time the total host time can instead be taken from the untraced
// runs (calibrate_to_untraced): the untraced iteration less the replayed ops'
// corrected durations, spread over the gaps in proportion to the recorded
// ones. The replay's end-to-end error then measures how faithfully it runs
// the ops, against the original's own time.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "io/kineto/kineto_trace.h"
#include "io/recording/op_gaps.h"
#include "trace/trace.h"

namespace mimic::replay {

struct HostGapModel {
    std::vector<double> gap_us;  // before each replayed op, corrected
    double per_event_us = 0;     // calibrated instrumentation cost per node
    // The page-fault probe's cost inside each top-level op's profiled
    // interval (meta.json's probe_cost_per_op_us, when the recording was made
    // with it): subtracted once from every top-level op's duration.
    double probe_cost_us = 0;
    double recorded_total_us = 0;
    double corrected_total_us = 0;
    // Recorded gap time the step spent blocked until an asynchronous
    // collective completed (collective_work_ends_us): left out of the gaps,
    // since the replay's own collectives make it wait again.
    double blocked_total_us = 0;
    // Recorded gap time left out around ops whose caller the observer failed
    // to write (Trace::unrecorded_callers): between two of its calls, C++
    // time, and after the last, its exit with the observer's failure (an
    // exception with a backtrace: 2-5 ms each in 1.13).
    double unrecorded_total_us = 0;
    bool calibrated = false;     // meta.json gave traced and untraced times
    // Set by calibrate_to_untraced:
    bool from_untraced = false;
    double untraced_us = 0;      // the untraced iteration the host time was derived from
    double op_time_us = 0;       // the replayed ops' corrected recorded durations
    double scale = 1;            // corrected gaps x scale = the host time
    // Page faults the timed iterations take beyond those the profiled
    // durations hold (negative: fewer), at fault_cost_us each here: op time
    // in the replay's iterations (fresh pages), so not host time. tcn's
    // untraced calls faulted 8,160 times, its profiled iteration 2,048:
    // 7.6 ms of faults that the untraced iteration less the profiled op
    // time had put in the gaps, and the replay then ran again in its ops.
    int64_t fault_excess = 0;
    double fault_cost_us = 0;
    // The original step thread's CPU time / wall time (meta.json), or 0 when
    // unknown. A gap is host work: where ranks outnumber cores, the original
    // did it at this share of the wall clock, and so does the replay, by
    // spinning until its thread has run gap x share on a CPU. On a core of
    // its own the share is ~1 and that is the wall time.
    double cpu_share = 0;
    // Set by measured_host_gaps: the gaps are the untraced calls' (op_gaps.json).
    bool measured = false;
    // Set by measured_host_gaps when op_gaps.json gives each gap's CPU time:
    // the host work in it, one per gap_us. The replay spins exactly that much
    // CPU time per gap instead of gap x cpu_share: the original's waits
    // (a collective the DDP reducer waits for inside backward(), which no
    // Python-side timer sees) stay out of the gaps, and the replay's own
    // collectives wait instead.
    std::vector<double> gap_cpu_us;
    double cpu_total_us = 0;
    // Set by instrumented_host_gaps: the untraced iteration is estimated as
    // the profiled span less what recording cost, measured on this machine.
    bool instrumented = false;
    double traced_span_us = 0;       // the original's profiled span
    double instrumentation_us = 0;   // what the observer and profiler added to it
    std::string instrumentation;     // what was measured ("execution-graph observer + legacy profiler")
    uint64_t python_stack_events = 0;  // the profile's Python function events: a cost not measured (InstrumentationSetup)
    double original_speed = 1;       // the original's op time over the replay's, both traced (median ratio)
    double replay_traced_ms = 0;     // the replay's labelled iteration under it
    double replay_untraced_ms = 0;   // and without it
};

// Per-event instrumentation cost, or 0 when the times are unknown.
double per_event_overhead_us(std::optional<double> traced_ms, std::optional<double> untraced_ms, uint64_t nodes);

// When the profile's asynchronous collectives completed: the ends of their
// work labels (gloo:*, nccl:*), which the backend's worker threads record,
// sorted, on the profile's clock (as trace.timing).
std::vector<double> collective_work_ends_us(const ProfileTrace& profile);

// `ops`: the replayed nodes in order. Needs trace.timing; ops not linked get
// no gap. A gap in which a collective of `collective_ends_us` completed was,
// up to that completion, the step waiting on it (DDP's reducer waits in the
// autograd engine's final callback, between two recorded ops): only what
// follows the completion is host time. Gaps inside and right after the calls
// of an op the observer failed to write are left out (unrecorded_total_us).
HostGapModel host_gaps(const Trace& trace, const std::vector<NodeIndex>& ops, double per_event_us,
                       const std::vector<double>& collective_ends_us = {});

// A top-level op's recorded duration (its median over the profiled iterations
// where the profile repeats the linked one) less the instrumentation of the
// events nested in it and, once, `probe_us` (HostGapModel::probe_cost_us).
// `sizes` from subtree_sizes.
double corrected_duration_us(const Trace& trace, NodeIndex op, const std::vector<uint32_t>& sizes, double per_event_us,
                             double probe_us = 0);

// --host-gaps measured: the host time the original spent before each op in
// untraced calls (op_gaps.json), one gap per op of `ran`. `steps` are all
// the selected top-level ops in order, `ran[k]` whether steps[k] is replayed:
// an op that is not replayed gives its gap and its duration to the next one
// that is, and the tail after the last op goes before the first (the
// iteration repeats). Ops the file does not name give nothing.
HostGapModel measured_host_gaps(const Trace& trace, const std::vector<NodeIndex>& steps, const std::vector<bool>& ran,
                                const OpGaps& gaps);

// Rescales m's gaps so that they add up to untraced_us less the corrected
// durations of `ops` and less `fault_excess` faults at `fault_cost_us` (none
// below zero). Returns a warning when that leaves no host time (the
// recorded ops alone take longer than the untraced iteration), else "".
std::string calibrate_to_untraced(HostGapModel& m, const Trace& trace, const std::vector<NodeIndex>& ops,
                                  double untraced_us, int64_t fault_excess = 0, double fault_cost_us = 0);

// --host-gaps instrumented, for a trace recorded by anyone's tools. The
// untraced iteration is the profiled span less the instrumentation the
// replay measured (its labelled iterations under the recording's
// instrumentation less without it, recording_overhead.h), scaled to the
// original's speed. The host time is each recorded gap less the replay's
// traced gap there, the callbacks of the events between the two ops. Measured
// on the foreign models of bench/replay_foreign.py, this put 1.5-2.6 ms of
// host time where taking the ops' corrected profiled durations off the
// estimate left 0-1.5 ms, against 1.9-4.1 ms that the untraced steps less
// the replayed op time implied (docs/findings.md, 2026-11-26).
// `ops`: the replayed nodes; `steps[k]`: ops[k]'s index into the per-step vectors.
// Ops that say how fast the original ran against the replay: long enough
// that the profiler's microsecond stamps do not decide the ratio; too few
// of them (a trace of a few big ops) and the speeds are taken as equal.
inline constexpr double kSpeedSampleMinUs = 20;
inline constexpr size_t kMinSpeedSamples = 10;

// The replay's traced gap at each step over its instrumented passes: the
// mean of its samples, -1 where it has none. The original's one traced
// iteration holds the stalls its instrumentation met at whatever ops they
// fell on (100-500 us each, at different ops in two recordings of one step,
// several per traced GPT step on a noisy VM); a median per gap drops every
// stall from the replay's side only, and the estimated untraced host time
// kept them all. The mean keeps, summed over the gaps, the stalls the
// replay's own traced passes met (docs/findings.md, 2026-11-27, "stalls").
std::vector<double> mean_per_step(const std::vector<std::vector<double>>& samples);

struct InstrumentationMeasure {
    double instrumentation_us = 0;
    std::vector<double> traced_op_us, traced_gap_us;  // per step, -1 unknown
};
HostGapModel instrumented_host_gaps(const Trace& trace, const std::vector<NodeIndex>& ops, const std::vector<size_t>& steps,
                                   const InstrumentationMeasure& measure, double traced_span_us,
                                   const std::vector<double>& collective_ends_us = {});

}  // namespace mimic::replay

// Replays the selected operators of a trace through libtorch's dispatcher:
// plans each op once (schema lookup, boxed arguments, where each tensor comes
// from), runs a check pass that drops ops which throw and reroutes consumers
// of outputs that came out unlike the recording, then times whole iterations
// and, in a separate pass, each op. Errors of single ops never stop a replay.
#pragma once

#include <c10/core/Device.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "replay/dist/collective_runner.h"
#include "replay/exec/op_resolver.h"
#include "replay/exec/op_selection.h"
#include "replay/exec/step.h"
#include "replay/exec/step_builder.h"
#include "replay/exec/tensor_pool.h"
#include "replay/timing/label_plan.h"
#include "replay/timing/torch_profiler_pass.h"
#include "support/phase_progress.h"
#include "trace/trace.h"

namespace mimic::replay {

struct ReplayOptions {
    SelectionOptions selection;
    // Free each produced tensor after its last use, as PyTorch's reference
    // counting does: the allocator then sees the original's pattern (fresh
    // pages for new outputs), which costs measurable time on big tensors.
    bool lazy = true;
    c10::Device device{c10::kCPU};
    // A multi-rank replay's groups (selection.collectives set too); null for one process.
    ProcessGroups* groups = nullptr;
    // Restore the inputs before each iteration from a copy of their first
    // values (the default), or, where memory has no room for that copy,
    // by filling them with fresh values of the same kinds (TensorPool).
    bool keep_input_copies = true;
};

// A label plan with what its events are opened with (Replayer::prepare_labels).
struct LabelledRun {
    LabelPlan plan;
    std::vector<std::string> names;
    std::vector<std::vector<c10::IValue>> inputs;
};

class FreshPageAllocator;
class HostWork;
class CacheSweep;

struct SkippedOp {
    NodeIndex node;
    std::string name;
    std::string reason;
};

class Replayer {
public:
    Replayer(const Trace& trace, ReplayOptions options);
    ~Replayer();

    // Plans every selected op; ops that cannot be planned are recorded as skipped.
    void plan();
    // Runs the plan once, dropping ops that throw; call before timing.
    void check();
    // One iteration of every planned op; returns wall time in ms. With
    // `gaps_us` (one per step, may be empty) the host is kept busy that long
    // before each op, standing in for the original's Python and autograd time.
    // With `faults`, also the minor page faults of each step (0 for skipped ones).
    double run_iteration(const std::vector<double>& gaps_us = {}, std::vector<int64_t>* faults = nullptr);
    // > 0: a gap is spent as that share of its length in this thread's CPU
    // time (see host_gaps.h); 0: in wall time.
    void set_gap_cpu_share(double share) { gap_cpu_share_ = share; }
    // `passes` iterations timing each op's call; op_us() gets each op's median.
    // With `gaps_us` (as run_iteration's), each op's gap is spent before it,
    // outside its timing, so that it starts after host work as in the original.
    void time_ops(int passes = 5, const std::vector<double>& gaps_us = {});
    // As time_ops, under torch's own profiler set up as the recorder's
    // (torch_profiler_pass.h), and with the recorder's fault probe on when
    // its profiled calls had it: profiled_op_us() gets each op's median of
    // the durations the profiler gave its calls (-1 where it gave none).
    // `sessions` profiler sessions of `passes` passes each, two untimed
    // iterations before each later one, as the recorder profiles: one
    // session's medians move with its state (see the replay README).
    void time_ops_under_profiler(int passes = 5, int sessions = 1, const std::vector<double>& gaps_us = {},
                                 bool with_fault_probe = false);
    const std::vector<double>& profiled_op_us() const { return profiled_op_us_; }
    // One iteration of the planned ops inside the original's non-operator
    // events (timing/label_plan.h), opened as RecordFunction scopes of their
    // names, scopes, sequence numbers and input shapes; no host gaps. With
    // `brackets`, each op's call on the profiler's clock. Returns wall ms.
    LabelledRun prepare_labels(const LabelPlan& plan) const;
    double run_labelled_iteration(const LabelledRun& run, std::vector<OpBracket>* brackets = nullptr);
    // One iteration counting the minor page faults of each step.
    std::vector<int64_t> step_page_faults();
    // Fresh pages each step may allocate on (one count per step; see
    // fresh_page_allocator.h); all zero leaves libtorch's allocator alone.
    void set_fresh_pages(std::vector<int64_t> pages_per_step);
    bool fresh_pages_on() const { return fresh_ != nullptr; }
    // Told of each step as it starts and of each pass's end (iterations,
    // per-op passes, the check): one relaxed store per step. nullptr: none.
    void set_progress(PhaseProgress* progress) { progress_ = progress; }

    const Selection& selection() const { return selection_; }
    const std::vector<Step>& steps() const { return steps_; }
    const std::vector<SkippedOp>& skipped() const { return skipped_; }
    const std::vector<double>& op_us() const { return op_us_; }
    double timer_cost_per_event_us() const { return timer_cost_per_event_us_; }
    const std::vector<ReplayCollective>& collectives() const { return collectives_; }
    size_t replayed_count() const;  // steps not dropped
    uint64_t pool_bytes() const { return pool_.allocated_bytes(); }
    size_t fallbacks() const { return fallbacks_; }  // consumers rerouted to pool tensors
    size_t runtime_errors() const { return runtime_errors_; }
    size_t shape_mismatches() const { return shape_mismatches_; }
    // The ops whose outputs came out unlike the recording, once per output.
    const std::vector<NodeIndex>& mismatched_nodes() const { return mismatched_nodes_; }

private:
    PhaseProgress* progress_ = nullptr;
    void pass_done() const {
        if (progress_) progress_->pass_done();
    }
    enum class Pass { Check, Run };
    // `passes` passes over the steps, each after a restore: `start_pass` then,
    // for each step not skipped, its host gap and `time_step(s)`.
    template <typename StartPass, typename TimeStep>
    void run_op_passes(int passes, const std::vector<double>& gaps_us, StartPass start_pass, TimeStep time_step);
    bool run_step(Step& step, Pass pass);
    // The argument of `step` that autograd's `error` says it cannot
    // differentiate, detached when mark_autograd_leaves made it a leaf that
    // requires grad; false when the error names no such argument.
    static bool detach_non_differentiable_arg(Step& step, const char* error);
    double gap_clock_us() const;
    void spin_pending_gap(bool waited);  // the step's host gap, before its call (see replayer.cpp)
    // The pool's first values back (or fresh ones: keep_input_copies), shown as progress.
    void restore_pool();
    // That, then the caches as the original's step found them (cache_sweep.h).
    void restore_inputs();
    void spend_gap(double gap_us, double from_us);  // host work until gap_clock_us() reaches from + gap (x CPU share)
    void spend_until(double until_us);             // host work until gap_clock_us() reaches it
    void run_paged(size_t s);  // run_step(Run) with the step's fresh-page budget
    at::Tensor input_for(Step& step, TensorPatch& patch, Pass pass);
    at::Tensor fallback(Step& step, TensorPatch& patch);
    void verify_outputs(const Step& step);
    void compute_releases();
    void mark_autograd_leaves();
    std::string plan_collective(NodeIndex node, size_t call);
    void plan_collective_waits();
    void run_collective(Step& step, Pass pass);
    void wait_collectives(const std::vector<uint32_t>& which);
    [[noreturn]] void collective_failed(const ReplayCollective& c, const std::exception& e) const;

    const Trace& trace_;
    ReplayOptions options_;
    Selection selection_;
    OpResolver resolver_;
    TensorPool pool_;
    StepBuilder builder_;
    std::vector<Step> steps_;
    std::vector<SkippedOp> skipped_;
    std::vector<at::Tensor> slots_;
    std::vector<uint8_t> slot_ok_;
    std::vector<std::vector<uint32_t>> release_after_;  // lazy mode: slots freed after each step
    std::vector<c10::IValue> stack_;
    std::vector<double> op_us_;
    std::vector<double> profiled_op_us_;
    std::unique_ptr<CollectiveRunner> runner_;
    std::vector<ReplayCollective> collectives_;
    std::vector<uint32_t> end_waits_;    // async collectives no later step waits for: the iteration's end does
    bool sync_collectives_ = false;       // time_ops: every collective waited for at once
    double timer_cost_per_event_us_ = -1;  // the per-op timer's own cost per nested event; -1: not yet measured
    double gap_cpu_share_ = 0;
    // run_iteration's host gaps: the one before the step about to run (-1:
    // none), and when the previous op returned, on gap_clock_us().
    bool gaps_running_ = false;
    double pending_gap_us_ = -1;
    double gap_from_us_ = 0;
    // The replayer's own work between two ops beyond the gaps it already
    // outlasted, on gap_clock_us(): the next gaps are that much shorter.
    double gap_overrun_us_ = 0;
    std::unique_ptr<HostWork> host_work_;  // what a gap is spent on (host_work.h)
    std::unique_ptr<CacheSweep> cache_sweep_;  // after each restore (cache_sweep.h)
    std::vector<int64_t> fresh_pages_;
    FreshPageAllocator* fresh_ = nullptr;
    size_t fallbacks_ = 0;
    size_t runtime_errors_ = 0;
    size_t shape_mismatches_ = 0;
    std::vector<NodeIndex> mismatched_nodes_;
};

// The first line of a c10 error, without its C++ backtrace.
std::string short_reason(const std::exception& e);

}  // namespace mimic::replay

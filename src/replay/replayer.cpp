#include "replay/replayer.h"

#include <ctime>

#include <ATen/record_function.h>
#include <c10/core/GradMode.h>
#include <c10/util/Exception.h>

#include <algorithm>
#include <optional>
#include <set>
#include <chrono>
#include <string_view>
#include <unordered_map>
#include <unordered_set>

#include "analysis/autograd_counter.h"
#include "io/chakra/chakra_values.h"
#include "record/fault_probe.h"
#include "replay/exec/autocast_region.h"
#include "replay/timing/cache_sweep.h"
#include "replay/exec/device_substitutes.h"
#include "replay/timing/fresh_page_allocator.h"
#include "replay/timing/host_work.h"
#include "replay/timing/op_interval_timer.h"
#include "replay/exec/op_registry.h"
#include "replay/replay_report.h"
#include "replay/timing/torch_profiler_pass.h"
#include "support/error.h"
#include "support/median.h"

namespace mimic::replay {
namespace {

using Clock = std::chrono::steady_clock;

// Untimed iterations before each later session of the pass under the profiler,
// as the recorder's untraced calls before each later profiler session.
constexpr int kIterationsBetweenProfiledSessions = 2;

double us_since(Clock::time_point t0) {
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count();
}

// Keeps the host busy, as the original's Python and autograd code did between ops.
double thread_cpu_us() {
    timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return double(ts.tv_sec) * 1e6 + double(ts.tv_nsec) / 1e3;
}

double wall_us() { return std::chrono::duration<double, std::micro>(Clock::now().time_since_epoch()).count(); }

}  // namespace

std::string short_reason(const std::exception& e) {
    const auto* c10e = dynamic_cast<const c10::Error*>(&e);
    std::string s = c10e ? c10e->what_without_backtrace() : e.what();
    size_t cut = s.find('\n');
    if (cut != std::string::npos) s.resize(cut);
    if (s.size() > 200) s.resize(200);
    return s;
}

Replayer::Replayer(const Trace& trace, ReplayOptions options)
    : trace_(trace), options_(std::move(options)), pool_(trace, options_.device), builder_(trace, pool_) {
    pool_.set_keep_copies(options_.keep_input_copies);
}

Replayer::~Replayer() = default;

void Replayer::plan() {
    selection_ = select_ops(trace_, options_.selection);
    for (const Excluded& ex : selection_.excluded)
        skipped_.push_back({ex.node, std::string(trace_.name(trace_.nodes[ex.node.value])), ex.reason});
    // Every buffer must know all its views before the first is handed out.
    for (NodeIndex i : selection_.ops) {
        const Node& n = trace_.nodes[i.value];
        for (ValueRange r : {n.inputs, n.outputs})
            for (uint32_t k = 0; k < r.count; ++k) {
                const Value& v = trace_.values[r.begin + k];
                if (v.kind == ValueKind::Tensor) pool_.reserve(trace_.tensor(v));
                if (v.kind != ValueKind::List) continue;
                for (uint32_t e = 0; e < v.payload.range.count; ++e) {
                    const Value& item = trace_.values[v.payload.range.begin + e];
                    if (item.kind == ValueKind::Tensor) pool_.reserve(trace_.tensor(item));
                }
            }
    }
    OpRegistry registry;
    const bool on_cpu = options_.device.is_cpu();
    if (options_.groups) runner_ = std::make_unique<CollectiveRunner>(trace_, pool_, *options_.groups);
    std::unordered_map<uint32_t, size_t> call_at;  // node -> its communication call
    for (size_t k = 0; k < selection_.collectives.size(); ++k) call_at[selection_.collectives[k].node.value] = k;
    for (NodeIndex i : selection_.ops) {
        const Node& n = trace_.nodes[i.value];
        std::string_view name = trace_.name(n);
        std::string_view schema = trace_.str(n.op_schema);
        std::string why;
        if (auto call = call_at.find(i.value); call != call_at.end()) {
            why = plan_collective(i, call->second);
            if (!why.empty()) skipped_.push_back({i, std::string(name), why});
            continue;
        }
        const OpLookup& look = registry.lookup(schema);
        const bool runnable = look.registered && (!on_cpu || look.cpu_kernel);
        if (!runnable) {
            // A device-only op (cuDNN...) recorded on a GPU: run its portable twin.
            if (auto sub = substitute_for(name, trace_, n)) {
                try {
                    why = builder_.build(i, sub->op, sub->args, sub->outputs, steps_);
                } catch (const std::exception& e) {
                    why = "planning: " + short_reason(e);
                }
            } else {
                why = look.problem.empty() ? "no kernel for " + options_.device.str() : look.problem;
            }
        } else {
            const ResolvedOp& r = resolver_.resolve(n.op_schema, schema);
            if (!r.handle) {
                why = r.skip_reason;
            } else {
                std::vector<ArgSource> args;
                args.reserve(n.inputs.count);
                for (uint32_t k = 0; k < n.inputs.count; ++k) args.push_back(ArgSource::of(trace_.value_ptr(n.inputs, k)));
                std::vector<const Value*> outs;
                for (uint32_t k = 0; k < n.outputs.count; ++k) outs.push_back(trace_.value_ptr(n.outputs, k));
                try {
                    why = builder_.build(i, *r.handle, args, outs, steps_);
                } catch (const std::exception& e) {
                    // Valid-value generation runs ATen ops, which may refuse recorded shapes.
                    why = "planning: " + short_reason(e);
                }
            }
        }
        if (!why.empty()) skipped_.push_back({i, std::string(name), why});
    }
    mark_autograd_leaves();
    plan_collective_waits();
    pool_.snapshot();
    slots_.assign(builder_.slot_count(), at::Tensor());
    slot_ok_.assign(builder_.slot_count(), 1);
    op_us_.assign(steps_.size(), 0.0);
    compute_releases();
}

std::string Replayer::plan_collective(NodeIndex node, size_t call) {
    if (!runner_) return "collective: a single-process replay has no process group (replay the ranks with --nproc)";
    ReplayCollective c;
    c.recorded = selection_.collectives[call];
    std::string why;
    try {
        why = runner_->prepare(c);
    } catch (const std::exception& e) {
        why = "planning: " + short_reason(e);
    }
    if (!why.empty()) return why;
    Step step;
    step.node = node;
    step.name = std::string(trace_.name(trace_.nodes[node.value]));
    step.collective = int32_t(collectives_.size());
    collectives_.push_back(std::move(c));
    steps_.push_back(std::move(step));
    return {};
}

void Replayer::plan_collective_waits() {
    // Which step first touches a buffer of a collective still in flight (by
    // recorded storage): that step waits for it. What no step waits for is
    // waited for at the iteration's end, as DDP finishes its buckets before
    // the step ends.
    // A send only reads its buffer: a later op that reads it too need not
    // wait (a pipeline stage's backward reads the activations it sent);
    // one that writes it must.
    struct InFlight {
        uint32_t collective;
        bool read_only;
    };
    std::unordered_map<uint64_t, InFlight> in_flight;  // storage id -> collective
    std::vector<uint32_t> open;
    auto settle = [&](Step& step, uint32_t c) {
        if (std::find(open.begin(), open.end(), c) == open.end()) return;
        step.wait_for.push_back(c);
        open.erase(std::find(open.begin(), open.end(), c));
    };
    for (Step& step : steps_) {
        step.wait_for.clear();
        const Node& n = trace_.nodes[step.node.value];
        if (step.collective >= 0 && collectives_[size_t(step.collective)].recorded.kind == CommKind::Wait) {
            // A wait names its call by sequence number (2.x); without one it waits for everything.
            const int64_t seq = collectives_[size_t(step.collective)].recorded.seq;
            std::vector<uint32_t> matched;
            for (uint32_t c : open)
                if (seq >= 0 && collectives_[c].recorded.seq == seq) matched.push_back(c);
            if (matched.empty()) matched = open;
            for (uint32_t c : matched) settle(step, c);
            continue;
        }
        auto touch = [&](ValueRange r, bool writes) {
            for_each_tensor(trace_, r, [&](const TensorMeta& t) {
                auto it = in_flight.find(t.storage_id);
                if (it != in_flight.end() && (writes || !it->second.read_only)) settle(step, it->second.collective);
            });
        };
        touch(n.inputs, false);
        touch(n.outputs, true);
        if (step.collective < 0) continue;
        const ReplayCollective& c = collectives_[size_t(step.collective)];
        if (c.recorded.waits_at_once) continue;
        open.push_back(uint32_t(step.collective));
        const bool read_only = c.recorded.kind == CommKind::Send;
        for (const auto* list : {&c.recorded.inputs, &c.recorded.outputs})
            for (uint32_t t : *list) in_flight[trace_.tensors[t].storage_id] = {uint32_t(step.collective), read_only};
    }
    end_waits_ = open;
}

void Replayer::wait_collectives(const std::vector<uint32_t>& which) {
    for (uint32_t k : which) {
        ReplayCollective& c = collectives_[k];
        try {
            runner_->wait(c);
        } catch (const std::exception& e) {
            collective_failed(c, e);
        }
    }
}

void Replayer::collective_failed(const ReplayCollective& c, const std::exception& e) const {
    const Node& n = trace_.nodes[c.recorded.node.value];
    const DistOptions& o = options_.groups->options();
    fail({trace_.source_path, int64_t(n.id.value), -1, c.recorded.op_name},
         "rank " + std::to_string(o.rank) + ": " + analysis::call_name(c.recorded) + " on group '" +
             c.group->name + "' failed (a peer crashed, hung past the " +
             std::to_string(o.timeout.count() / 1000) + " s timeout, or replays a different trace): " + short_reason(e));
}

void Replayer::run_collective(Step& step, Pass pass) {
    ReplayCollective& c = collectives_[size_t(step.collective)];
    if (c.recorded.kind == CommKind::Wait) return;  // its wait_for list did the waiting
    try {
        runner_->issue(c);
        // An isend is never waited for at once, in any pass: a pipeline's
        // neighbours send to each other at the same moment, and each send
        // completes only when the other has posted its receive. It is waited
        // for before its buffer is written, or at the pass's end.
        const bool isend = c.recorded.kind == CommKind::Send && !c.recorded.waits_at_once;
        if (!isend && (pass == Pass::Check || sync_collectives_ || c.recorded.waits_at_once)) runner_->wait(c);
    } catch (const std::exception& e) {
        collective_failed(c, e);
    }
}

void Replayer::compute_releases() {
    release_after_.assign(steps_.size(), {});
    if (!options_.lazy) return;
    std::vector<int64_t> last_use(slots_.size(), -1);
    for (size_t s = 0; s < steps_.size(); ++s) {
        if (steps_[s].skipped) continue;
        for (const OutputBinding& o : steps_[s].outputs) last_use[o.slot] = std::max<int64_t>(last_use[o.slot], int64_t(s));
        for (const TensorPatch& p : steps_[s].patches)
            if (!p.dead) last_use[p.slot] = std::max<int64_t>(last_use[p.slot], int64_t(s));
    }
    // A cut's tensors that the full trace read after the region: held to the
    // end of the iteration (its last step), as the full trace's later readers
    // held them (Trace::live_out_tensors).
    if (!trace_.live_out_tensors.empty()) {
        std::set<std::pair<uint64_t, uint64_t>> live(trace_.live_out_tensors.begin(), trace_.live_out_tensors.end());
        for (const Step& step : steps_)
            for (const OutputBinding& o : step.outputs) {
                const TensorMeta& meta = trace_.tensors[o.tensor_index];
                if (live.count({meta.tensor_id, meta.storage_id})) last_use[o.slot] = int64_t(steps_.size()) - 1;
            }
    }
    for (size_t slot = 0; slot < last_use.size(); ++slot)
        if (last_use[slot] >= 0) release_after_[size_t(last_use[slot])].push_back(uint32_t(slot));
}

void Replayer::mark_autograd_leaves() {
    // A trace recorded without autograd (inference) has no sequence numbers:
    // nothing to do. An op gets a number whenever it runs in grad mode, but
    // a node in autograd's graph only where an input required grad; the
    // backward's nodes carry the numbers of the forward ops that made them.
    // Where the trace has a backward, an op with no node there made none
    // (clip_grad_norm_'s norms and scalings of the gradients, metrics on
    // labels), and runs without autograd here too. The numbers themselves
    // say which ops made a node (autograd_counter.h): an op whose number the
    // next call repeats made none, though a backward node may carry that
    // number, made by the call after it (a reshape of the labels before the
    // loss); without a backward (a forward in grad mode, a cut of it) they
    // are all there is. An op that cannot be told keeps autograd.
    std::unordered_set<int64_t> made_nodes;
    for (const Node& n : trace_.nodes)
        if (n.scope == int32_t(at::RecordScope::BACKWARD_FUNCTION) && n.seq_id >= 0) made_nodes.insert(n.seq_id);
    const std::vector<analysis::MadeNode> counted = analysis::made_autograd_nodes(trace_);
    for (Step& step : steps_) {
        const int64_t seq = trace_.nodes[step.node.value].seq_id;
        const bool made = counted[step.node.value] != analysis::MadeNode::No && (made_nodes.empty() || made_nodes.count(seq) > 0);
        step.grad_mode = step.op && seq >= 0 && made;
    }
    std::unordered_set<const c10::StorageImpl*> leaf_storages;
    for (Step& step : steps_) {
        if (!step.grad_mode) continue;
        const auto& formals = step.op->schema().arguments();
        for (size_t i = 0; i < step.args.size() && i < formals.size(); ++i) {
            // Pool tensors read (not written) by an op autograd recorded stand for
            // parameters and inputs: leaves that require grad, as in the original.
            const c10::AliasInfo* alias = formals[i].alias_info();
            if (alias && alias->isWrite()) continue;
            c10::IValue& a = step.args[i];
            if (!a.isTensor()) continue;
            at::Tensor t = a.toTensor();
            // A sparse input (a gradient being accumulated) is no parameter, and has no storage.
            if (!t.defined() || !t.is_floating_point() || t.is_sparse() || t.unsafeGetTensorImpl()->is_wrapped_number())
                continue;
            if (!t.requires_grad()) t.requires_grad_(true);
            leaf_storages.insert(t.storage().unsafeGetStorageImpl());
        }
    }
    // The same leaves where autograd did not record: the backward's ops read
    // the saved parameters and the optimizer updates them, tensors that still
    // require grad in the original. A view of one (`t` of a weight in the
    // backward) gets autograd metadata even without grad mode, which the
    // original paid for: the replay's `t` took 0.4-0.5 us against 0.6-0.9.
    for (Step& step : steps_) {
        if (step.grad_mode || !step.op) continue;
        for (c10::IValue& a : step.args) {
            if (!a.isTensor()) continue;
            at::Tensor t = a.toTensor();
            if (t.defined() && t.is_floating_point() && !t.is_sparse() && !t.requires_grad() && t.is_leaf() &&
                leaf_storages.count(t.storage().unsafeGetStorageImpl()))
                t.requires_grad_(true);
        }
    }
}

bool Replayer::detach_non_differentiable_arg(Step& step, const char* error) {
    // Autograd's generated check names the argument: "The function 'f' is not
    // differentiable with respect to argument 'name'. ..."
    static constexpr std::string_view kMarker = "with respect to argument '";
    const std::string_view message(error);
    const size_t at = message.find(kMarker);
    if (at == std::string_view::npos) return false;
    const size_t begin = at + kMarker.size();
    const size_t end = message.find('\'', begin);
    if (end == std::string_view::npos) return false;
    const std::string_view name = message.substr(begin, end - begin);
    const auto& formals = step.op->schema().arguments();
    for (size_t i = 0; i < step.args.size() && i < formals.size(); ++i) {
        if (formals[i].name() != name || !step.args[i].isTensor()) continue;
        const at::Tensor t = step.args[i].toTensor();
        if (!t.defined() || !t.requires_grad() || !t.is_leaf()) return false;
        step.args[i] = t.detach();
        return true;
    }
    return false;
}

size_t Replayer::replayed_count() const {
    return size_t(std::count_if(steps_.begin(), steps_.end(), [](const Step& s) { return !s.skipped; }));
}

at::Tensor Replayer::fallback(Step& step, TensorPatch& patch) {
    // The producer failed or produced something unlike the recording: the
    // consumer reads a pool tensor of the recorded layout from now on.
    at::Tensor t = pool_.view(trace_.tensors[patch.tensor_index]);
    patch.dead = true;
    ++fallbacks_;
    if (patch.elem == kWholeArg) {
        step.args[patch.arg] = t;
    } else {
        c10::impl::GenericList list = step.args[patch.arg].toList().copy();
        list.set(size_t(patch.elem), t);
        step.args[patch.arg] = list;
    }
    return t;
}

at::Tensor Replayer::input_for(Step& step, TensorPatch& patch, Pass pass) {
    const at::Tensor& base = slots_[patch.slot];
    if (!base.defined() || !slot_ok_[patch.slot]) return fallback(step, patch);
    if (patch.view < 0 || base.is_sparse()) return base;
    const TensorLayout& v = builder_.views()[size_t(patch.view)];
    // Another view of a produced storage: only if the storage really is that big.
    if (base.scalar_type() != v.dtype || base.storage().nbytes() < v.extent_bytes) return fallback(step, patch);
    (void)pass;
    // Built directly on the storage, not through as_strided: no dispatcher
    // call, so it costs less and does not show as an op in --record-replay.
    // The producer's lazy conjugate and negative bits are not the view's: a
    // complex parameter read after its backward's `conj` (which returns the
    // parameter's storage with the conjugate bit) is the plain parameter, and
    // `view_as_real` refuses a conjugated tensor (an Adam step on a spectral
    // layer's weights skipped two ops).
    const c10::DispatchKeySet keys =
        base.key_set().remove(c10::DispatchKey::Conjugate).remove(c10::DispatchKey::Negative);
    at::Tensor view =
        at::detail::make_tensor<c10::TensorImpl>(c10::TensorImpl::VIEW, c10::Storage(base.storage()), keys, base.dtype());
    view.unsafeGetTensorImpl()->set_sizes_and_strides(v.sizes, v.strides, v.offset);
    return view;
}

void Replayer::verify_outputs(const Step& step) {
    for (const OutputBinding& o : step.outputs) {
        const at::Tensor& t = slots_[o.slot];
        const TensorMeta& m = trace_.tensors[o.tensor_index];
        bool ok = t.defined() && t.dim() == int64_t(m.rank);
        for (uint16_t d = 0; ok && d < m.rank; ++d) ok = t.size(d) == trace_.shape(m)[d];
        if (!ok) {
            slot_ok_[o.slot] = 0;
            ++shape_mismatches_;
            mismatched_nodes_.push_back(step.node);
        }
    }
}

// The gaps are timed from the previous op's return, with this thread's CPU
// clock when they are host work (a CPU share) or the wall clock: the
// replayer's own work between two ops (binding outputs, freeing, building
// the next stack) is host time the gap already holds, as the original's
// Python work held its dispatch. Spun on top, it made an op-dense
// transformer's iterations ~1 ms longer than its ops and gaps.
double Replayer::gap_clock_us() const { return gap_cpu_share_ > 0 ? thread_cpu_us() : wall_us(); }

// Where the replayer's own work between two ops outlasts the gap (ops of a
// microsecond that the original called back to back from C++, in autograd's
// engine), the excess is taken off the gaps that follow, so that the
// iteration spends the sum of the gaps, not the sum of each gap or the
// replayer's work, whichever is longer. Measured on a hand-unrolled GRU
// (449 ops, 1.7 ms) recorded by PyTorch's tools: the replayer's work was
// 0.36 us per op, 0.14 ms of it beyond the gaps it fell in; the replay went
// from +45% to +24% of the untraced step (16 such models, replays taken in
// turns with the build before: 5.9% -> 5.6% geometric mean).
void Replayer::spin_pending_gap(bool waited) {
    if (pending_gap_us_ < 0) return;
    // A wait ends where the original's host work began: DDP's reducer
    // waits inside backward(), before Python returns to the optimizer.
    if (waited) {
        gap_from_us_ = gap_clock_us();
        gap_overrun_us_ = 0;
    }
    const double until = gap_from_us_ + pending_gap_us_ * (gap_cpu_share_ > 0 ? gap_cpu_share_ : 1.0) - gap_overrun_us_;
    pending_gap_us_ = -1;
    const double now = gap_clock_us();
    gap_overrun_us_ = std::max(0.0, now - until);
    if (now < until) spend_until(until);
}

void Replayer::spend_gap(double gap_us, double from_us) {
    if (gap_us > 0) spend_until(from_us + gap_us * (gap_cpu_share_ > 0 ? gap_cpu_share_ : 1.0));
}

void Replayer::spend_until(double until_us) {
    if (!host_work_) host_work_ = std::make_unique<HostWork>();
    host_work_->until([this] { return gap_clock_us(); }, until_us);
}

bool Replayer::run_step(Step& step, Pass pass) {
    if (progress_) progress_->steps_done(static_cast<uint64_t>(&step - steps_.data()) + 1);
    if (!step.wait_for.empty()) wait_collectives(step.wait_for);
    spin_pending_gap(!step.wait_for.empty());
    if (step.collective >= 0) {
        run_collective(step, pass);
        if (gaps_running_) gap_from_us_ = gap_clock_us();
        return true;
    }
    stack_.clear();
    stack_.insert(stack_.end(), step.args.begin(), step.args.end());
    int last_copied = -1;
    for (TensorPatch& p : step.patches) {
        if (p.dead) continue;
        at::Tensor t = input_for(step, p, pass);
        if (p.dead) {  // rerouted: the template now holds the pool tensor
            stack_[p.arg] = step.args[p.arg];
            last_copied = p.arg;
            continue;
        }
        if (p.elem == kWholeArg) {
            stack_[p.arg] = std::move(t);
        } else {
            if (last_copied != p.arg) {
                stack_[p.arg] = stack_[p.arg].toList().copy();
                last_copied = p.arg;
            }
            stack_[p.arg].toList().set(size_t(p.elem), std::move(t));
        }
    }
    try {
        c10::AutoGradMode grad(step.grad_mode);
        std::optional<AutocastScope> autocast;
        if (step.autocast != c10::ScalarType::Undefined) autocast.emplace(step.autocast);
        if (!step.unboxed || !step.unboxed(stack_)) step.op->callBoxed(&stack_);
        if (gaps_running_) gap_from_us_ = gap_clock_us();
    } catch (const std::exception& e) {
        if (gaps_running_) gap_from_us_ = gap_clock_us();
        if (pass == Pass::Check && step.grad_mode) {
            // A tensor mark_autograd_leaves took for a parameter that autograd
            // cannot differentiate (batch norm's running mean and variance):
            // that one argument stops requiring grad, and the op keeps autograd,
            // as in the original, where its output required grad and the ops
            // after it recorded (an in-place ReLU6 then clones its input first:
            // 3x the time of the no-grad call).
            if (detach_non_differentiable_arg(step, e.what())) return run_step(step, pass);
            // Autograd refused otherwise (an in-place op on a leaf, a view rule): run
            // it as the original's backward and optimizer ops run, without grad.
            step.grad_mode = false;
            for (c10::IValue& a : step.args)
                if (a.isTensor() && a.toTensor().requires_grad() && a.toTensor().is_leaf()) a = a.toTensor().detach();
            return run_step(step, pass);
        }
        step.skipped = true;
        step.skip_reason = short_reason(e);
        if (pass == Pass::Run) {
            ++runtime_errors_;
            skipped_.push_back({step.node, step.name, step.skip_reason});
        }
        for (const OutputBinding& o : step.outputs) slots_[o.slot] = at::Tensor();
        return false;
    }
    for (const OutputBinding& o : step.outputs) {
        if (o.ret >= stack_.size()) continue;
        const c10::IValue& r = stack_[o.ret];
        if (o.elem == kWholeArg) {
            slots_[o.slot] = r.isTensor() ? r.toTensor() : at::Tensor();
        } else if (r.isList() && size_t(o.elem) < r.toListRef().size() && r.toListRef()[size_t(o.elem)].isTensor()) {
            slots_[o.slot] = r.toListRef()[size_t(o.elem)].toTensor();
        } else {
            slots_[o.slot] = at::Tensor();
        }
    }
    return true;
}

void Replayer::check() {
    for (size_t s = 0; s < steps_.size(); ++s) {
        Step& step = steps_[s];
        if (step.skipped) continue;
        if (run_step(step, Pass::Check)) verify_outputs(step);
        for (uint32_t slot : release_after_[s]) slots_[slot] = at::Tensor();
    }
    wait_collectives(end_waits_);
    pass_done();
    for (Step& step : steps_)
        if (step.skipped) skipped_.push_back({step.node, step.name, step.skip_reason});
    compute_releases();
    for (at::Tensor& t : slots_) t = at::Tensor();
    restore_pool();
}

void Replayer::restore_pool() {
    if (progress_) progress_->aside(options_.keep_input_copies ? "restoring the inputs" : "filling the inputs afresh");
    pool_.restore();
}

void Replayer::restore_inputs() {
    restore_pool();
    // The copy left the last buffers it wrote in L1 and L2, where the
    // original's step found what its previous step touched last.
    if (!cache_sweep_) cache_sweep_ = std::make_unique<CacheSweep>();
    cache_sweep_->sweep();
}

double Replayer::run_iteration(const std::vector<double>& gaps_us, std::vector<int64_t>* faults) {
    const bool gaps = gaps_us.size() == steps_.size();
    if (faults) faults->assign(steps_.size(), 0);
    FreshPageAllocator::unmap_freed();  // untimed, see there
    restore_inputs();  // untimed: every iteration starts from the same inputs
    if (options_.groups) options_.groups->barrier();  // ranks start each iteration together
    const auto t0 = Clock::now();
    gaps_running_ = gaps;
    gap_overrun_us_ = 0;
    if (gaps) gap_from_us_ = gap_clock_us();  // the first op's gap counts from the iteration's start
    for (size_t s = 0; s < steps_.size(); ++s) {
        Step& step = steps_[s];
        if (step.skipped) continue;
        if (gaps) pending_gap_us_ = std::max(0.0, gaps_us[s]);
        const uint64_t faults_before = faults ? minor_page_faults() : 0;
        run_paged(s);
        if (faults) (*faults)[s] = static_cast<int64_t>(minor_page_faults() - faults_before);
        for (uint32_t slot : release_after_[s]) slots_[slot] = at::Tensor();
    }
    gaps_running_ = false;
    pending_gap_us_ = -1;
    wait_collectives(end_waits_);
    const double ms = us_since(t0) / 1000.0;
    pass_done();
    return ms;
}

template <typename StartPass, typename TimeStep>
void Replayer::run_op_passes(int passes, const std::vector<double>& gaps_us, StartPass start_pass, TimeStep time_step) {
    const bool gaps = gaps_us.size() == steps_.size();
    // Each collective is timed from issue to completion; the ranks stay in
    // step because each call waits for all of them.
    sync_collectives_ = true;
    for (int pass = 0; pass < std::max(passes, 1); ++pass) {
        FreshPageAllocator::unmap_freed();
        restore_inputs();
        start_pass();
        if (options_.groups) options_.groups->barrier();
        for (size_t s = 0; s < steps_.size(); ++s) {
            Step& step = steps_[s];
            if (step.skipped) continue;
            if (step.collective >= 0) {
                // Members meet first, so a call's time is its own, not the
                // wait for the group's slowest rank to arrive.
                ReplayCollective& c = collectives_[size_t(step.collective)];
                if (c.recorded.kind != CommKind::Wait && c.group && c.group->pg) {
                    try {
                        c.group->pg->barrier()->wait();
                    } catch (const std::exception& e) {
                        collective_failed(c, e);
                    }
                }
            }
            if (gaps) spend_gap(gaps_us[s], gap_clock_us());
            time_step(s);
            for (uint32_t slot : release_after_[s]) slots_[slot] = at::Tensor();
        }
        wait_collectives(end_waits_);
        pass_done();
    }
    sync_collectives_ = false;
}

void Replayer::time_ops(int passes, const std::vector<double>& gaps_us) {
    // The median of a few passes: one preempted call must not make an op look slow.
    std::vector<std::vector<double>> samples(steps_.size());
    // Ops are timed inside the dispatcher, as the profiler timed the original
    // (see OpIntervalTimer), less this timer's own cost for each nested event.
    // Measured once: a paced benchmark asks for a pass every round, and the
    // calibration's loop would run before each (and leave its caches).
    if (timer_cost_per_event_us_ < 0) timer_cost_per_event_us_ = OpIntervalTimer::cost_per_event_us();
    const double per_event_us = timer_cost_per_event_us_;
    OpIntervalTimer timer;
    run_op_passes(passes, gaps_us, [&] { timer.warm_up(); }, [&](size_t s) {
        timer.arm();
        const auto t0 = Clock::now();
        run_paged(s);
        const double outside_us = us_since(t0);
        if (steps_[s].collective < 0 && timer.has_interval())
            samples[s].push_back(std::max(0.0, timer.interval_us() - per_event_us * double(timer.events() - 1)));
        else
            samples[s].push_back(outside_us);  // collectives run on Gloo's threads, outside the dispatcher
    });
    for (size_t s = 0; s < steps_.size(); ++s)
        if (!samples[s].empty()) op_us_[s] = median(std::move(samples[s]));
}

void Replayer::time_ops_under_profiler(int passes, int sessions, const std::vector<double>& gaps_us,
                                       bool with_fault_probe) {
    std::vector<std::vector<double>> samples(steps_.size());
    for (int session = 0; session < std::max(sessions, 1); ++session) {
        // As the recorder runs two untraced calls before each later profiler session.
        if (session)
            for (int i = 0; i < kIterationsBetweenProfiledSessions; ++i) run_iteration(gaps_us);
        std::vector<OpBracket> brackets;
        std::vector<size_t> bracket_step;
        TorchProfilerSession profiler;
        {
            // The recorder's fault probe ran in its profiled calls: a global
            // callback, so its page-fault read at each top-level op's end falls
            // inside the profiler's interval (0.4-0.44 us measured; the profile's
            // durations carry it).
            struct ProbeOn {
                bool on;
                ~ProbeOn() {
                    if (on) mimic_fault_probe_stop(nullptr);  // also when a pass throws (a failed collective)
                }
            } probe{with_fault_probe && mimic_fault_probe_start() == 0};  // already on: not ours to stop
            run_op_passes(passes, gaps_us, [] { OpIntervalTimer::run_warm_up_ops(); }, [&](size_t s) {
                const int64_t before = profiler_clock_ns();
                const auto t0 = Clock::now();
                run_paged(s);
                const double outside_us = us_since(t0);
                if (steps_[s].collective >= 0) {
                    samples[s].push_back(outside_us);  // on Gloo's threads, as in time_ops
                    return;
                }
                brackets.push_back({&steps_[s].name, before, profiler_clock_ns()});
                bracket_step.push_back(s);
            });
        }
        const std::vector<double> us = match_brackets(brackets, profiler.finish());
        for (size_t k = 0; k < us.size(); ++k)
            if (us[k] >= 0) samples[bracket_step[k]].push_back(us[k]);
    }
    profiled_op_us_.assign(steps_.size(), -1.0);
    for (size_t s = 0; s < steps_.size(); ++s)
        if (!samples[s].empty()) profiled_op_us_[s] = median(std::move(samples[s]));
}

void Replayer::run_paged(size_t s) {
    if (!fresh_) {
        run_step(steps_[s], Pass::Run);
        return;
    }
    fresh_->set_budget_pages(fresh_pages_[s]);
    run_step(steps_[s], Pass::Run);
    fresh_->set_budget_pages(0);
}

void Replayer::set_fresh_pages(std::vector<int64_t> pages_per_step) {
    if (pages_per_step.size() != steps_.size()) throw std::invalid_argument("set_fresh_pages: one count per step");
    fresh_pages_ = std::move(pages_per_step);
    bool any = false;
    for (int64_t p : fresh_pages_) any = any || p > 0;
    fresh_ = any ? &FreshPageAllocator::install() : nullptr;
}

std::vector<int64_t> Replayer::step_page_faults() {
    std::vector<int64_t> faults;
    run_iteration({}, &faults);
    return faults;
}

}  // namespace mimic::replay

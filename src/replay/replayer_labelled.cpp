// Replayer::run_labelled_iteration: the replayed ops inside the original's
// non-operator events (timing/label_plan.h), for measuring what recording
// costs (timing/recording_overhead.h).
#include <ATen/ATen.h>
#include <ATen/record_function.h>

#include <chrono>
#include <memory>

#include "replay/exec/dtypes.h"
#include "replay/replayer.h"
#include "replay/timing/fresh_page_allocator.h"

namespace mimic::replay {
namespace {

// A label's recorded tensor inputs as tensors of the same shapes and dtypes
// over one element (zero strides): what the observer writes of an input is
// its ids, shape, strides and type, never its data. Other values as None.
std::vector<c10::IValue> label_inputs(const Trace& trace, const Node& node) {
    std::vector<c10::IValue> out;
    for (uint32_t i = 0; i < node.inputs.count; ++i) {
        const Value& v = *trace.value_ptr(node.inputs, i);
        if (v.kind != ValueKind::Tensor) {
            out.emplace_back();
            continue;
        }
        const TensorMeta& t = trace.tensor(v);
        const c10::ScalarType dtype = parse_dtype(trace.str(t.dtype)).value_or(c10::kFloat);
        std::vector<int64_t> sizes(trace.shape(t), trace.shape(t) + t.rank);
        std::vector<int64_t> strides(t.rank, 0);
        out.emplace_back(at::empty_strided(sizes, strides, at::TensorOptions().dtype(dtype)));
    }
    return out;
}

at::RecordScope scope_of(const Node& node) {
    if (node.scope >= 0 && node.scope < int32_t(at::RecordScope::NUM_SCOPES)) return static_cast<at::RecordScope>(node.scope);
    return node.kind == NodeKind::Autograd ? at::RecordScope::BACKWARD_FUNCTION : at::RecordScope::USER_SCOPE;
}

}  // namespace

LabelledRun Replayer::prepare_labels(const LabelPlan& plan) const {
    LabelledRun run;
    run.plan = plan;
    for (const PlannedLabel& l : plan.labels) {
        const Node& n = trace_.nodes[l.node.value];
        run.names.emplace_back(trace_.name(n));
        run.inputs.push_back(label_inputs(trace_, n));
    }
    return run;
}

double Replayer::run_labelled_iteration(const LabelledRun& run, std::vector<OpBracket>* brackets) {
    FreshPageAllocator::unmap_freed();
    restore_inputs();  // untimed, as run_iteration's
    if (options_.groups) options_.groups->barrier();
    std::vector<std::unique_ptr<at::RecordFunction>> open;
    const auto t0 = std::chrono::steady_clock::now();
    for (const LabelAction& a : run.plan.actions) {
        switch (a.kind) {
            case LabelAction::Kind::Open: {
                const Node& n = trace_.nodes[run.plan.labels[a.index].node.value];
                auto rf = std::make_unique<at::RecordFunction>(scope_of(n));
                if (rf->isActive()) rf->before(run.names[a.index].c_str(), &run.inputs[a.index], n.seq_id);
                open.push_back(std::move(rf));
                break;
            }
            case LabelAction::Kind::Close:
                if (!open.empty()) open.pop_back();  // its destructor runs the end callbacks
                break;
            case LabelAction::Kind::Run: {
                const size_t s = a.index;
                if (steps_[s].skipped) break;
                const int64_t before = brackets ? profiler_clock_ns() : 0;
                run_paged(s);
                if (brackets) brackets->push_back({&steps_[s].name, before, profiler_clock_ns()});
                for (uint32_t slot : release_after_[s]) slots_[slot] = at::Tensor();
                break;
            }
        }
    }
    while (!open.empty()) open.pop_back();
    wait_collectives(end_waits_);
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    pass_done();
    return ms;
}

}  // namespace mimic::replay

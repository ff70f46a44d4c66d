#include "replay/timing/op_interval_timer.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>
#include <ATen/ops/neg.h>
#include <ATen/ops/zeros.h>

#include <chrono>
#include <vector>

#include "support/median.h"

namespace mimic::replay {
namespace {

using Clock = std::chrono::steady_clock;

// One timer per thread at a time; the callbacks are plain functions.
struct TimerState {
    int depth = 0;
    bool armed = false;
    bool done = false;
    uint32_t events = 0;
    Clock::time_point start, end;
};
thread_local TimerState state;

std::unique_ptr<at::ObserverContext> on_start(const at::RecordFunction&) {
    if (state.armed && !state.done) {
        if (state.depth == 0) state.start = Clock::now();
        ++state.events;
    }
    ++state.depth;
    return nullptr;
}

void on_end(const at::RecordFunction&, at::ObserverContext*) {
    --state.depth;
    if (state.depth == 0 && state.armed && !state.done && state.events > 0) {
        state.end = Clock::now();
        state.done = true;
    }
}

double loop_us_per_call(const at::Tensor& x, int calls) {
    const auto t0 = Clock::now();
    for (int i = 0; i < calls; ++i) at::neg(x);
    return std::chrono::duration<double, std::micro>(Clock::now() - t0).count() / calls;
}

}  // namespace

OpIntervalTimer::OpIntervalTimer() {
    state = TimerState{};
    handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(on_start, on_end));
}

OpIntervalTimer::~OpIntervalTimer() {
    at::removeCallback(handle_);
    state = TimerState{};
}

void OpIntervalTimer::arm() {
    state.armed = true;
    state.done = false;
    state.events = 0;
}

bool OpIntervalTimer::has_interval() const { return state.done; }

double OpIntervalTimer::interval_us() const {
    return std::chrono::duration<double, std::micro>(state.end - state.start).count();
}

uint32_t OpIntervalTimer::events() const { return state.events; }

void OpIntervalTimer::warm_up() {
    state.armed = false;
    run_warm_up_ops();
}

void OpIntervalTimer::run_warm_up_ops() {
    static const c10::OperatorHandle empty = c10::Dispatcher::singleton().findSchemaOrThrow("aten::empty", "memory_format");
    // empty(size, dtype, layout, device, pin_memory, memory_format), as a replayed step builds it.
    torch::jit::Stack stack{c10::IValue(std::vector<int64_t>{0}), c10::IValue(), c10::IValue(),
                            c10::IValue(c10::Device(c10::kCPU)), c10::IValue(), c10::IValue()};
    empty.callBoxed(stack);
    at::zeros({1});  // zeros -> empty, zero_ -> fill_
}

double OpIntervalTimer::cost_per_event_us() {
    constexpr int kCalls = 2000, kRounds = 5;
    const at::Tensor x = at::zeros({4});
    loop_us_per_call(x, kCalls);  // warm up
    std::vector<double> bare, timed;
    for (int r = 0; r < kRounds; ++r) {
        bare.push_back(loop_us_per_call(x, kCalls));
        OpIntervalTimer timer;
        timed.push_back(loop_us_per_call(x, kCalls));
    }
    return std::max(0.0, median(timed) - median(bare));
}

}  // namespace mimic::replay

// Times a replayed op the way the profiler timed the original: from the
// op's RecordFunction start to its end, inside the dispatcher, counting the
// RecordFunction events nested in it. Timed from outside, a replayed op would
// also carry what a generic replayer pays around a call (the boxed argument
// stack, patching in produced tensors) that the original's unboxed calls did
// not: up to half of a 1 us op.
#pragma once

#include <ATen/record_function.h>

#include <cstdint>

namespace mimic::replay {

class OpIntervalTimer {
public:
    OpIntervalTimer();  // installs a callback on this thread
    ~OpIntervalTimer();
    OpIntervalTimer(const OpIntervalTimer&) = delete;
    OpIntervalTimer& operator=(const OpIntervalTimer&) = delete;

    // Forgets the last op: the next RecordFunction to start on this thread is timed.
    void arm();
    // Runs two small ops untimed through the paths the replay's calls take
    // with this timer's callbacks on (a boxed call; an op with nested ops).
    // Those paths are cold in a pass's first calls: they are not taken while
    // no callback is installed (and the first event after one is added
    // rebuilds the thread's callback list), and the pool's restore runs in
    // between. The first two ops of a pass took 3-10 us instead of 0.5-1; in
    // the original, ops before the iteration's paid for it.
    void warm_up();
    // The same two ops, for a pass timed by another clock (torch_profiler_pass.h).
    static void run_warm_up_ops();
    bool has_interval() const;
    double interval_us() const;
    // Events from the op's start to its end, the op itself included.
    uint32_t events() const;

    // What this timer's callbacks cost per event, in microseconds: a loop of
    // a small op timed with and without them (medians of a few rounds).
    static double cost_per_event_us();

private:
    at::CallbackHandle handle_;
};

}  // namespace mimic::replay

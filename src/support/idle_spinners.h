// Keeps every core of this machine from going idle, at the lowest priority
// there is (SCHED_IDLE: a spinner runs only when nothing else wants the core).
//
// Why: on a virtual machine a core with nothing to run halts, and a message
// to a thread that sleeps there waits for the hypervisor to wake it. Gloo's
// collectives between otherwise idle processes fall into two modes on this
// VM, a fast one and one a scheduler tick (4 ms) long, and which one a size's
// median lands in changes from run to run; with the cores kept busy the slow
// mode all but goes (docs/findings.md, 2026-12-07), as during a training
// step's compute, beside which DDP's collectives run.
#pragma once

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

namespace mimic {

class IdleSpinners {
public:
    // Starts one spinner per online core (count 0) or `count` of them.
    explicit IdleSpinners(unsigned count = 0);
    ~IdleSpinners();
    IdleSpinners(const IdleSpinners&) = delete;
    IdleSpinners& operator=(const IdleSpinners&) = delete;
    // Spinners running at SCHED_IDLE (one that could not get it stops at
    // once: at a normal priority it would take a core from the work measured).
    unsigned running() const { return running_; }

private:
    std::atomic<bool> stop_{false};
    std::vector<std::thread> threads_;
    unsigned running_ = 0;
};

}  // namespace mimic

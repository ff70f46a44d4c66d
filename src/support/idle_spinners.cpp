#include "support/idle_spinners.h"

#include <pthread.h>
#include <sched.h>

namespace mimic {

IdleSpinners::IdleSpinners(unsigned count) {
    if (count == 0) count = std::max(1u, std::thread::hardware_concurrency());
    std::atomic<unsigned> started{0}, idle{0};
    for (unsigned i = 0; i < count; ++i) {
        threads_.emplace_back([this, &started, &idle] {
            sched_param none{};
            const bool ok = pthread_setschedparam(pthread_self(), SCHED_IDLE, &none) == 0;
            if (ok) idle.fetch_add(1);
            started.fetch_add(1);
            if (!ok) return;
            while (!stop_.load(std::memory_order_relaxed)) {
                // Nothing: the scheduler gives the core to any other runnable thread.
            }
        });
    }
    while (started.load() < count) std::this_thread::yield();
    running_ = idle.load();
}

IdleSpinners::~IdleSpinners() {
    stop_.store(true);
    for (std::thread& t : threads_) t.join();
}

}  // namespace mimic

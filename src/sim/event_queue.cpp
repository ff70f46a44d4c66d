#include "sim/event_queue.h"

#include <algorithm>

namespace mimic::sim {

void EventQueue::push(const Event& e) {
    heap_.push_back(e);
    std::push_heap(heap_.begin(), heap_.end(), later);
}

bool EventQueue::run_one() {
    if (heap_.empty()) return false;
    std::pop_heap(heap_.begin(), heap_.end(), later);
    const Event e = heap_.back();
    heap_.pop_back();
    now_ = e.time;
    ++events_run_;
    if (e.target) e.target->on_event(e.kind, e.arg);
    if (e.rank >= 0) {
        auto& batches = batches_[static_cast<size_t>(e.rank)];
        auto it = batches.find(e.time);
        if (it != batches.end() && --it->second.pending == 0) batches.erase(it);
    }
    return true;
}

}  // namespace mimic::sim

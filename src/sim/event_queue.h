// The simulator's clock: one heap of events ordered by (time, sequence).
// Two ways in, as ASTRA-sim's analytical frontend orders same-time events:
// - schedule(): a network-level event, after everything already due then;
// - schedule_for_rank(): a rank's system-layer event. A rank's events due at
//   one time form a batch that runs where its first event was queued; later
//   events for that rank and time join the batch while it is pending or
//   running (ASTRA-sim's Sys keeps one list per tick and queues one callback
//   for it). Batches of a time that has fully run start afresh.
#pragma once

#include <cstddef>
#include <cstdint>
#include <unordered_map>
#include <vector>

namespace mimic::sim {

using Tick = uint64_t;

class EventTarget {
public:
    virtual ~EventTarget() = default;
    virtual void on_event(uint32_t kind, uint64_t arg) = 0;
};

class EventQueue {
public:
    explicit EventQueue(int ranks) : batches_(static_cast<size_t>(ranks)) {}

    Tick now() const { return now_; }
    void schedule(Tick at, EventTarget* target, uint32_t kind, uint64_t arg) {
        push({at, next_seq_++, 0, -1, kind, target, arg});
    }
    void schedule_for_rank(int rank, Tick at, EventTarget* target, uint32_t kind, uint64_t arg) {
        Batch& batch = batches_[static_cast<size_t>(rank)][at];
        if (batch.pending == 0 && batch.next_sub == 0) batch.seq = next_seq_++;
        ++batch.pending;
        push({at, batch.seq, batch.next_sub++, rank, kind, target, arg});
    }
    bool empty() const { return heap_.empty(); }
    Tick next_time() const { return heap_.front().time; }
    // Runs the earliest event; false when none is left.
    bool run_one();
    uint64_t events_run() const { return events_run_; }

private:
    struct Event {
        Tick time;
        uint64_t seq;
        uint32_t sub;
        int32_t rank;  // -1: not part of a batch
        uint32_t kind;
        EventTarget* target;
        uint64_t arg;
    };
    struct Batch {
        uint64_t seq = 0;
        uint32_t next_sub = 0;
        uint32_t pending = 0;
    };
    static bool later(const Event& a, const Event& b) {
        if (a.time != b.time) return a.time > b.time;
        if (a.seq != b.seq) return a.seq > b.seq;
        return a.sub > b.sub;
    }
    void push(const Event& e);

    std::vector<Event> heap_;
    std::vector<std::unordered_map<Tick, Batch>> batches_;
    Tick now_ = 0;
    uint64_t next_seq_ = 0;
    uint64_t events_run_ = 0;
};

}  // namespace mimic::sim

// ASTRA-sim's analytical remote memory: a load or store of `size` bytes takes
// latency + size / bandwidth; per NPU, or one at a time per node of NPUs
// (PER_NODE_MEMORY_EXPANSION) or for the whole pool (MEMORY_POOL).
#pragma once

#include <deque>
#include <vector>

#include "sim/event_queue.h"
#include "sim/system_config.h"

namespace mimic::sim {

class RankSystem;

class RemoteMemory final : public EventTarget {
public:
    explicit RemoteMemory(const RemoteMemoryConfig& config) : config_(config) {}
    void attach(std::vector<RankSystem*> systems) { systems_ = std::move(systems); }
    bool enabled() const { return config_.type != "NO_MEMORY_EXPANSION"; }
    // Runs `done` (kind, arg on target) on `rank`'s clock when the access completes.
    void access(int rank, uint64_t bytes, EventTarget* done, uint32_t kind, uint64_t arg);
    void on_event(uint32_t kind, uint64_t arg) override;

private:
    struct Request {
        int rank;
        uint64_t bytes;
        EventTarget* done;
        uint32_t kind;
        uint64_t arg;
    };
    Tick runtime(uint64_t bytes) const;
    void begin(size_t channel, const Request& r);
    size_t channel_of(int rank) const;

    RemoteMemoryConfig config_;
    std::vector<RankSystem*> systems_;
    std::vector<bool> busy_;
    std::vector<std::deque<Request>> pending_;
};

}  // namespace mimic::sim

#include "sim/remote_memory.h"

#include "sim/rank_system.h"

namespace mimic::sim {

Tick RemoteMemory::runtime(uint64_t bytes) const {
    return static_cast<Tick>(config_.latency_ns) + static_cast<Tick>(static_cast<double>(bytes) / config_.bytes_per_ns);
}

size_t RemoteMemory::channel_of(int rank) const {
    if (config_.type == "PER_NODE_MEMORY_EXPANSION") return static_cast<size_t>(rank / config_.npus_per_node);
    return 0;
}

void RemoteMemory::access(int rank, uint64_t bytes, EventTarget* done, uint32_t kind, uint64_t arg) {
    const Request r{rank, bytes, done, kind, arg};
    if (config_.type == "PER_NPU_MEMORY_EXPANSION") {
        systems_[static_cast<size_t>(rank)]->after(runtime(bytes), done, kind, arg);
        return;
    }
    const size_t ch = channel_of(rank);
    if (ch >= busy_.size()) {
        busy_.resize(ch + 1, false);
        pending_.resize(ch + 1);
    }
    if (busy_[ch]) pending_[ch].push_back(r);
    else begin(ch, r);
}

void RemoteMemory::begin(size_t channel, const Request& r) {
    busy_[channel] = true;
    const Tick t = runtime(r.bytes);
    RankSystem* sys = systems_[static_cast<size_t>(r.rank)];
    sys->after(t, r.done, r.kind, r.arg);
    sys->after(t, this, 0, channel);
}

void RemoteMemory::on_event(uint32_t, uint64_t arg) {
    const size_t ch = static_cast<size_t>(arg);
    if (pending_[ch].empty()) {
        busy_[ch] = false;
        return;
    }
    const Request r = pending_[ch].front();
    pending_[ch].pop_front();
    begin(ch, r);
}

}  // namespace mimic::sim

#include "sim/shared_cores.h"

#include <algorithm>
#include <cmath>

#include "support/error.h"

namespace mimic::sim {

SharedCores::SharedCores(const HostCores& hosts, int ranks, EventQueue& queue) : hosts_(hosts), queue_(queue) {
    if (!enabled()) return;
    if (!(hosts_.cores > 0)) fail({"--cores-per-host", -1, -1, ""}, "ranks that share a host need its number of cores (above 0)");
    if (!(hosts_.compute_threads > 0) || hosts_.comm_threads < 0)
        fail({"--threads", -1, -1, ""}, "ranks that share a host need a positive thread count per op");
    demand_.assign(static_cast<size_t>(ranks), 0);
    const int host_count = (ranks + hosts_.ranks_per_host - 1) / hosts_.ranks_per_host;
    host_demand_.assign(static_cast<size_t>(host_count), 0);
    running_.resize(static_cast<size_t>(host_count));
}

double SharedCores::rate_of(int host) const {
    const double want = host_demand_[static_cast<size_t>(host)];
    return want > hosts_.cores ? hosts_.cores / want : 1.0;
}

double SharedCores::message_slowdown(int rank) const {
    const double calibrated = std::min(1.0, hosts_.cores / (hosts_.ranks_per_host * hosts_.comm_threads));
    return std::max(1.0, calibrated / speed(rank));
}

void SharedCores::settle(int host) {
    const Tick now = queue_.now();
    for (uint32_t slot : running_[static_cast<size_t>(host)]) {
        Job& j = jobs_[slot];
        j.remaining_ns = std::max(0.0, j.remaining_ns - static_cast<double>(now - j.since) * j.rate);
        j.since = now;
    }
}

void SharedCores::reschedule(int host) {
    const double rate = rate_of(host);
    const Tick now = queue_.now();
    for (uint32_t slot : running_[static_cast<size_t>(host)]) {
        Job& j = jobs_[slot];
        if (j.rate == rate) continue;  // its finish stands
        j.rate = rate;
        ++j.generation;
        const Tick due = now + static_cast<Tick>(std::ceil(j.remaining_ns / rate));
        queue_.schedule(due, this, 0, (static_cast<uint64_t>(j.generation) << 32) | slot);
    }
}

void SharedCores::set_demand(int rank, int cpu_ops, bool communicating) {
    const double want = cpu_ops * hosts_.compute_threads + (communicating ? hosts_.comm_threads : 0);
    double& mine = demand_[static_cast<size_t>(rank)];
    if (want == mine) return;
    const int host = host_of(rank);
    settle(host);
    host_demand_[static_cast<size_t>(host)] += want - mine;
    mine = want;
    reschedule(host);
}

void SharedCores::start(int rank, Tick work_ns, EventTarget* target, uint32_t kind, uint64_t arg) {
    uint32_t slot;
    if (!free_.empty()) {
        slot = free_.back();
        free_.pop_back();
    } else {
        slot = static_cast<uint32_t>(jobs_.size());
        jobs_.emplace_back();
    }
    Job& j = jobs_[slot];
    j.host = host_of(rank);
    j.remaining_ns = static_cast<double>(work_ns);
    j.rate = rate_of(j.host);
    j.since = queue_.now();
    ++j.generation;
    j.active = true;
    j.target = target;
    j.kind = kind;
    j.arg = arg;
    running_[static_cast<size_t>(j.host)].push_back(slot);
    const Tick due = queue_.now() + static_cast<Tick>(std::ceil(j.remaining_ns / j.rate));
    queue_.schedule(due, this, 0, (static_cast<uint64_t>(j.generation) << 32) | slot);
}

void SharedCores::on_event(uint32_t, uint64_t arg) {
    const uint32_t slot = static_cast<uint32_t>(arg);
    Job& j = jobs_[slot];
    if (!j.active || j.generation != static_cast<uint32_t>(arg >> 32)) return;  // moved since
    j.active = false;
    auto& running = running_[static_cast<size_t>(j.host)];
    running.erase(std::find(running.begin(), running.end(), slot));
    free_.push_back(slot);
    // The op's end frees its thread: the workload lowers its demand, which
    // speeds up the ops left on the host.
    j.target->on_event(j.kind, j.arg);
}

}  // namespace mimic::sim

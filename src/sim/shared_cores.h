// Ranks that share one host's CPU cores. Two Gloo ranks on a 2-core machine
// each run their ops on one thread while Gloo's worker threads reduce the
// buckets the backward has finished: four runnable threads on two cores, and
// the backward's GEMMs took twice their solo time (docs/findings.md,
// 2026-11-27). Costs measured one process at a time cannot show that, so the
// engine shares the cores itself: while the threads that want a host's cores
// outnumber them, every CPU op on that host runs at cores / threads of its
// speed (processor sharing), its finish moved each time the count changes.
// Collectives keep the network's times; only the ops slow down.
// ASTRA-sim has no such notion: off unless asked for (HostCores::ranks_per_host).
#pragma once

#include <cstdint>
#include <vector>

#include "sim/event_queue.h"

namespace mimic::sim {

struct HostCores {
    int ranks_per_host = 0;      // ranks r*k .. r*k+k-1 share a host; 0 or 1: each rank has its own cores
    double cores = 0;            // cores per host
    double compute_threads = 1;  // threads one rank's CPU op keeps busy (its intra-op threads)
    double comm_threads = 1;     // threads one rank's collectives in flight keep busy (Gloo's worker)
    bool enabled() const { return ranks_per_host > 1; }
};

class SharedCores final : public EventTarget {
public:
    SharedCores(const HostCores& hosts, int ranks, EventQueue& queue);

    bool enabled() const { return hosts_.enabled(); }
    // What a rank wants now: CPU ops running, and whether a collective is in flight.
    void set_demand(int rank, int cpu_ops, bool communicating);
    // A CPU op of `work_ns` at full speed; target->on_event(kind, arg) when it is done.
    void start(int rank, Tick work_ns, EventTarget* target, uint32_t kind, uint64_t arg);
    // The share of a core each thread of the rank's host gets now (1: no shortage).
    double speed(int rank) const { return rate_of(host_of(rank)); }
    // How much slower than the network's times a message from this rank
    // moves now. Those times are taken as measured by calibrate --collectives:
    // every rank of the host in a collective and nothing else running, which
    // on 4 ranks of 2 cores already has each Gloo thread at half a core.
    double message_slowdown(int rank) const;

    void on_event(uint32_t kind, uint64_t arg) override;

private:
    struct Job {
        int host = 0;
        double remaining_ns = 0;  // at full speed
        double rate = 1;
        Tick since = 0;           // when remaining_ns was last brought up to date
        uint32_t generation = 0;  // events of earlier generations are stale
        bool active = false;
        EventTarget* target = nullptr;
        uint32_t kind = 0;
        uint64_t arg = 0;
    };
    int host_of(int rank) const { return rank / hosts_.ranks_per_host; }
    double rate_of(int host) const;
    void settle(int host);      // work done since each job's last update, at its old rate
    void reschedule(int host);  // each job's finish at the host's rate now

    HostCores hosts_;
    EventQueue& queue_;
    std::vector<double> demand_;              // per rank: threads wanting a core
    std::vector<double> host_demand_;         // per host: the sum
    std::vector<std::vector<uint32_t>> running_;  // per host: job slots
    std::vector<Job> jobs_;
    std::vector<uint32_t> free_;
};

}  // namespace mimic::sim

// One rank's workload layer, as ASTRA-sim walks a Chakra graph: a node is
// ready when every parent has finished; ready nodes are issued in id order,
// each only while its resource is free (one CPU op, one GPU compute node and
// one collective or send in flight; receives are not limited).
#pragma once

#include <cstdint>
#include <set>
#include <string>
#include <vector>

#include "sim/event_queue.h"
#include "sim/rank_system.h"
#include "sim/workload_graph.h"

namespace mimic::sim {

class RemoteMemory;
class SharedCores;

// What one rank did, in ns.
struct RankResult {
    int rank = 0;
    bool finished = false;
    Tick finish_ns = 0;
    Tick exposed_comm_ns = 0;  // finish less the GPU compute time, as ASTRA-sim counts it (CPU ops count as exposed)
    Tick gpu_compute_ns = 0;   // union of GPU COMP intervals
    Tick cpu_compute_ns = 0;   // union of CPU COMP intervals
    Tick comm_ns = 0;          // union of communication intervals
    Tick remote_mem_ns = 0;
    Tick overlap_ns = 0;       // GPU compute and communication at once
    Tick wall_ns = 0;          // last node end
    Tick gpu_busy_sum_ns = 0;  // sum of GPU compute durations
    size_t nodes = 0;
    size_t nodes_done = 0;
};

enum class NodeClass : uint8_t { Gpu, Cpu, Comm, RemoteMem, Invalid };
constexpr int kNodeClasses = static_cast<int>(NodeClass::Invalid) + 1;

class RankWorkload final : public EventTarget, public CollectiveListener {
public:
    // `rank` runs `graph` (which other ranks may share); `file` names it in messages.
    RankWorkload(const RankGraph& graph, int rank, std::string file, RankSystem& system, RemoteMemory& memory);

    void start();
    // CPU ops run on cores this rank shares with others (see shared_cores.h).
    void share_cores(SharedCores* cores) { cores_ = cores; }
    bool finished() const { return finished_; }
    RankResult result() const;
    // Nodes issued and not done, for deadlock reports.
    std::vector<uint32_t> in_flight() const;
    size_t waiting_nodes() const { return waiting_count_; }
    const RankGraph& graph() const { return graph_; }
    int rank() const { return rank_; }
    const std::string& file() const { return file_; }
    // Start and end of every node (end 0 when not done), for timelines.
    Tick start_of(uint32_t node) const { return start_[node]; }
    Tick end_of(uint32_t node) const { return end_[node]; }
    bool issued(uint32_t node) const { return issued_[node]; }
    bool done(uint32_t node) const { return done_[node]; }
    NodeClass class_of(uint32_t node) const;

    void on_event(uint32_t kind, uint64_t arg) override;
    void collective_done(uint32_t node, Tick started) override;

    enum Event : uint32_t { kNodeDone = 0 };

private:
    void issue_ready();
    bool available(const WorkloadNode& node) const;
    void occupy(const WorkloadNode& node, int delta);
    void issue(uint32_t node);
    void issue_comm(uint32_t node);
    void finish(uint32_t node);  // release, end time, children
    void check_finished();
    void after(Tick delay, uint32_t node) { system_.after(delay, this, kNodeDone, node); }
    std::vector<uint8_t> involved_of(const WorkloadNode& node) const;

    const RankGraph& graph_;
    int rank_;
    std::string file_;
    RankSystem& system_;
    RemoteMemory& memory_;
    SharedCores* cores_ = nullptr;
    // Ready nodes (positions, which are in id order) by the resource they
    // take: CPU, GPU compute, GPU communication, none (receives). Only the
    // first of a busy resource's set could go next, so issuing looks at one
    // node per set instead of every ready node.
    enum Resource : uint8_t { kCpu, kGpuCompute, kGpuComm, kFree, kResources };
    Resource resource_of(const WorkloadNode& node) const;
    void make_ready(uint32_t node) { ready_[resource_of(graph_.nodes[node])].insert(node); }
    bool any_ready() const;
    std::set<uint32_t> ready_[kResources];
    std::vector<uint32_t> waiting_;
    std::vector<Tick> start_, end_;
    std::vector<uint8_t> issued_, done_;
    size_t waiting_count_ = 0;
    size_t ongoing_ = 0;
    size_t done_count_ = 0;
    int cpu_ops_ = 0, gpu_comp_ops_ = 0, gpu_comm_ops_ = 0;
    Tick gpu_busy_ = 0, cpu_busy_ = 0;
    bool finished_ = false;
    Tick finish_time_ = 0;
    bool issuing_ = false;
};

}  // namespace mimic::sim

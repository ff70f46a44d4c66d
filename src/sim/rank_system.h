// One NPU's system layer, as ASTRA-sim's runs it: a collective is cut into
// chunks (streams), each a list of phases (one per network dimension it
// spans); a phase waits in its dimension's queue, and at most
// ceil(active-chunks-per-dimension / queues-per-dimension) phases run per
// queue, newer collectives first under LIFO, older first under FIFO.
#pragma once

#include <cstdint>
#include <deque>
#include <list>
#include <map>
#include <memory>
#include <unordered_map>
#include <vector>

#include "sim/custom_collective.h"
#include "sim/event_queue.h"
#include "sim/network.h"
#include "sim/network_config.h"
#include "sim/phase_algorithm.h"
#include "sim/system_config.h"

namespace mimic::sim {

class RankSystem;

// What the workload layer hears back.
class CollectiveListener {
public:
    virtual ~CollectiveListener() = default;
    virtual void collective_done(uint32_t node, Tick started) = 0;
};

// Settings every rank shares.
struct SharedSetup {
    NetworkConfig network;
    SystemConfig system;
    RunOptions options;
    Tick endpoint_delay = 10;
    int total_npus = 1;
    // Implementations per collective, one per network dimension it spans.
    std::vector<CollectiveImpl> impls[kCollectiveKinds];
    std::map<int, std::vector<int>> comm_groups;
    // The graphs of custom implementations, read when first run.
    std::shared_ptr<CustomGraphs> custom_graphs = std::make_shared<CustomGraphs>();
};

class Stream final : public EventTarget, public PhaseHost {
public:
    struct Phase {
        int queue = -1;
        std::unique_ptr<PhaseAlgorithm> algorithm;
    };
    Stream(RankSystem& owner, uint32_t dataset, int64_t id, int64_t priority) : owner_(owner), dataset_(dataset), id_(id), priority_(priority) {}

    void on_event(uint32_t kind, uint64_t arg) override;
    int npu() const override;
    void send_to(int dst, uint64_t bytes) override;
    void receive_from(int src, uint64_t bytes) override;
    void through_bus(uint64_t bytes, bool reduce, bool local_ring) override;
    void send_message(int dst, uint64_t tag, uint64_t bytes, uint32_t token) override;
    void receive_message(int src, uint64_t tag, uint64_t bytes, uint32_t token) override;
    void wait(uint64_t ns, uint32_t token) override;

    enum Event : uint32_t { kBusDone = 0, kReduced = 1, kReceived = 2, kStepDone = 3 };

private:
    friend class RankSystem;
    void deliver(PhaseEvent event);

    RankSystem& owner_;
    uint32_t dataset_;
    int64_t id_;
    int64_t priority_;
    std::deque<Phase> to_go_;
    Phase current_;
    int queue_ = -1;  // current phase's queue, -1 before the first
    bool initialized_ = false;
};

class RankSystem final : public EventTarget {
public:
    RankSystem(int npu, const SharedSetup& setup, EventQueue& queue, Network& network, CollectiveListener& listener);
    ~RankSystem() override;

    int npu() const { return npu_; }
    // Starts a collective of `bytes` for workload node `node` (position);
    // `involved` lists the dimensions it may span (empty: all), `group` is
    // the communicator group (0: all NPUs). Collectives whose every chunk has
    // no phase (every dimension of size 1 or left out) complete at once.
    // `workload_id` is the node's Chakra id, which per-node custom
    // implementations are keyed by.
    void start_collective(CollectiveKind kind, uint64_t bytes, const std::vector<uint8_t>& involved, int group,
                          int64_t explicit_priority, uint32_t node, uint64_t workload_id);

    // A point-to-point message from the workload (COMM_SEND / COMM_RECV), or
    // one of a collective's; with the rendezvous protocol, an 8 KiB handshake
    // from the receiver goes first.
    enum class Traffic : uint8_t { Native, Collective };
    void send(int dst, uint64_t tag, Traffic traffic, uint64_t bytes, Handler done);
    void recv(int src, uint64_t tag, Traffic traffic, uint64_t bytes, Handler done);

    // A system-layer event `delay` ns from now (batched per time, as ASTRA-sim).
    void after(Tick delay, EventTarget* target, uint32_t kind, uint64_t arg) {
        queue_.schedule_for_rank(npu_, queue_.now() + delay, target, kind, arg);
    }
    Tick now() const { return queue_.now(); }
    const SharedSetup& setup() const { return setup_; }
    size_t running_collectives() const { return datasets_.size(); }
    void on_event(uint32_t kind, uint64_t arg) override;

private:
    friend class Stream;
    struct Dataset {
        uint32_t node;
        int total = 0;
        int finished = 0;
        Tick created = 0;
    };
    struct QueueLevel {
        std::vector<int> queues;
        size_t next = 0, next_first = 0, next_last = 0;
    };
    struct Plan {
        std::vector<CollectiveImpl> impls;  // per logical dimension
        std::vector<int> dim_sizes;          // NPUs per logical dimension
        bool group_ring = false;             // a sub-group's ring over its members
        bool all_involved = false;           // dimensions_involved ignored (a group of every NPU)
    };
    struct Group {
        std::shared_ptr<const std::vector<int>> members;
        std::shared_ptr<const std::unordered_map<int, int>> index;
        int64_t next_stream = 0;
    };
    struct Rendezvous {
        int peer;
        uint64_t tag, bytes;
        Handler done;
    };
    enum Event : uint32_t { kRendezvousSend = 0, kRendezvousRecv = 1, kEmptyCollective = 2 };

    // A message waiting for its rendezvous handshake; returns its slot.
    uint32_t park(const Rendezvous& r);
    Plan plan_for(CollectiveKind kind, int group) const;
    // The custom implementation's path prefix this collective runs, "" for
    // the native one; a communicator group keeps what its first collective
    // of a kind chose, as ASTRA-sim caches a group's plan per kind.
    std::string custom_prefix(CollectiveKind kind, int group, uint64_t workload_id);
    // A new collective's priority: newer first (LIFO), older first (FIFO), or its own (EXPLICIT).
    int64_t next_priority(int64_t explicit_priority);
    void start_custom(const std::string& prefix, int group, int64_t priority, uint32_t dataset);
    std::unique_ptr<PhaseAlgorithm> make_phase(CollectiveKind phase_kind, CollectiveKind collective, const Plan& plan,
                                               int dim, int group, uint64_t bytes, Direction direction);
    std::pair<int, Direction> next_queue(int dim);
    std::pair<int, Direction> next_queue_first(int dim);
    std::pair<int, Direction> next_queue_last(int dim);
    void schedule_ready(Stream* stream);
    void proceed(Stream* stream);
    void insert_by_priority(std::list<Stream*>& list, Stream* stream);
    void start_waiting(int queue);
    void stream_finished(uint32_t dataset);
    void phase_over(Stream* stream) { proceed(stream); }

    int npu_;
    const SharedSetup& setup_;
    EventQueue& queue_;
    Network& network_;
    CollectiveListener& listener_;
    std::vector<QueueLevel> levels_;
    std::vector<std::list<Stream*>> active_;  // per queue
    std::vector<int> running_;                // per queue
    int queue_threshold_ = 1;
    int64_t priority_counter_ = 0;
    int64_t next_stream_ = 0;
    std::map<int, Group> groups_;
    std::unordered_map<uint32_t, Dataset> datasets_;
    uint32_t next_dataset_ = 0;
    // Each dimension's double binary tree alternates its two trees per chunk.
    static constexpr int kMaxTreeDims = 16;
    int dbt_counter_[kCollectiveKinds][kMaxTreeDims] = {};
    std::map<std::pair<int, int>, std::string> group_custom_;  // (group, kind) -> prefix chosen
    std::vector<Rendezvous> rendezvous_;
    std::vector<uint32_t> free_rendezvous_;
};

}  // namespace mimic::sim

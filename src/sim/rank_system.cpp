#include "sim/rank_system.h"

#include <algorithm>
#include <string>

#include "support/error.h"

namespace mimic::sim {
namespace {

// Tag ranges of ASTRA-sim's system layer: workload messages, collective
// messages, and the rendezvous handshakes of either.
constexpr uint64_t kCollectiveTags = 500000000;
constexpr uint64_t kRendezvousTags = 1000000000;
constexpr uint64_t kHandshakeBytes = 8192;
constexpr Tick kLocalRingBusNs = 10;

uint64_t wire_tag(uint64_t tag, RankSystem::Traffic traffic) {
    return traffic == RankSystem::Traffic::Native ? tag % kCollectiveTags : tag % kCollectiveTags + kCollectiveTags;
}

}  // namespace

// ---------------------------------------------------------------- Stream

int Stream::npu() const { return owner_.npu(); }

void Stream::send_to(int dst, uint64_t bytes) {
    owner_.send(dst, static_cast<uint64_t>(id_), RankSystem::Traffic::Collective, bytes, Handler{});
}

void Stream::receive_from(int src, uint64_t bytes) {
    owner_.recv(src, static_cast<uint64_t>(id_), RankSystem::Traffic::Collective, bytes, Handler{this, kReceived, 0});
}

void Stream::through_bus(uint64_t bytes, bool reduce, bool local_ring) {
    owner_.after(local_ring ? kLocalRingBusNs : owner_.setup().endpoint_delay, this, kBusDone, (bytes << 1) | (reduce ? 1 : 0));
}

void Stream::send_message(int dst, uint64_t tag, uint64_t bytes, uint32_t token) {
    owner_.send(dst, tag, RankSystem::Traffic::Native, bytes, Handler{this, kStepDone, token});
}

void Stream::receive_message(int src, uint64_t tag, uint64_t bytes, uint32_t token) {
    owner_.recv(src, tag, RankSystem::Traffic::Native, bytes, Handler{this, kStepDone, token});
}

void Stream::wait(uint64_t ns, uint32_t token) { owner_.after(ns, this, kStepDone, token); }

void Stream::on_event(uint32_t kind, uint64_t arg) {
    switch (kind) {
        case kStepDone:
            if (current_.algorithm && current_.algorithm->done(static_cast<uint32_t>(arg))) owner_.phase_over(this);
            return;
        case kBusDone:
            if (arg & 1) {
                // Write the incoming data, read it and the local data: three
                // passes at the local memory bandwidth, each truncated to ns.
                const double bw = owner_.setup().system.local_mem_bw_GBps * 1e9;
                const uint64_t bytes = arg >> 1;
                const Tick pass = bw > 0 ? static_cast<Tick>(static_cast<double>(bytes) / bw * 1e9) : 0;
                owner_.after(3 * pass, this, kReduced, 0);
                return;
            }
            deliver(PhaseEvent::BusDone);
            return;
        case kReduced: deliver(PhaseEvent::BusDone); return;
        case kReceived: deliver(PhaseEvent::Received); return;
        default: return;
    }
}

void Stream::deliver(PhaseEvent event) {
    if (!current_.algorithm) return;
    if (current_.algorithm->run(event)) owner_.phase_over(this);  // may delete this stream: nothing after
}

// ---------------------------------------------------------------- RankSystem

RankSystem::RankSystem(int npu, const SharedSetup& setup, EventQueue& queue, Network& network, CollectiveListener& listener)
    : npu_(npu), setup_(setup), queue_(queue), network_(network), listener_(listener) {
    int next_queue = 0;
    for (size_t d = 0; d < setup_.network.dims.size(); ++d) {
        QueueLevel level;
        for (int q = 0; q < setup_.options.num_queues_per_dim; ++q) level.queues.push_back(next_queue++);
        level.next_last = level.queues.size() / 2;
        levels_.push_back(level);
    }
    active_.resize(static_cast<size_t>(next_queue));
    running_.assign(static_cast<size_t>(next_queue), 0);
    const int chunks = setup_.system.active_chunks_per_dimension;
    const int queues = setup_.options.num_queues_per_dim;
    queue_threshold_ = (chunks + queues - 1) / queues;
    for (const auto& [id, members] : setup_.comm_groups) {
        Group g;
        g.members = std::make_shared<const std::vector<int>>(members);
        auto index = std::make_shared<std::unordered_map<int, int>>();
        for (size_t i = 0; i < members.size(); ++i) (*index)[members[i]] = static_cast<int>(i);
        g.index = index;
        g.next_stream = static_cast<int64_t>(id) * 1000000;
        groups_[id] = std::move(g);
    }
}

RankSystem::~RankSystem() {
    // Streams still queued when a simulation stops early (an error, a deadlock).
    std::vector<Stream*> left;
    for (auto& list : active_)
        for (Stream* s : list) left.push_back(s);
    std::sort(left.begin(), left.end());
    left.erase(std::unique(left.begin(), left.end()), left.end());
    for (Stream* s : left) delete s;
}

std::pair<int, Direction> RankSystem::next_queue(int dim) {
    QueueLevel& l = levels_[static_cast<size_t>(dim)];
    const bool second_half = l.queues.size() > 1 && l.next >= l.queues.size() / 2;
    const int q = l.queues[l.next++];
    if (l.next >= l.queues.size()) l.next = 0;
    return {q, second_half ? Direction::Anticlockwise : Direction::Clockwise};
}

std::pair<int, Direction> RankSystem::next_queue_first(int dim) {
    QueueLevel& l = levels_[static_cast<size_t>(dim)];
    const int q = l.queues[l.next_first++];
    if (l.next_first >= l.queues.size() / 2) l.next_first = 0;
    return {q, Direction::Clockwise};
}

std::pair<int, Direction> RankSystem::next_queue_last(int dim) {
    QueueLevel& l = levels_[static_cast<size_t>(dim)];
    const int q = l.queues[l.next_last++];
    if (l.next_last >= l.queues.size()) l.next_last = l.queues.size() / 2;
    return {q, Direction::Anticlockwise};
}

RankSystem::Plan RankSystem::plan_for(CollectiveKind kind, int group) const {
    Plan plan;
    if (group != 0) {
        auto it = groups_.find(group);
        if (it == groups_.end()) throw Error("communicator group " + std::to_string(group) + " is not defined (--comm-groups)");
        const auto& members = *it->second.members;
        if (static_cast<int>(members.size()) != setup_.total_npus) {
            // A sub-group runs as one ring over its members, with the single
            // implementation given, or a ring where several are given.
            const auto& impls = setup_.impls[static_cast<int>(kind)];
            CollectiveImpl impl = impls.size() == 1 ? impls[0] : CollectiveImpl{};
            if (impl.kind == AlgorithmKind::DoubleBinaryTree)
                throw Error("doubleBinaryTree cannot run in communicator group " + std::to_string(group) + " (a sub-group of the NPUs)");
            plan.impls = {impl};
            plan.dim_sizes = {static_cast<int>(members.size())};
            plan.group_ring = true;
            return plan;
        }
        plan.all_involved = true;
    }
    for (const CollectiveImpl& impl : setup_.impls[static_cast<int>(kind)]) {
        plan.impls.push_back(impl);
        if (impl.flat()) {
            plan.dim_sizes.push_back(setup_.total_npus);
            break;
        }
        plan.dim_sizes.push_back(setup_.network.dims[plan.dim_sizes.size()].npus);
    }
    return plan;
}

std::unique_ptr<PhaseAlgorithm> RankSystem::make_phase(CollectiveKind phase_kind, CollectiveKind collective, const Plan& plan,
                                                       int dim, int group, uint64_t bytes, Direction direction) {
    const CollectiveImpl& impl = plan.impls[static_cast<size_t>(dim)];
    if (plan.group_ring) {
        const Group& g = groups_.at(group);
        if (!g.index->count(npu_))
            throw Error("NPU " + std::to_string(npu_) + " runs a collective of communicator group " + std::to_string(group) +
                        ", which does not list it");
        return make_ring_phase(impl, phase_kind, npu_, RingView::of_members(npu_, g.members, g.index), bytes, direction);
    }
    if (impl.flat()) return make_ring_phase(impl, phase_kind, npu_, RingView::strided(npu_, setup_.total_npus, 1), bytes, direction);
    int offset = 1;
    for (int d = 0; d < dim; ++d) offset *= plan.dim_sizes[static_cast<size_t>(d)];
    const int size = plan.dim_sizes[static_cast<size_t>(dim)];
    if (impl.kind == AlgorithmKind::DoubleBinaryTree) {
        if (phase_kind != CollectiveKind::AllReduce) {
            // ASTRA-sim runs a tree all-reduce for every collective here (a
            // 1 MiB all-gather costs a 1 MiB all-reduce); mimic runs the
            // collective asked for, as a ring, and says so once.
            return make_ring_phase(CollectiveImpl{}, phase_kind, npu_, RingView::strided(npu_, size, offset), bytes, direction);
        }
        const bool last_dim = static_cast<size_t>(dim) + 1 == plan.impls.size();
        const int start = last_dim ? npu_ % offset : npu_ - npu_ % (offset * size) + npu_ % offset;
        int& counter = dbt_counter_[static_cast<int>(collective)][std::min(dim, kMaxTreeDims - 1)];
        const bool root_max = counter % 2 == 0;
        ++counter;
        return make_tree_phase(tree_role(npu_, size, start, offset, root_max), bytes);
    }
    return make_ring_phase(impl, phase_kind, npu_, RingView::strided(npu_, size, offset), bytes, direction);
}

int64_t RankSystem::next_priority(int64_t explicit_priority) {
    switch (setup_.system.scheduling) {
        case SchedulingPolicy::Lifo: return priority_counter_++;
        case SchedulingPolicy::Fifo: return priority_counter_--;
        case SchedulingPolicy::Explicit: return explicit_priority;
    }
    return 0;
}

std::string RankSystem::custom_prefix(CollectiveKind kind, int group, uint64_t workload_id) {
    const SystemConfig& system = setup_.system;
    if (!system.any_custom()) return {};
    const auto choose = [&]() -> std::string {
        if (auto it = system.per_node_custom.find(static_cast<int64_t>(workload_id)); it != system.per_node_custom.end())
            return it->second;
        return system.custom_implementations[static_cast<int>(kind)];
    };
    if (group == 0) return choose();
    const auto key = std::make_pair(group, static_cast<int>(kind));
    auto it = group_custom_.find(key);
    if (it == group_custom_.end()) it = group_custom_.emplace(key, choose()).first;
    return it->second;
}

void RankSystem::start_custom(const std::string& prefix, int group, int64_t priority, uint32_t dataset) {
    // One chunk whose one phase walks this NPU's graph, queued on the first
    // queue of the first dimension, as ASTRA-sim queues it.
    std::shared_ptr<const std::vector<int>> members;  // null: the graph's ranks are NPUs
    int position = npu_;
    int64_t stream_id = 0;
    if (group == 0) {
        stream_id = next_stream_++;
    } else {
        auto it = groups_.find(group);
        if (it == groups_.end()) throw Error("communicator group " + std::to_string(group) + " is not defined (--comm-groups)");
        Group& g = it->second;
        auto at = g.index->find(npu_);
        if (at == g.index->end())
            throw Error("NPU " + std::to_string(npu_) + " runs a collective of communicator group " + std::to_string(group) +
                        ", which does not list it");
        position = at->second;
        members = g.members;
        stream_id = g.next_stream++;
    }
    Stream::Phase phase;
    phase.queue = levels_.empty() ? 0 : levels_[0].queues[0];
    phase.algorithm = make_custom_phase(setup_.custom_graphs->get(prefix, position), members, setup_.total_npus,
                                        setup_.options.comm_scale);
    auto* stream = new Stream(*this, dataset, stream_id, priority);
    stream->to_go_.push_back(std::move(phase));
    stream->to_go_.back().algorithm->attach(stream);
    datasets_[dataset].total = 1;
    proceed(stream);
}

void RankSystem::start_collective(CollectiveKind kind, uint64_t bytes, const std::vector<uint8_t>& involved, int group,
                                  int64_t explicit_priority, uint32_t node, uint64_t workload_id) {
    if (const std::string prefix = custom_prefix(kind, group, workload_id); !prefix.empty()) {
        const int64_t priority = next_priority(explicit_priority);
        const uint32_t id = next_dataset_++;
        datasets_[id] = Dataset{node, 0, 0, queue_.now()};
        start_custom(prefix, group, priority, id);
        return;
    }
    const Plan plan = plan_for(kind, group);
    const int dims = static_cast<int>(plan.impls.size());
    auto active = [&](int d) {
        if (plan.dim_sizes[static_cast<size_t>(d)] == 1) return false;
        if (plan.all_involved || static_cast<size_t>(d) >= involved.size()) return true;
        return involved[static_cast<size_t>(d)] != 0;
    };
    // Chunks: preferred-dataset-splits of them; every collective but
    // all-gather is grown to at least one byte per NPU per chunk. A last,
    // partial chunk still carries a whole chunk's bytes, as in ASTRA-sim.
    const uint64_t splits = static_cast<uint64_t>(setup_.system.preferred_dataset_splits);
    uint64_t size = bytes;
    uint64_t chunk = size / splits;
    if (kind != CollectiveKind::AllGather && static_cast<uint64_t>(setup_.total_npus) > chunk) {
        chunk = static_cast<uint64_t>(setup_.total_npus);
        size = splits * chunk;
    }
    if (chunk == 0) chunk = size;  // an all-gather smaller than its splits: one chunk (ASTRA-sim loops forever)

    const int64_t priority = next_priority(explicit_priority);
    const uint32_t id = next_dataset_++;
    datasets_[id] = Dataset{node, 0, 0, queue_.now()};

    std::vector<int> order(static_cast<size_t>(dims));
    for (int d = 0; d < dims; ++d) order[static_cast<size_t>(d)] = d;
    if (kind == CollectiveKind::AllGather) std::reverse(order.begin(), order.end());

    int count = 0;
    while (size > 0) {
        size -= std::min(chunk, size);
        uint64_t remain = chunk;
        std::deque<Stream::Phase> phases;
        auto add = [&](CollectiveKind phase_kind, int d, std::pair<int, Direction> queue) {
            Stream::Phase phase;
            phase.queue = queue.first;
            phase.algorithm = make_phase(phase_kind, kind, plan, d, group, remain, queue.second);
            remain = phase.algorithm->final_data_size;
            phases.push_back(std::move(phase));
        };
        const int level_of = 0;  // a sub-group's ring queues on dimension 0
        auto level = [&](int d) { return plan.group_ring ? level_of : d; };
        if (kind != CollectiveKind::AllReduce || !setup_.system.local_bw_aware) {
            for (int i = 0; i < dims; ++i) {
                const int d = order[static_cast<size_t>(i)];
                if (active(d)) add(kind, d, next_queue(level(d)));
            }
        } else {
            // localBWAware all-reduce: reduce-scatter up to the last active
            // dimension, all-reduce there, all-gather back down.
            int last_active = 0;
            for (int d = 0; d < dims; ++d)
                if (active(d)) last_active = d;
            int d = 0;
            for (; d < last_active; ++d)
                if (active(d)) add(CollectiveKind::ReduceScatter, d, next_queue_first(level(d)));
            while (d > 0 && !active(d)) --d;
            if (active(d)) add(CollectiveKind::AllReduce, d, next_queue_first(level(d)));
            for (--d; d >= 0; --d)
                if (active(d)) add(CollectiveKind::AllGather, d, next_queue_last(level(d)));
        }
        if (phases.empty()) break;
        ++count;
        int64_t stream_id = next_stream_++;
        if (group != 0) stream_id = groups_.at(group).next_stream++;
        auto* stream = new Stream(*this, id, stream_id, priority);
        stream->to_go_ = std::move(phases);
        for (auto& p : stream->to_go_) p.algorithm->attach(stream);
        datasets_[id].total = count;  // set before the stream can finish
        proceed(stream);
    }
    if (count == 0) {
        // Nothing to do on any dimension: done now (ASTRA-sim never finishes such a collective).
        datasets_.erase(id);
        after(0, this, kEmptyCollective, node);
        return;
    }
    datasets_[id].total = count;
}

void RankSystem::insert_by_priority(std::list<Stream*>& list, Stream* stream) {
    auto it = list.begin();
    while (it != list.end() && ((*it)->initialized_ || (*it)->priority_ >= stream->priority_)) ++it;
    list.insert(it, stream);
}

void RankSystem::start_waiting(int queue) {
    auto& list = active_[static_cast<size_t>(queue)];
    int& running = running_[static_cast<size_t>(queue)];
    auto it = list.begin();
    for (int i = 0; i < running && it != list.end(); ++i) ++it;
    while (it != list.end() && running < queue_threshold_) {
        Stream* s = *it;
        s->initialized_ = true;
        ++running;
        ++it;
        s->current_.algorithm->run(PhaseEvent::Start);
    }
}

void RankSystem::proceed(Stream* stream) {
    const int previous = stream->queue_;
    stream->current_.algorithm.reset();
    if (stream->to_go_.empty()) stream_finished(stream->dataset_);
    if (previous >= 0) {
        auto& list = active_[static_cast<size_t>(previous)];
        auto it = std::find(list.begin(), list.end(), stream);
        if (it != list.end()) list.erase(it);
    }
    if (stream->to_go_.empty()) {
        if (previous >= 0) {
            --running_[static_cast<size_t>(previous)];
            start_waiting(previous);
        }
        delete stream;
        return;
    }
    stream->current_ = std::move(stream->to_go_.front());
    stream->to_go_.pop_front();
    stream->queue_ = stream->current_.queue;
    stream->initialized_ = false;
    insert_by_priority(active_[static_cast<size_t>(stream->queue_)], stream);
    if (previous >= 0) {
        --running_[static_cast<size_t>(previous)];
        start_waiting(previous);
    }
    start_waiting(stream->queue_);
}

void RankSystem::stream_finished(uint32_t dataset) {
    auto it = datasets_.find(dataset);
    if (it == datasets_.end()) return;
    if (++it->second.finished < it->second.total) return;
    const uint32_t node = it->second.node;
    const Tick created = it->second.created;
    datasets_.erase(it);
    listener_.collective_done(node, created);
}

void RankSystem::send(int dst, uint64_t tag, Traffic traffic, uint64_t bytes, Handler done) {
    const uint64_t t = wire_tag(tag, traffic);
    if (!setup_.options.rendezvous) {
        network_.send(npu_, dst, t, bytes, done);
        return;
    }
    // The sender waits for the receiver's handshake before sending.
    const uint32_t slot = park({dst, t, bytes, done});
    network_.recv(dst, npu_, t + kRendezvousTags, kHandshakeBytes, Handler{this, kRendezvousSend, slot});
}

uint32_t RankSystem::park(const Rendezvous& r) {
    if (free_rendezvous_.empty()) {
        rendezvous_.push_back(r);
        return static_cast<uint32_t>(rendezvous_.size() - 1);
    }
    const uint32_t slot = free_rendezvous_.back();
    free_rendezvous_.pop_back();
    rendezvous_[slot] = r;
    return slot;
}

void RankSystem::recv(int src, uint64_t tag, Traffic traffic, uint64_t bytes, Handler done) {
    const uint64_t t = wire_tag(tag, traffic);
    if (!setup_.options.rendezvous) {
        network_.recv(src, npu_, t, bytes, done);
        return;
    }
    const uint32_t slot = park({src, t, bytes, done});
    network_.send(npu_, src, t + kRendezvousTags, kHandshakeBytes, Handler{this, kRendezvousRecv, slot});
}

void RankSystem::on_event(uint32_t kind, uint64_t arg) {
    if (kind == kEmptyCollective) {
        listener_.collective_done(static_cast<uint32_t>(arg), queue_.now());
        return;
    }
    const uint32_t slot = static_cast<uint32_t>(arg);
    const Rendezvous r = rendezvous_[slot];
    free_rendezvous_.push_back(slot);
    if (kind == kRendezvousSend) network_.send(npu_, r.peer, r.tag, r.bytes, r.done);
    else network_.recv(r.peer, npu_, r.tag, r.bytes, r.done);
}

}  // namespace mimic::sim

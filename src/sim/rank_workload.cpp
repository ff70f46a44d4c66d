#include "sim/rank_workload.h"

#include <algorithm>
#include <cmath>
#include <string>

#include "sim/remote_memory.h"
#include "sim/shared_cores.h"
#include "support/error.h"

namespace mimic::sim {
namespace {

constexpr uint32_t kBroadcastDone = 1;

// Total length of the union of [start, end) intervals.
Tick union_length(std::vector<std::pair<Tick, Tick>>& spans) {
    if (spans.empty()) return 0;
    std::sort(spans.begin(), spans.end());
    Tick total = 0;
    Tick lo = spans[0].first, hi = spans[0].second;
    for (const auto& [s, e] : spans) {
        if (s <= hi) {
            hi = std::max(hi, e);
        } else {
            total += hi - lo;
            lo = s;
            hi = e;
        }
    }
    return total + (hi - lo);
}

}  // namespace

RankWorkload::RankWorkload(const RankGraph& graph, int rank, std::string file, RankSystem& system, RemoteMemory& memory)
    : graph_(graph), rank_(rank), file_(std::move(file)), system_(system), memory_(memory) {
    const size_t n = graph_.nodes.size();
    waiting_.resize(n);
    start_.assign(n, 0);
    end_.assign(n, 0);
    issued_.assign(n, 0);
    done_.assign(n, 0);
    for (size_t i = 0; i < n; ++i) {
        waiting_[i] = graph_.nodes[i].parents;
        if (waiting_[i] == 0) make_ready(static_cast<uint32_t>(i));
        else ++waiting_count_;
    }
}

NodeClass RankWorkload::class_of(uint32_t i) const {
    const WorkloadNode& node = graph_.nodes[i];
    switch (node.type) {
        case ChakraNodeType::MemLoad:
        case ChakraNodeType::MemStore: return NodeClass::RemoteMem;
        case ChakraNodeType::Comp: return node.is_cpu_op ? NodeClass::Cpu : NodeClass::Gpu;
        case ChakraNodeType::CommColl:
        case ChakraNodeType::CommSend:
        case ChakraNodeType::CommRecv: return NodeClass::Comm;
        default: return NodeClass::Invalid;
    }
}

void RankWorkload::start() {
    issue_ready();
    check_finished();
}

RankWorkload::Resource RankWorkload::resource_of(const WorkloadNode& node) const {
    if (node.is_cpu_op) return kCpu;
    if (node.type == ChakraNodeType::Comp) return kGpuCompute;
    return node.type == ChakraNodeType::CommRecv ? kFree : kGpuComm;
}

bool RankWorkload::any_ready() const {
    for (const auto& set : ready_)
        if (!set.empty()) return true;
    return false;
}

bool RankWorkload::available(const WorkloadNode& node) const {
    if (node.is_cpu_op) return cpu_ops_ == 0;
    if (node.type == ChakraNodeType::Comp) return gpu_comp_ops_ == 0;
    return gpu_comm_ops_ < system_.setup().options.collectives_in_flight || node.type == ChakraNodeType::CommRecv;
}

void RankWorkload::occupy(const WorkloadNode& node, int delta) {
    if (node.is_cpu_op) cpu_ops_ += delta;
    else if (node.type == ChakraNodeType::Comp) gpu_comp_ops_ += delta;
    else if (node.type != ChakraNodeType::CommRecv) gpu_comm_ops_ += delta;
    if (cores_) cores_->set_demand(rank_, cpu_ops_, gpu_comm_ops_ > 0);
}

void RankWorkload::issue_ready() {
    // Issue in id order whatever may start now. A node that completes at once
    // (an invalid or metadata node) readies its children now too, where
    // ASTRA-sim would leave them for the next completion (and hang if none).
    if (issuing_) return;
    issuing_ = true;
    size_t before;
    do {
        before = done_count_;
        // ASTRA-sim walks every ready node in id order and issues those whose
        // resource is free: the same as taking, past the last node issued,
        // the lowest first node among the sets whose resource is free.
        int64_t cursor = -1;
        for (;;) {
            int64_t next = -1;
            for (const auto& set : ready_) {
                auto it = set.upper_bound(static_cast<uint32_t>(cursor));
                if (cursor < 0) it = set.begin();
                if (it == set.end() || !available(graph_.nodes[*it])) continue;
                if (next < 0 || *it < next) next = *it;
            }
            if (next < 0) break;
            cursor = next;
            issue(static_cast<uint32_t>(next));
        }
    } while (done_count_ != before && any_ready());
    issuing_ = false;
}

void RankWorkload::issue(uint32_t i) {
    const WorkloadNode& node = graph_.nodes[i];
    const SharedSetup& setup = system_.setup();
    ready_[resource_of(node)].erase(i);
    ++ongoing_;
    issued_[i] = 1;
    occupy(node, +1);
    start_[i] = system_.now();

    double scale = setup.options.compute_scale;
    if (auto s = setup.options.straggler.find(rank_); s != setup.options.straggler.end()) scale *= s->second;
    auto replay = [&]() {
        Tick runtime = node.duration_ns ? node.duration_ns : node.duration_us == 0 ? 1 : node.duration_us * 1000;
        if (scale != 1) runtime = std::max<Tick>(1, static_cast<Tick>(std::llround(static_cast<double>(runtime) * scale)));
        if (!node.is_cpu_op) gpu_busy_ += runtime;
        else cpu_busy_ += runtime;
        if (cores_ && node.is_cpu_op) cores_->start(rank_, runtime, this, kNodeDone, i);
        else after(runtime, i);
    };
    if (setup.system.replay_only) {
        replay();
        return;
    }
    switch (node.type) {
        case ChakraNodeType::MemLoad:
        case ChakraNodeType::MemStore:
            if (!memory_.enabled())
                fail({file_, static_cast<int64_t>(node.id), -1, "type"},
                     "a remote memory access needs a remote-memory configuration other than NO_MEMORY_EXPANSION");
            memory_.access(rank_, node.tensor_size, this, kNodeDone, i);
            return;
        case ChakraNodeType::Comp:
            if (!setup.system.roofline || node.is_cpu_op) {
                replay();
                return;
            } else {
                // Roofline: the slower of the op's FLOPs at peak and its bytes at the local memory bandwidth.
                if (node.tensor_size == 0) break;  // nothing to model: done at once
                const double num_ops = static_cast<double>(node.num_ops);
                const double intensity = num_ops / static_cast<double>(node.tensor_size);
                const double perf = std::min(setup.system.local_mem_bw_GBps * 1e9 * intensity, setup.system.peak_perf_tflops * 1e12);
                Tick runtime = static_cast<Tick>(num_ops / perf * 1e9);
                if (scale != 1) runtime = static_cast<Tick>(std::llround(static_cast<double>(runtime) * scale));
                gpu_busy_ += runtime;
                after(runtime, i);
                return;
            }
        case ChakraNodeType::CommColl:
        case ChakraNodeType::CommSend:
        case ChakraNodeType::CommRecv: issue_comm(i); return;
        default: break;
    }
    finish(i);  // invalid and metadata nodes, and a roofline COMP with no bytes
}

std::vector<uint8_t> RankWorkload::involved_of(const WorkloadNode& node) const {
    if (node.involved_count == 0) return {};
    return {graph_.involved_dims.begin() + node.involved_begin, graph_.involved_dims.begin() + node.involved_begin + node.involved_count};
}

void RankWorkload::issue_comm(uint32_t i) {
    const WorkloadNode& node = graph_.nodes[i];
    const SharedSetup& setup = system_.setup();
    const ErrorLocation where{file_, static_cast<int64_t>(node.id), -1, ""};
    uint64_t bytes = node.comm_size;
    if (setup.options.comm_scale != 1) bytes = static_cast<uint64_t>(static_cast<double>(bytes) * setup.options.comm_scale);
    const int me = rank_;
    if (node.type == ChakraNodeType::CommSend || node.type == ChakraNodeType::CommRecv) {
        const bool send = node.type == ChakraNodeType::CommSend;
        const int64_t src = node.comm_src < 0 ? (send ? me : -1) : node.comm_src;
        const int64_t dst = node.comm_dst < 0 ? (send ? -1 : me) : node.comm_dst;
        if ((send ? src : dst) != me)
            fail({where.file, where.node_id, -1, send ? "comm_src" : "comm_dst"},
                 std::string(send ? "a send" : "a receive") + " of rank " + std::to_string(me) + " names rank " +
                     std::to_string(send ? src : dst));
        const int64_t peer = send ? dst : src;
        if (peer < 0 || peer >= setup.total_npus || peer == me)
            fail({where.file, where.node_id, -1, send ? "comm_dst" : "comm_src"},
                 "peer rank " + std::to_string(peer) + " is not another rank of the " + std::to_string(setup.total_npus));
        if (send) system_.send(static_cast<int>(peer), static_cast<uint64_t>(node.comm_tag), RankSystem::Traffic::Native, bytes, Handler{this, kNodeDone, i});
        else system_.recv(static_cast<int>(peer), static_cast<uint64_t>(node.comm_tag), RankSystem::Traffic::Native, bytes, Handler{this, kNodeDone, i});
        return;
    }
    CollectiveKind kind;
    switch (node.comm_type) {
        case ChakraCollective::AllReduce: kind = CollectiveKind::AllReduce; break;
        case ChakraCollective::AllGather: kind = CollectiveKind::AllGather; break;
        case ChakraCollective::AllToAll: kind = CollectiveKind::AllToAll; break;
        case ChakraCollective::ReduceScatter:
        case ChakraCollective::ReduceScatterBlock: kind = CollectiveKind::ReduceScatter; break;
        case ChakraCollective::Broadcast: {
            // Not simulated (as in ASTRA-sim): it takes its recorded duration.
            const Tick runtime = node.duration_us == 0 ? 1 : node.duration_us * 1000;
            system_.after(runtime, this, kBroadcastDone, i);
            return;
        }
        default:
            if (node.comm_type == ChakraCollective::None)
                fail({where.file, where.node_id, -1, "comm_type"},
                     "a collective node without a comm_type attribute: which collective it is is not in the trace");
            fail({where.file, where.node_id, -1, "comm_type"},
                 "collective type " + std::to_string(static_cast<int>(node.comm_type)) +
                     " is not simulated (all-reduce, all-gather, reduce-scatter, all-to-all and broadcast are)");
    }
    try {
        system_.start_collective(kind, bytes, involved_of(node), node.comm_group, node.comm_priority, i, node.id);
    } catch (const Error& e) {
        fail({where.file, where.node_id, -1, node.comm_group != 0 ? "pg_name" : "comm_type"}, e.what());
    }
}

void RankWorkload::finish(uint32_t i) {
    const WorkloadNode& node = graph_.nodes[i];
    occupy(node, -1);
    --ongoing_;
    end_[i] = system_.now();
    done_[i] = 1;
    ++done_count_;
    for (uint32_t c = 0; c < node.children_count; ++c) {
        const uint32_t kid = graph_.children[node.children_begin + c];
        if (--waiting_[kid] == 0) {
            make_ready(kid);
            --waiting_count_;
        }
    }
}

void RankWorkload::on_event(uint32_t kind, uint64_t arg) {
    const uint32_t i = static_cast<uint32_t>(arg);
    if (kind == kBroadcastDone) {
        collective_done(i, start_[i]);
        return;
    }
    if (finished_) return;
    finish(i);
    issue_ready();
    check_finished();
}

void RankWorkload::collective_done(uint32_t node, Tick) {
    if (finished_) return;
    finish(node);
    issue_ready();
    check_finished();
}

void RankWorkload::check_finished() {
    if (finished_ || any_ready() || ongoing_ != 0 || cpu_ops_ || gpu_comp_ops_ || gpu_comm_ops_) return;
    finished_ = true;
    finish_time_ = system_.now();
}

std::vector<uint32_t> RankWorkload::in_flight() const {
    std::vector<uint32_t> out;
    for (uint32_t i = 0; i < graph_.nodes.size(); ++i)
        if (issued_[i] && !done_[i]) out.push_back(i);
    return out;
}

RankResult RankWorkload::result() const {
    RankResult r;
    r.rank = rank_;
    r.finished = finished_;
    r.finish_ns = finish_time_;
    r.gpu_busy_sum_ns = gpu_busy_;
    r.exposed_comm_ns = finish_time_ >= gpu_busy_ ? finish_time_ - gpu_busy_ : 0;
    r.nodes = graph_.nodes.size();
    r.nodes_done = done_count_;
    std::vector<std::pair<Tick, Tick>> spans[kNodeClasses];
    for (uint32_t i = 0; i < graph_.nodes.size(); ++i) {
        if (!done_[i]) continue;
        r.wall_ns = std::max(r.wall_ns, end_[i]);
        spans[static_cast<int>(class_of(i))].push_back({start_[i], end_[i]});
    }
    r.gpu_compute_ns = union_length(spans[static_cast<int>(NodeClass::Gpu)]);
    r.cpu_compute_ns = union_length(spans[static_cast<int>(NodeClass::Cpu)]);
    r.comm_ns = union_length(spans[static_cast<int>(NodeClass::Comm)]);
    r.remote_mem_ns = union_length(spans[static_cast<int>(NodeClass::RemoteMem)]);
    if (r.gpu_compute_ns > 0 && r.comm_ns > 0 && r.gpu_compute_ns + r.comm_ns > r.wall_ns)
        r.overlap_ns = r.gpu_compute_ns + r.comm_ns - r.wall_ns;
    return r;
}

}  // namespace mimic::sim

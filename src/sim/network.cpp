#include "sim/network.h"

#include <string>

#include "sim/shared_cores.h"
#include "support/error.h"

namespace mimic::sim {

Network::Network(const NetworkConfig& config, bool congestion_aware, EventQueue& queue)
    : config_(config), aware_(congestion_aware), queue_(queue) {
    int stride = 1;
    for (const auto& d : config_.dims) {
        stride_.push_back(stride);
        stride *= d.npus;
        if (aware_ && d.npus >= (1 << 17))
            fail({config_.source, -1, -1, "npus_count"}, "the congestion-aware model takes at most 131071 NPUs per dimension");
    }
}

int Network::dimension_between(int src, int dst) const {
    for (size_t d = 0; d < config_.dims.size(); ++d) {
        const int n = config_.dims[d].npus;
        if ((src / stride_[d]) % n != (dst / stride_[d]) % n) return static_cast<int>(d);
    }
    return -1;
}

int Network::offset_between(int src, int dst) const {
    int offset = 0;
    for (size_t d = 0; d < config_.dims.size(); ++d) {
        const int n = config_.dims[d].npus;
        const int a = (src / stride_[d]) % n, b = (dst / stride_[d]) % n;
        offset += ((b - a + n) % n) * stride_[d];
    }
    return offset;
}

Tick Network::delay(int src, int dst, uint64_t size) const {
    // A sender on cores it shares (Gloo waking, copying and reducing on a
    // worker thread) moves its message at the share of a core it gets now:
    // its latency too, which on 2 ranks of 2 cores predicted a DDP step to
    // -1..-13% where its bytes alone gave -5..-17%.
    const double slowdown = cores_ ? cores_->message_slowdown(src) : 1.0;
    const int d = dimension_between(src, dst);
    if (d < 0) return 0;
    const NetworkDimension& dim = config_.dims[static_cast<size_t>(d)];
    const int a = (src / stride_[static_cast<size_t>(d)]) % dim.npus;
    const int b = (dst / stride_[static_cast<size_t>(d)]) % dim.npus;
    int hops = 1;
    if (dim.topology == TopologyKind::Switch) {
        hops = 2;
    } else if (dim.topology == TopologyKind::Ring) {
        int clockwise = b - a;
        if (clockwise < 0) clockwise += dim.npus;
        hops = std::min(clockwise, dim.npus - clockwise);
    }
    const double link_delay = slowdown * hops * dim.latency_ns;
    const double serialization = slowdown * static_cast<double>(size) / config_.bytes_per_ns(static_cast<size_t>(d));
    return static_cast<Tick>(link_delay + serialization);
}

Network::Exchange& Network::exchange(Channel& ch, uint64_t seq) {
    while (ch.base + ch.exchanges.size() <= seq) ch.exchanges.emplace_back();
    return ch.exchanges[seq - ch.base];
}

void Network::retire(Channel& ch) {
    while (!ch.exchanges.empty() && ch.exchanges.front().done) {
        ch.exchanges.pop_front();
        ++ch.base;
    }
}

uint32_t Network::new_message(Message m) {
    if (!free_slots_.empty()) {
        const uint32_t slot = free_slots_.back();
        free_slots_.pop_back();
        messages_[slot] = std::move(m);
        return slot;
    }
    messages_.push_back(std::move(m));
    return static_cast<uint32_t>(messages_.size() - 1);
}

void Network::send(int src, int dst, uint64_t tag, uint64_t size, Handler on_sent) {
    Channel& ch = channels_[key_of(src, dst, tag, size)];
    const uint64_t seq = ch.sends++;
    Exchange& ex = exchange(ch, seq);
    ex.sent = true;
    ex.on_sent = on_sent;
    Message m{&ch, seq, src, dst, size, {}, 0};
    if (aware_ && src != dst) {
        m.route = route(src, dst);
        const uint32_t first = m.route.front();
        offer(first, new_message(std::move(m)));
    } else {
        queue_.schedule(queue_.now() + delay(src, dst, size), this, kArrival, new_message(std::move(m)));
    }
}

void Network::recv(int src, int dst, uint64_t tag, uint64_t size, Handler on_received) {
    Channel& ch = channels_[key_of(src, dst, tag, size)];
    const uint64_t seq = ch.recvs++;
    Exchange& ex = exchange(ch, seq);
    if (ex.arrived) {
        ex.done = true;
        retire(ch);
        if (on_received.target) queue_.schedule(queue_.now(), on_received.target, on_received.kind, on_received.arg);
        return;
    }
    ex.posted = true;
    ex.on_received = on_received;
}

void Network::arrive(uint32_t slot) {
    Message& m = messages_[slot];
    Channel& ch = *m.channel;
    Exchange& ex = exchange(ch, m.seq);
    const Handler sent = ex.on_sent;
    const Handler received = ex.on_received;
    const bool posted = ex.posted;
    if (posted) ex.done = true;
    else ex.arrived = true;
    m.route.clear();
    free_slots_.push_back(slot);
    retire(ch);
    // As ASTRA-sim: the send's handler first, then the receive's.
    if (sent.target) sent.target->on_event(sent.kind, sent.arg);
    if (posted && received.target) received.target->on_event(received.kind, received.arg);
}

void Network::on_event(uint32_t kind, uint64_t arg) {
    const uint32_t id = static_cast<uint32_t>(arg);
    switch (kind) {
        case kArrival: arrive(id); break;
        case kHopArrival: {
            Message& m = messages_[id];
            ++m.hop;
            if (m.hop == m.route.size()) arrive(id);
            else offer(m.route[m.hop], id);
            break;
        }
        case kLinkFree: {
            Link& link = links_[id];
            link.busy = false;
            if (!link.waiting.empty()) {
                const uint32_t next = link.waiting.front();
                link.waiting.pop_front();
                transmit(id, next);
            }
            break;
        }
        default: break;
    }
}

uint32_t Network::link_id(int dim, int64_t instance, int from_local, int to_local) {
    const uint64_t key = ((static_cast<uint64_t>(instance) * 8 + static_cast<uint64_t>(dim)) << 36) |
                         (static_cast<uint64_t>(from_local) << 18) | static_cast<uint64_t>(to_local);
    auto [it, inserted] = link_ids_.emplace(key, static_cast<uint32_t>(links_.size()));
    if (inserted) {
        const NetworkDimension& d = config_.dims[static_cast<size_t>(dim)];
        Link link;
        link.latency_ns = d.latency_ns;
        link.bytes_per_ns = config_.bytes_per_ns(static_cast<size_t>(dim));
        links_.push_back(std::move(link));
    }
    return it->second;
}

std::vector<uint32_t> Network::route(int src, int dst) {
    std::vector<uint32_t> links;
    const int d = dimension_between(src, dst);
    const NetworkDimension& dim = config_.dims[static_cast<size_t>(d)];
    const int stride = stride_[static_cast<size_t>(d)];
    const int a = (src / stride) % dim.npus;
    const int b = (dst / stride) % dim.npus;
    const int64_t instance = src - static_cast<int64_t>(a) * stride;  // the NPU with this dimension's coordinate 0
    switch (dim.topology) {
        case TopologyKind::Switch:
            links.push_back(link_id(d, instance, a, dim.npus));
            links.push_back(link_id(d, instance, dim.npus, b));
            break;
        case TopologyKind::FullyConnected: links.push_back(link_id(d, instance, a, b)); break;
        case TopologyKind::Ring: {
            int clockwise = b - a;
            if (clockwise < 0) clockwise += dim.npus;
            const int step = (dim.npus - clockwise) < clockwise ? -1 : 1;
            for (int cur = a; cur != b;) {
                const int next = (cur + step + dim.npus) % dim.npus;
                links.push_back(link_id(d, instance, cur, next));
                cur = next;
            }
            break;
        }
    }
    return links;
}

void Network::offer(uint32_t link, uint32_t slot) {
    if (links_[link].busy) links_[link].waiting.push_back(slot);
    else transmit(link, slot);
}

void Network::transmit(uint32_t link_index, uint32_t slot) {
    Link& link = links_[link_index];
    link.busy = true;
    const double serialization = static_cast<double>(messages_[slot].size) / link.bytes_per_ns;
    const Tick now = queue_.now();
    queue_.schedule(now + static_cast<Tick>(link.latency_ns + serialization), this, kHopArrival, slot);
    queue_.schedule(now + static_cast<Tick>(serialization), this, kLinkFree, link_index);
}

size_t Network::unmatched() const {
    size_t n = 0;
    for (const auto& [key, ch] : channels_)
        for (const auto& ex : ch.exchanges)
            if (!ex.done && (ex.sent != ex.posted || (ex.sent && !ex.arrived && !ex.posted))) ++n;
    return n;
}

std::vector<Network::Pending> Network::unmatched_list(size_t limit) const {
    std::vector<Pending> out;
    for (const auto& [key, ch] : channels_) {
        for (const auto& ex : ch.exchanges) {
            if (ex.done || out.size() >= limit) continue;
            if (ex.sent && !ex.posted) out.push_back({key.src, key.dst, key.tag, key.size, true});
            else if (ex.posted && !ex.sent) out.push_back({key.src, key.dst, key.tag, key.size, false});
        }
    }
    return out;
}

}  // namespace mimic::sim

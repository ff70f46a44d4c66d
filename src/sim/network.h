// Point-to-point messages between NPUs over the configured network, and the
// matching of sends with receives. Congestion-unaware: a message takes
// floor(hops * latency + size / bandwidth) in the lowest dimension where the
// two NPUs' coordinates differ, and messages never contend. Congestion-aware:
// every link is a FIFO that a message holds for size / bandwidth, forwarded
// hop by hop (store and forward), in that same dimension; unlike ASTRA-sim,
// any number of dimensions.
#pragma once

#include <cstdint>
#include <deque>
#include <unordered_map>
#include <vector>

#include "sim/event_queue.h"
#include "sim/network_config.h"

namespace mimic::sim {

class SharedCores;

// What to run when a send or receive completes; a null target does nothing.
struct Handler {
    EventTarget* target = nullptr;
    uint32_t kind = 0;
    uint64_t arg = 0;
};

class Network final : public EventTarget {
public:
    Network(const NetworkConfig& config, bool congestion_aware, EventQueue& queue);

    // Rank-symmetric mode, for a workload every rank runs alike on a network
    // every translation maps onto itself (rings, switches, full meshes): only
    // one rank is simulated, and a message it sends to the NPU at offset d
    // stands for the one it receives from the NPU at offset -d, sent at the
    // same time by symmetry. Messages then match on (tag, size, offset).
    void set_mirrored(bool mirrored) { mirrored_ = mirrored; }
    // Ranks share hosts' cores: a message leaves at its sender's share (congestion-unaware model).
    void share_cores(const SharedCores* cores) { cores_ = cores; }
    // The offset from one NPU to another, per dimension modulo its size, as an NPU id.
    int offset_between(int src, int dst) const;

    // A send completes when the message arrives; the matching receive (same
    // tag, source, destination and size, in order) completes then too, or
    // when it is posted if that is later.
    void send(int src, int dst, uint64_t tag, uint64_t size, Handler on_sent);
    void recv(int src, int dst, uint64_t tag, uint64_t size, Handler on_received);

    // Congestion-unaware delay of one message, in ns.
    Tick delay(int src, int dst, uint64_t size) const;
    // The dimension a message between two NPUs travels in.
    int dimension_between(int src, int dst) const;
    // Sends and receives still waiting for their other half.
    size_t unmatched() const;
    struct Pending {
        int src, dst;
        uint64_t tag, size;
        bool send_side;  // a send without its receive, else a receive without its send
    };
    std::vector<Pending> unmatched_list(size_t limit) const;

    void on_event(uint32_t kind, uint64_t arg) override;

private:
    struct Key {
        uint64_t tag, size;
        int32_t src, dst;
        bool operator==(const Key& o) const { return tag == o.tag && size == o.size && src == o.src && dst == o.dst; }
    };
    struct KeyHash {
        size_t operator()(const Key& k) const {
            const uint64_t ends = (static_cast<uint64_t>(static_cast<uint32_t>(k.src)) << 32) | static_cast<uint32_t>(k.dst);
            uint64_t h = k.tag * 0x9E3779B97F4A7C15ull;
            h ^= (k.size + 0x632BE59BD9B4E019ull) * 0xBF58476D1CE4E5B9ull;
            h ^= ends * 0x94D049BB133111EBull;
            return static_cast<size_t>(h ^ (h >> 31));
        }
    };
    Key key_of(int src, int dst, uint64_t tag, uint64_t size) const {
        return mirrored_ ? Key{tag, size, offset_between(src, dst), -1} : Key{tag, size, src, dst};
    }
    struct Exchange {
        Handler on_sent, on_received;
        bool sent = false, posted = false, arrived = false, done = false;
    };
    struct Channel {
        std::deque<Exchange> exchanges;  // from the oldest not yet done
        uint64_t base = 0;               // sequence number of exchanges.front()
        uint64_t sends = 0, recvs = 0;
    };
    struct Message {  // in flight
        Channel* channel;
        uint64_t seq;
        int src, dst;
        uint64_t size;
        // congestion-aware route: link ids, next hop
        std::vector<uint32_t> route;
        uint32_t hop = 0;
    };
    struct Link {
        double latency_ns, bytes_per_ns;
        bool busy = false;
        std::deque<uint32_t> waiting;  // message slots
    };
    enum Kind : uint32_t { kArrival = 0, kLinkFree = 1, kHopArrival = 2 };

    Exchange& exchange(Channel& ch, uint64_t seq);
    void retire(Channel& ch);
    void arrive(uint32_t slot);
    uint32_t new_message(Message m);
    // congestion-aware
    std::vector<uint32_t> route(int src, int dst);
    uint32_t link_id(int dim, int64_t instance, int from_local, int to_local);
    void offer(uint32_t link, uint32_t slot);
    void transmit(uint32_t link, uint32_t slot);

    NetworkConfig config_;
    bool aware_;
    bool mirrored_ = false;
    const SharedCores* cores_ = nullptr;
    EventQueue& queue_;
    std::vector<int> stride_;  // NPUs per step of each dimension
    std::unordered_map<Key, Channel, KeyHash> channels_;
    std::vector<Message> messages_;
    std::vector<uint32_t> free_slots_;
    std::vector<Link> links_;
    std::unordered_map<uint64_t, uint32_t> link_ids_;
};

}  // namespace mimic::sim

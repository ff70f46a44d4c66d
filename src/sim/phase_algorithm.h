// One phase of a chunk of a collective on one NPU: ASTRA-sim's packet-level
// state machines (ring, direct, halving-doubling, double binary tree), driven
// by three events: the phase starts, a packet is back from the memory bus,
// a message arrived.
#pragma once

#include <cstdint>
#include <memory>

#include "sim/logical_topology.h"
#include "sim/system_config.h"

namespace mimic::sim {

enum class PhaseEvent : uint8_t { Start, BusDone, Received };

// What a phase asks of the chunk it belongs to.
class PhaseHost {
public:
    virtual ~PhaseHost() = default;
    virtual int npu() const = 0;
    virtual void send_to(int dst, uint64_t bytes) = 0;
    virtual void receive_from(int src, uint64_t bytes) = 0;
    // A packet through the memory bus (the endpoint delay, or ASTRA-sim's
    // fixed 10 ns on a "local" ring), then, when `reduce`, the reduction
    // (three passes over `bytes` at the local memory bandwidth); BusDone follows.
    virtual void through_bus(uint64_t bytes, bool reduce, bool local_ring) = 0;
    // For custom implementations: a message under the graph's own tag (sent
    // as a workload's message is, not a collective's), and a timed step; each
    // reports back through PhaseAlgorithm::done with its token.
    virtual void send_message(int dst, uint64_t tag, uint64_t bytes, uint32_t token) = 0;
    virtual void receive_message(int src, uint64_t tag, uint64_t bytes, uint32_t token) = 0;
    virtual void wait(uint64_t ns, uint32_t token) = 0;
};

class PhaseAlgorithm {
public:
    virtual ~PhaseAlgorithm() = default;
    // Returns true when the phase is over; nothing of it runs after that.
    virtual bool run(PhaseEvent event) = 0;
    // A step started through send_message, receive_message or wait is over;
    // returns true when the phase is.
    virtual bool done(uint32_t token) {
        (void)token;
        return false;
    }
    void attach(PhaseHost* host) { host_ = host; }

    CollectiveKind kind = CollectiveKind::AllReduce;
    uint64_t data_size = 0;
    uint64_t final_data_size = 0;

protected:
    PhaseHost* host_ = nullptr;
};

// The phase as ASTRA-sim builds it for `impl` on this ring (ring, direct,
// halving-doubling) or tree (double binary tree). Throws mimic::Error for a
// collective the algorithm has no form of.
std::unique_ptr<PhaseAlgorithm> make_ring_phase(const CollectiveImpl& impl, CollectiveKind kind, int npu,
                                                const RingView& ring, uint64_t data_size, Direction direction);
std::unique_ptr<PhaseAlgorithm> make_tree_phase(const TreeRole& role, uint64_t data_size);

}  // namespace mimic::sim

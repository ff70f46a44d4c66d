#include "sim/phase_algorithm.h"

#include <cmath>
#include <deque>
#include <string>

#include "support/error.h"

namespace mimic::sim {
namespace {

// Ring, direct and halving-doubling share ASTRA-sim's packet machinery: every
// packet is put on the memory bus when it is made (one at the start, one per
// message received), each packet back from the bus frees one send, and the
// phase ends once every message is sent and every packet is back. The first
// packets of each round are "zero-latency" ones that carry no reduction; in
// an all-reduce's first round the others carry one.
class PacketPhase final : public PhaseAlgorithm {
public:
    enum class Variant : uint8_t { Ring, Direct, HalvingDoubling };

    PacketPhase(Variant variant, int window, CollectiveKind k, int npu, const RingView& ring, uint64_t size,
                Direction direction)
        : variant_(variant), npu_(npu), ring_(ring), direction_(direction), n_(ring.size()) {
        kind = k;
        data_size = size;
        if (variant_ == Variant::HalvingDoubling) init_halving_doubling();
        else init_ring(window);
    }

    bool run(PhaseEvent event) override {
        switch (event) {
            case PhaseEvent::Start:
                for (int i = 0; i < parallel_; ++i) insert_packet();
                return false;
            case PhaseEvent::Received:
                ++received_;
                insert_packet();
                return false;
            case PhaseEvent::BusDone:
                ++free_packets_;
                if (variant_ == Variant::Direct && kind == CollectiveKind::AllReduce && stream_count_ <= middle_) {
                    // A direct all-reduce sends its gather round only once every
                    // reduce-scatter message has arrived.
                    if (received_ < middle_) return false;
                    for (int i = 0; i < parallel_; ++i) send_next();
                } else {
                    send_next();
                }
                return stream_count_ == 0 && free_packets_ == parallel_;
        }
        return false;
    }

private:
    struct Packet {
        int dst, src;
        uint64_t bytes;
    };

    void init_ring(int window) {
        receiver_ = ring_.receiver(npu_, direction_);
        sender_ = ring_.sender(npu_, direction_);
        switch (kind) {
            case CollectiveKind::AllReduce: stream_count_ = 2 * (n_ - 1); break;
            case CollectiveKind::AllToAll: stream_count_ = (n_ - 1) * n_ / 2; break;
            default: stream_count_ = n_ - 1;
        }
        switch (kind) {
            case CollectiveKind::AllReduce: final_data_size = data_size; msg_size_ = data_size / n_; break;
            case CollectiveKind::AllGather: final_data_size = data_size * n_; msg_size_ = data_size; break;
            case CollectiveKind::ReduceScatter: final_data_size = data_size / n_; msg_size_ = data_size / n_; break;
            case CollectiveKind::AllToAll: final_data_size = data_size; msg_size_ = data_size / n_; break;
        }
        if (variant_ == Variant::Direct) {
            middle_ = n_ - 1;
            parallel_ = window < 0 ? n_ - 1 : std::min(window, n_ - 1);
            if (kind == CollectiveKind::AllToAll) stream_count_ = n_ - 1;
        }
    }

    void init_halving_doubling() {
        const int log_n = static_cast<int>(std::log2(n_));
        stream_count_ = kind == CollectiveKind::AllReduce ? 2 * log_n : log_n;
        switch (kind) {
            case CollectiveKind::AllReduce:
                final_data_size = data_size; msg_size_ = data_size / 2; rank_offset_ = 1; multiplier_ = 2;
                break;
            case CollectiveKind::AllGather:
                final_data_size = data_size * n_; msg_size_ = data_size; rank_offset_ = n_ / 2; multiplier_ = 0.5;
                break;
            case CollectiveKind::ReduceScatter:
                final_data_size = data_size / n_; msg_size_ = data_size / 2; rank_offset_ = 1; multiplier_ = 2;
                break;
            case CollectiveKind::AllToAll:
                throw Error("halvingDoubling has no all-to-all");
        }
        aim_halving_doubling();
    }

    // The peer rank_offset steps away, clockwise or not by this NPU's block parity.
    void aim_halving_doubling() {
        Direction dir = Direction::Clockwise;
        if (rank_offset_ != 0 && (ring_.index() / rank_offset_) % 2 != 0) dir = Direction::Anticlockwise;
        receiver_ = npu_;
        for (int i = 0; i < rank_offset_; ++i) receiver_ = ring_.receiver(receiver_, dir);
        sender_ = receiver_;
    }

    int packets_per_round() const {
        if (variant_ == Variant::HalvingDoubling) return static_cast<int>(std::log2(n_) - 1 * parallel_);
        if (variant_ == Variant::Direct && !ring_.local()) return parallel_;
        return (n_ - 1) * parallel_;
    }

    void insert_packet() {
        if (zero_latency_ == 0 && with_latency_ == 0) {
            zero_latency_ = parallel_;
            with_latency_ = packets_per_round();
            toggle_ = !toggle_;
        }
        bool reduce = false;
        if (zero_latency_ > 0) {
            --zero_latency_;
        } else if (with_latency_ > 0) {
            --with_latency_;
            reduce = kind == CollectiveKind::ReduceScatter || (kind == CollectiveKind::AllReduce && toggle_);
        } else {
            throw Error("collective phase on NPU " + std::to_string(npu_) + " has no packet to inject");
        }
        packets_.push_back({receiver_, sender_, msg_size_});
        host_->through_bus(msg_size_, reduce, ring_.local());
        advance_peer();
    }

    void advance_peer() {
        if (variant_ == Variant::Direct) {
            receiver_ = ring_.receiver(receiver_, direction_);
            if (receiver_ == npu_) receiver_ = ring_.receiver(receiver_, direction_);
            sender_ = ring_.sender(sender_, direction_);
            if (sender_ == npu_) sender_ = ring_.sender(sender_, direction_);
        } else if (variant_ == Variant::HalvingDoubling) {
            rank_offset_ = static_cast<int>(rank_offset_ * multiplier_);
            msg_size_ = static_cast<uint64_t>(static_cast<double>(msg_size_) / multiplier_);
            if (rank_offset_ == n_ && kind == CollectiveKind::AllReduce) {
                multiplier_ = 0.5;
                rank_offset_ = static_cast<int>(rank_offset_ * multiplier_);
                msg_size_ = static_cast<uint64_t>(static_cast<double>(msg_size_) / multiplier_);
            }
            aim_halving_doubling();
        }
    }

    void send_next() {
        if (packets_.empty() || stream_count_ == 0 || free_packets_ == 0) return;
        const Packet p = packets_.front();
        // Ring and direct send the phase's message size; halving-doubling the packet's own.
        const uint64_t bytes = variant_ == Variant::HalvingDoubling ? p.bytes : msg_size_;
        host_->send_to(p.dst, bytes);
        host_->receive_from(p.src, bytes);
        if (stream_count_ > 0) --stream_count_;
        packets_.pop_front();
        --free_packets_;
    }

    Variant variant_;
    int npu_;
    RingView ring_;
    Direction direction_;
    int n_;
    int receiver_ = 0, sender_ = 0;
    int parallel_ = 1;
    int middle_ = 0;
    int stream_count_ = 0;
    uint64_t msg_size_ = 0;
    int zero_latency_ = 0, with_latency_ = 0;
    bool toggle_ = false;
    int free_packets_ = 0;
    int received_ = 0;
    int rank_offset_ = 0;
    double multiplier_ = 1;
    std::deque<Packet> packets_;
};

// ASTRA-sim's double binary tree all-reduce on one of its two trees: leaves
// send up and wait for the result, inner nodes reduce both children's data
// before sending up and then send the result down, the root reduces its one
// child's data and sends it back.
class TreePhase final : public PhaseAlgorithm {
public:
    TreePhase(const TreeRole& role, uint64_t size) : role_(role) {
        kind = CollectiveKind::AllReduce;
        data_size = size;
        final_data_size = size;
    }

    bool run(PhaseEvent event) override {
        using Kind = TreeRole::Kind;
        const uint64_t n = data_size;
        switch (role_.kind) {
            case Kind::Leaf:
                switch (state_) {
                    case State::Begin: host_->through_bus(n, false, false); state_ = State::SendingUp; return false;
                    case State::SendingUp:
                        host_->send_to(role_.parent, n);
                        host_->receive_from(role_.parent, n);
                        state_ = State::WaitingParent;
                        return false;
                    case State::WaitingParent: host_->through_bus(n, false, false); state_ = State::End; return false;
                    case State::End: return true;
                    default: return false;
                }
            case Kind::Intermediate:
                if (state_ == State::Begin) {
                    state_ = State::WaitingTwoChildren;
                    host_->receive_from(role_.left, n);
                    host_->receive_from(role_.right, n);
                } else if (state_ == State::WaitingTwoChildren && event == PhaseEvent::Received) {
                    host_->through_bus(n, true, false);
                    state_ = State::WaitingOneChild;
                } else if (state_ == State::WaitingOneChild && event == PhaseEvent::Received) {
                    host_->through_bus(n, true, false);
                    state_ = State::SendingUp;
                } else if (reductions_ < 1 && event == PhaseEvent::BusDone) {
                    ++reductions_;  // the first child's reduction is done; wait for the second
                } else if (state_ == State::SendingUp) {
                    state_ = State::WaitingParent;
                    host_->send_to(role_.parent, n);
                    host_->receive_from(role_.parent, n);
                } else if (state_ == State::WaitingParent && event == PhaseEvent::Received) {
                    host_->through_bus(n, true, false);
                    state_ = State::SendingDown;
                } else if (state_ == State::SendingDown) {
                    host_->send_to(role_.left, n);
                    host_->send_to(role_.right, n);
                    return true;
                }
                return false;
            case Kind::Root: {
                const int child = role_.left >= 0 ? role_.left : role_.right;
                if (state_ == State::Begin) {
                    state_ = State::WaitingOneChild;
                    host_->receive_from(child, n);
                } else if (state_ == State::WaitingOneChild) {
                    host_->through_bus(n, true, false);
                    state_ = State::SendingDown;
                } else if (state_ == State::SendingDown) {
                    host_->send_to(child, n);
                    return true;
                }
                return false;
            }
        }
        return false;
    }

private:
    enum class State : uint8_t { Begin, WaitingTwoChildren, WaitingOneChild, SendingUp, WaitingParent, SendingDown, End };
    TreeRole role_;
    State state_ = State::Begin;
    int reductions_ = 0;
};

}  // namespace

std::unique_ptr<PhaseAlgorithm> make_ring_phase(const CollectiveImpl& impl, CollectiveKind kind, int npu,
                                                const RingView& ring, uint64_t data_size, Direction direction) {
    using V = PacketPhase::Variant;
    switch (impl.kind) {
        case AlgorithmKind::Ring:
        case AlgorithmKind::OneRing:
            return std::make_unique<PacketPhase>(V::Ring, -1, kind, npu, ring, data_size, direction);
        case AlgorithmKind::Direct:
        case AlgorithmKind::OneDirect:
            return std::make_unique<PacketPhase>(V::Direct, impl.window, kind, npu, ring, data_size, direction);
        case AlgorithmKind::HalvingDoubling:
        case AlgorithmKind::OneHalvingDoubling:
            return std::make_unique<PacketPhase>(V::HalvingDoubling, -1, kind, npu, ring, data_size, direction);
        case AlgorithmKind::DoubleBinaryTree: break;
    }
    throw Error("doubleBinaryTree runs on a tree, not a ring");
}

std::unique_ptr<PhaseAlgorithm> make_tree_phase(const TreeRole& role, uint64_t data_size) {
    return std::make_unique<TreePhase>(role, data_size);
}

}  // namespace mimic::sim

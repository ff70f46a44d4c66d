// The logical topologies a collective phase runs over: a ring of NPUs (the
// NPUs of one network dimension that share every other coordinate, every NPU
// for the one* implementations, or a communicator group's members in the
// order the group lists them) and ASTRA-sim's double binary tree.
#pragma once

#include <memory>
#include <unordered_map>
#include <vector>

namespace mimic::sim {

enum class Direction : uint8_t { Clockwise, Anticlockwise };

class RingView {
public:
    // NPUs base, base + stride, ..., base + (size-1) * stride.
    static RingView strided(int npu, int size, int stride);
    // A communicator group's members in the listed order; `npu` must be one.
    static RingView of_members(int npu, std::shared_ptr<const std::vector<int>> members,
                               std::shared_ptr<const std::unordered_map<int, int>> index);

    int size() const { return size_; }
    int index() const { return index_; }
    // Groups of listed members are "local" rings in ASTRA-sim: their packets
    // take its fixed 10 ns on the memory bus instead of the endpoint delay.
    bool local() const { return members_ != nullptr; }
    int receiver(int npu, Direction dir) const { return at(step(index_of(npu), dir == Direction::Clockwise ? 1 : -1)); }
    int sender(int npu, Direction dir) const { return at(step(index_of(npu), dir == Direction::Clockwise ? -1 : 1)); }

private:
    int index_of(int npu) const;
    int at(int index) const { return members_ ? (*members_)[static_cast<size_t>(index)] : base_ + index * stride_; }
    int step(int index, int by) const { return ((index + by) % size_ + size_) % size_; }

    int size_ = 1;
    int index_ = 0;
    int base_ = 0;
    int stride_ = 1;
    std::shared_ptr<const std::vector<int>> members_;
    std::shared_ptr<const std::unordered_map<int, int>> member_index_;
};

// One of the two trees of ASTRA-sim's double binary tree over the NPUs
// start, start + stride, ...: a root with a single child, that child a full
// binary tree, NPUs numbered in order (left subtree, node, right subtree).
// The "max" tree hangs the full tree left of the root (the root takes the
// last NPU), the "min" tree right of it (the root takes the first).
struct TreeRole {
    enum class Kind : uint8_t { Root, Intermediate, Leaf } kind = Kind::Leaf;
    int parent = -1, left = -1, right = -1;
};
// Throws mimic::Error when the NPU is not in the tree (sizes that are not
// powers of two leave NPUs out of ASTRA-sim's trees).
TreeRole tree_role(int npu, int size, int start, int stride, bool root_max);

}  // namespace mimic::sim

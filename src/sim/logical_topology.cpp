#include "sim/logical_topology.h"

#include <string>

#include "support/error.h"

namespace mimic::sim {

RingView RingView::strided(int npu, int size, int stride) {
    RingView r;
    r.size_ = size;
    r.stride_ = stride;
    r.index_ = (npu % (stride * size)) / stride;
    r.base_ = npu - r.index_ * stride;
    return r;
}

RingView RingView::of_members(int npu, std::shared_ptr<const std::vector<int>> members,
                              std::shared_ptr<const std::unordered_map<int, int>> index) {
    RingView r;
    r.size_ = static_cast<int>(members->size());
    r.members_ = std::move(members);
    r.member_index_ = std::move(index);
    r.index_ = r.index_of(npu);
    return r;
}

int RingView::index_of(int npu) const {
    if (!members_) return (npu - base_) / stride_;
    auto it = member_index_->find(npu);
    if (it == member_index_->end()) throw Error("NPU " + std::to_string(npu) + " is not a member of the communicator group");
    return it->second;
}

namespace {

// Positions of a full binary tree of `depth` levels, numbered in order; fills
// parent/left/right of each position (-1 where none). Returns the subtree root.
int build_in_order(int depth, int parent, int& next, std::vector<TreeRole>& roles) {
    int left = -1, right = -1;
    if (depth > 1) left = build_in_order(depth - 1, -2, next, roles);
    const int me = next++;
    if (depth > 1) right = build_in_order(depth - 1, -2, next, roles);
    roles[static_cast<size_t>(me)].left = left;
    roles[static_cast<size_t>(me)].right = right;
    roles[static_cast<size_t>(me)].parent = parent;
    if (left >= 0) roles[static_cast<size_t>(left)].parent = me;
    if (right >= 0) roles[static_cast<size_t>(right)].parent = me;
    return me;
}

}  // namespace

TreeRole tree_role(int npu, int size, int start, int stride, bool root_max) {
    int depth = 1;
    for (int t = size; t > 1; t /= 2) ++depth;
    const int positions = 1 << (depth - 1);  // the root plus a full tree of depth-1 levels
    std::vector<TreeRole> roles(static_cast<size_t>(positions));
    int next = root_max ? 0 : 1;
    const int root = root_max ? positions - 1 : 0;
    int child = -1;
    if (depth > 1) child = build_in_order(depth - 1, root, next, roles);
    roles[static_cast<size_t>(root)].parent = -1;
    roles[static_cast<size_t>(root)].left = root_max ? child : -1;
    roles[static_cast<size_t>(root)].right = root_max ? -1 : child;
    const int pos = (npu - start) / stride;
    if ((npu - start) % stride != 0 || pos < 0 || pos >= positions)
        throw Error("NPU " + std::to_string(npu) + " has no place in the double binary tree over " + std::to_string(size) +
                    " NPUs (ASTRA-sim's trees hold " + std::to_string(positions) + ")");
    auto id_of = [&](int p) { return p < 0 ? -1 : start + p * stride; };
    TreeRole role = roles[static_cast<size_t>(pos)];
    TreeRole out;
    out.parent = id_of(role.parent);
    out.left = id_of(role.left);
    out.right = id_of(role.right);
    if (role.parent < 0) out.kind = TreeRole::Kind::Root;
    else if (role.left < 0 && role.right < 0) out.kind = TreeRole::Kind::Leaf;
    else out.kind = TreeRole::Kind::Intermediate;
    return out;
}

}  // namespace mimic::sim

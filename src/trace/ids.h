// Strong id types: a node's position, a node's id as written in the trace,
// tensor and storage ids must never mix, so each is its own type.
#pragma once

#include <cstdint>
#include <functional>

namespace mimic {

template <typename Tag, typename Int>
struct StrongId {
    Int value{};
    constexpr StrongId() = default;
    constexpr explicit StrongId(Int v) : value(v) {}
    friend constexpr bool operator==(StrongId a, StrongId b) { return a.value == b.value; }
    friend constexpr bool operator!=(StrongId a, StrongId b) { return a.value != b.value; }
    friend constexpr bool operator<(StrongId a, StrongId b) { return a.value < b.value; }
};

struct NodeIndexTag {};
struct NodeIdTag {};
// Position of a node in Trace::nodes.
using NodeIndex = StrongId<NodeIndexTag, uint32_t>;
// A node's id as the trace writes it.
using NodeId = StrongId<NodeIdTag, uint64_t>;

constexpr NodeIndex kNoNode{UINT32_MAX};

}  // namespace mimic

template <typename Tag, typename Int>
struct std::hash<mimic::StrongId<Tag, Int>> {
    size_t operator()(mimic::StrongId<Tag, Int> id) const noexcept { return std::hash<Int>()(id.value); }
};

// Communication facts of ET nodes, as a Chakra trace states them: which
// nodes are collectives or point-to-point transfers, their
// CollectiveCommType, message size in bytes, process group and peer.
#pragma once

#include <cstdint>
#include <string_view>

#include "trace/trace.h"

namespace mimic {

enum class CommKind : uint8_t { None, Collective, Send, Recv, Wait };

// Chakra's CollectiveCommType numbering.
enum class CollectiveType : int8_t {
    Unknown = -1,
    AllReduce = 0,
    Reduce = 1,
    AllGather = 2,
    Gather = 3,
    Scatter = 4,
    Broadcast = 5,
    AllToAll = 6,
    ReduceScatter = 7,
    ReduceScatterBlock = 8,
    Barrier = 9,
};

struct CommInfo {
    CommKind kind = CommKind::None;
    CollectiveType type = CollectiveType::Unknown;
    int64_t size_bytes = -1;  // -1 when the trace does not say
    StrId pg_name;
    int64_t peer = -1;  // send: destination, recv: source (group rank as recorded)
    int64_t tag = -1;
    uint8_t source_rank = 0;  // how precise the size is: 3 record_param_comms, 2 c10d op, 1 nccl/gloo label
};

// "allreduce", "all_reduce", "c10d::reduce_scatter_", "nccl:all_to_all", ...
// -> the collective; Unknown when the name is none of them.
CollectiveType collective_from_name(std::string_view name);

// Byte size of a dtype as record_param_comms names it ("Float", "BFloat16",
// "Long"...) or as a tensor type names it ("float", "c10::Half"...); 0 if unknown.
uint32_t dtype_bytes(std::string_view dtype);

class CommClassifier {
public:
    explicit CommClassifier(const Trace& trace);
    // The node's own communication facts (not its children's).
    CommInfo classify(const Node& node) const;
    // Folds a descendant's facts into those of the node that contains it:
    // the outermost node decides the kind, the most precise source the size.
    static void merge(CommInfo& outer, const CommInfo& inner);

private:
    CommInfo record_param_comms(const Node& node) const;
    CommInfo c10d_op(const Node& node, std::string_view op) const;
    const Value* attr(const Node& node, StrId name) const;

    const Trace& trace_;
    StrId record_param_comms_, collective_name_, in_msg_nelems_, dtype_, pg_name_;
};

}  // namespace mimic

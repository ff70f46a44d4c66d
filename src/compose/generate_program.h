// One rank's iteration as `mimic generate` builds it, before it is bound to
// a rank: compute steps with their FLOPs, bytes and duration; collectives
// named by the kind of group they run in (the rank's TP group, DP group...);
// sends and receives named by the stage they go to. Ranks of one pipeline
// stage share one program; binding it to a rank (generate_chakra.h) fills
// in the group ids and peer ranks. Ops are in issue order, and their
// position is their Chakra node id, so a simulator that issues ready nodes
// in id order issues them in program order.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "compose/generate_layout.h"

namespace mimic::compose {

enum class GenOpKind : uint8_t { Compute, Collective, Send, Recv };
// Chakra's CollectiveCommType numbers.
enum class GenCollective : uint8_t { AllReduce = 0, AllGather = 2, AllToAll = 6, ReduceScatter = 7 };
inline constexpr size_t kGenCollectiveKinds = 4;
const char* gen_collective_name(GenCollective c);  // "all_reduce", ...
size_t gen_collective_index(GenCollective c);      // 0..3

struct GenOp {
    GenOpKind kind = GenOpKind::Compute;
    GenCollective collective = GenCollective::AllReduce;
    GenGroup group = GenGroup::World;
    int8_t peer_stage = 0;   // send/recv: +1 the next stage, -1 the previous one
    int32_t tag = 0;         // send/recv: matches a send with its receive
    uint64_t flops = 0;      // compute: FLOPs (Chakra num_ops)
    uint64_t bytes = 0;      // compute: bytes read and written (tensor_size); communication: comm_size
    uint64_t duration_us = 0;
    uint32_t deps_begin = 0, deps_count = 0;  // into RankProgram::deps
    std::string name;
};

using OpRef = uint32_t;

class RankProgram {
public:
    std::vector<GenOp> ops;
    std::vector<OpRef> deps;

    OpRef add(GenOp op, std::initializer_list<OpRef> after);
    OpRef add(GenOp op, const std::vector<OpRef>& after);
    bool has_point_to_point() const;
    // The group kinds its collectives use.
    std::vector<GenGroup> groups_used() const;
};

// Sums of what one rank's program communicates, for the summary and tests.
struct GenCommTotals {
    // [group kind][collective] -> bytes and calls
    uint64_t bytes[kGenGroupKinds][kGenCollectiveKinds] = {};
    uint64_t calls[kGenGroupKinds][kGenCollectiveKinds] = {};
    uint64_t send_bytes = 0, recv_bytes = 0, sends = 0, recvs = 0;
    uint64_t flops = 0, compute_us = 0, nodes = 0;
};
GenCommTotals totals_of(const RankProgram& p);

}  // namespace mimic::compose

#include "compose/generate_program.h"

#include <algorithm>

namespace mimic::compose {

const char* gen_collective_name(GenCollective c) {
    switch (c) {
        case GenCollective::AllReduce: return "all_reduce";
        case GenCollective::AllGather: return "all_gather";
        case GenCollective::AllToAll: return "all_to_all";
        case GenCollective::ReduceScatter: return "reduce_scatter";
    }
    return "?";
}

size_t gen_collective_index(GenCollective c) {
    switch (c) {
        case GenCollective::AllReduce: return 0;
        case GenCollective::AllGather: return 1;
        case GenCollective::AllToAll: return 2;
        case GenCollective::ReduceScatter: return 3;
    }
    return 0;
}

OpRef RankProgram::add(GenOp op, std::initializer_list<OpRef> after) { return add(std::move(op), std::vector<OpRef>(after)); }

OpRef RankProgram::add(GenOp op, const std::vector<OpRef>& after) {
    op.deps_begin = static_cast<uint32_t>(deps.size());
    for (OpRef d : after)
        if (std::find(deps.begin() + op.deps_begin, deps.end(), d) == deps.end()) deps.push_back(d);
    op.deps_count = static_cast<uint32_t>(deps.size()) - op.deps_begin;
    ops.push_back(std::move(op));
    return static_cast<OpRef>(ops.size() - 1);
}

bool RankProgram::has_point_to_point() const {
    return std::any_of(ops.begin(), ops.end(), [](const GenOp& o) { return o.kind == GenOpKind::Send || o.kind == GenOpKind::Recv; });
}

std::vector<GenGroup> RankProgram::groups_used() const {
    std::vector<GenGroup> used;
    for (const GenOp& o : ops)
        if (o.kind == GenOpKind::Collective && std::find(used.begin(), used.end(), o.group) == used.end()) used.push_back(o.group);
    return used;
}

GenCommTotals totals_of(const RankProgram& p) {
    GenCommTotals t;
    t.nodes = p.ops.size();
    for (const GenOp& o : p.ops) {
        switch (o.kind) {
            case GenOpKind::Compute:
                t.flops += o.flops;
                t.compute_us += o.duration_us;
                break;
            case GenOpKind::Collective:
                t.bytes[static_cast<size_t>(o.group)][gen_collective_index(o.collective)] += o.bytes;
                ++t.calls[static_cast<size_t>(o.group)][gen_collective_index(o.collective)];
                break;
            case GenOpKind::Send:
                t.send_bytes += o.bytes;
                ++t.sends;
                break;
            case GenOpKind::Recv:
                t.recv_bytes += o.bytes;
                ++t.recvs;
                break;
        }
    }
    return t;
}

}  // namespace mimic::compose

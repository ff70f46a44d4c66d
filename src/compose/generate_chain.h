// Appends ops to a RankProgram along two chains that keep a simulation from
// deadlocking: compute (and the communication it waits for) in program
// order, and every collective and send in program order on their own chain.
// ASTRA-sim lets a rank run one collective or send at a time, issued in node
// id order among the ready ones; were two collectives of different groups
// both ready, ranks could take them in different orders and wait on each
// other in a cycle. Chained, every rank of a stage issues its collectives in
// the same order, and each group holds ranks of one stage only.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "compose/generate_cost.h"
#include "compose/generate_program.h"

namespace mimic::compose {

class ProgramChain {
public:
    ProgramChain(RankProgram& program, const ComputeCost& cost) : p_(program), cost_(cost) {}

    // A compute step after the previous step.
    OpRef compute(std::string name, uint64_t flops, uint64_t bytes, int kernels);
    // A collective the next compute step waits for (tensor-parallel
    // all-reduce, expert all-to-all, FSDP's parameter all-gather).
    OpRef blocking(std::string name, GenCollective c, GenGroup g, uint64_t bytes);
    // A collective that overlaps the compute after it (gradient buckets);
    // only the optimizer waits for it.
    OpRef overlapped(std::string name, GenCollective c, GenGroup g, uint64_t bytes);
    // Pipeline messages: a send overlaps what follows; the step after a
    // receive waits for it.
    OpRef send(std::string name, int peer_stage, int32_t tag, uint64_t bytes);
    OpRef recv(std::string name, int peer_stage, int32_t tag, uint64_t bytes);
    // A compute step after everything issued so far (the optimizer).
    OpRef compute_after_all(std::string name, uint64_t flops, uint64_t bytes, int kernels);

    RankProgram& program() { return p_; }

private:
    GenOp comm_op(std::string name, GenOpKind kind, uint64_t bytes) const;
    std::vector<OpRef> both() const;

    RankProgram& p_;
    const ComputeCost& cost_;
    std::optional<OpRef> step_;  // last op of the compute chain
    std::optional<OpRef> comm_;  // last collective or send
};

}  // namespace mimic::compose

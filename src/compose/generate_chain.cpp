#include "compose/generate_chain.h"

namespace mimic::compose {

std::vector<OpRef> ProgramChain::both() const {
    std::vector<OpRef> deps;
    if (step_) deps.push_back(*step_);
    if (comm_) deps.push_back(*comm_);
    return deps;
}

GenOp ProgramChain::comm_op(std::string name, GenOpKind kind, uint64_t bytes) const {
    GenOp op;
    op.kind = kind;
    op.name = std::move(name);
    op.bytes = bytes;
    return op;
}

OpRef ProgramChain::compute(std::string name, uint64_t flops, uint64_t bytes, int kernels) {
    GenOp op;
    op.name = std::move(name);
    op.flops = flops;
    op.bytes = bytes;
    op.duration_us = cost_.duration_us(flops, bytes, kernels);
    step_ = step_ ? p_.add(std::move(op), {*step_}) : p_.add(std::move(op), {});
    return *step_;
}

OpRef ProgramChain::blocking(std::string name, GenCollective c, GenGroup g, uint64_t bytes) {
    GenOp op = comm_op(std::move(name), GenOpKind::Collective, bytes);
    op.collective = c;
    op.group = g;
    const OpRef r = p_.add(std::move(op), both());
    step_ = comm_ = r;
    return r;
}

OpRef ProgramChain::overlapped(std::string name, GenCollective c, GenGroup g, uint64_t bytes) {
    GenOp op = comm_op(std::move(name), GenOpKind::Collective, bytes);
    op.collective = c;
    op.group = g;
    comm_ = p_.add(std::move(op), both());
    return *comm_;
}

OpRef ProgramChain::send(std::string name, int peer_stage, int32_t tag, uint64_t bytes) {
    GenOp op = comm_op(std::move(name), GenOpKind::Send, bytes);
    op.peer_stage = static_cast<int8_t>(peer_stage);
    op.tag = tag;
    comm_ = p_.add(std::move(op), both());
    return *comm_;
}

OpRef ProgramChain::recv(std::string name, int peer_stage, int32_t tag, uint64_t bytes) {
    GenOp op = comm_op(std::move(name), GenOpKind::Recv, bytes);
    op.peer_stage = static_cast<int8_t>(peer_stage);
    op.tag = tag;
    step_ = step_ ? p_.add(std::move(op), {*step_}) : p_.add(std::move(op), {});
    return *step_;
}

OpRef ProgramChain::compute_after_all(std::string name, uint64_t flops, uint64_t bytes, int kernels) {
    GenOp op;
    op.name = std::move(name);
    op.flops = flops;
    op.bytes = bytes;
    op.duration_us = cost_.duration_us(flops, bytes, kernels);
    step_ = p_.add(std::move(op), both());
    return *step_;
}

}  // namespace mimic::compose

// Plans the Chakra nodes of a PyTorch execution trace: which ET nodes become
// Chakra nodes, their types, dependencies, timing and attributes. Writing
// the plan out is chakra_writer's job.
//
// Which ET nodes become Chakra nodes (the same cut Chakra's own converter
// makes, where an ET node's children run inside it):
// - a "top-level operator": an operator (a node with a schema), a Triton
//   kernel node (attr kernel_backend), or a record_param_comms marker, none
//   of whose ancestors is one of these. Its children (aten::addmm under
//   aten::linear, record_param_comms and nccl:* under c10d::allreduce_)
//   only add facts to it: FLOPs, message size, process group.
// - Labels (ProfilerStep#N, user scopes, ## ... ## markers), autograd
//   wrappers, the thread and root nodes are containers, not work: the
//   operators under them are top-level. gloo:* labels on Gloo's worker
//   thread repeat the c10d op and are left out.
// - Each device event linked to an operator (Trace::device_events: kernels,
//   memcpys, memsets) is a COMP node with is_cpu_op false and a data dep on
//   the Chakra node that contains its launcher. An NCCL kernel of a
//   collective becomes the COMM node and the host op a COMP node, so the
//   transfer is counted once.
// - A collective with no device kernel (Gloo on CPU tensors) is two nodes:
//   the c10d call, a COMP node in its thread's program order, and the
//   collective, a COMM node after it under the next unused id, outside
//   program order. The call only queues the work on Gloo's threads and
//   returns (DDP's bucket all-reduces run during the backward); ops that
//   read or write its tensors wait for the collective through data deps,
//   the ops after it on the thread do not. It stays one COMM node in
//   program order, which the thread waits on, where the profile shows the
//   thread waiting (its next op starts only as the call's gloo:* event
//   ends: a synchronous dist.all_reduce; from the ET alone, where the
//   observer filed Gloo's label, see mark_waited_collectives), where the
//   id after the call is another node's (only that id keeps collectives in
//   their calls' order on every rank), and for a barrier (nothing to wait on).
// Dependencies: ctrl_deps give program order per thread (each top-level op
// depends on the previous one on its thread) and per stream (each device
// event on the previous one on its stream); data_deps give launch -> kernel
// and tensor producer -> consumer, by (tensor_id, storage_id) last writer
// (a collective writes its tensors in place).
// All point to nodes with smaller ids (ET ids are in start order; device
// events get ids after the largest ET id, in start order), so the graph has
// no cycles.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "io/chakra/chakra_comm.h"
#include "trace/trace.h"

namespace mimic {

struct ChakraPlanNode {
    uint64_t id = 0;
    uint32_t source = UINT32_MAX;        // index into Trace::nodes, or UINT32_MAX
    uint32_t device_event = UINT32_MAX;  // index into Trace::device_events, or UINT32_MAX
    ChakraNodeType type = ChakraNodeType::Comp;
    bool is_cpu_op = true;
    uint64_t start_us = 0;
    uint64_t duration_us = 0;
    uint32_t ctrl_begin = 0, ctrl_count = 0;  // into ChakraPlan::edges
    uint32_t data_begin = 0, data_count = 0;
    CommInfo comm;              // for COMM_* nodes
    // The collective half of a CPU collective split in two (see above); its
    // source is the c10d call, whose cost is the other half's.
    bool queued_collective = false;
    int64_t num_ops = -1;       // FLOPs; -1 unknown
    uint64_t tensor_size = 0;   // bytes of inputs + outputs
};

struct ChakraPlan {
    std::vector<ChakraPlanNode> nodes;  // in id order
    std::vector<uint64_t> edges;
    size_t et_nodes_skipped = 0;   // ET nodes folded into a top-level op or left out
    size_t unlinked_events = 0;    // device events with no launching operator
};

// Throws nothing on odd input: nodes it cannot place are counted, not fatal.
// `trace` must be finalized (Trace::finalize).
ChakraPlan plan_chakra_nodes(const Trace& trace);

// A plan node's name: its device event's (a kernel) or its ET node's.
std::string_view plan_node_name(const Trace& trace, const ChakraPlanNode& node);

}  // namespace mimic

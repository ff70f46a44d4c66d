// Sorts every node of a trace into one category, so that a breakdown by
// category sums to the whole trace: ATen ops, fused code (torch.compile,
// Triton), custom dispatcher ops, communication, device work (Chakra GPU
// nodes) and everything else (labels, autograd wrappers, thread markers).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace mimic::analysis {

enum class OpCategory : uint8_t {
    Aten,           // aten:: ops with a schema
    Fused,          // Triton kernels, names with "fused", torch.compile graph nodes
    Custom,         // ops with a schema outside aten::/c10d:: (fbgemm::, torchrec::, prims::...)
    Communication,  // c10d::*, record_param_comms, nccl:*, gloo:*, Chakra COMM_* nodes
    Label,          // no schema: record_function labels, autograd wrappers, root and thread nodes
    Device,         // device work written as nodes (Chakra nodes with is_cpu_op false, NCCL kernels included)
};
constexpr size_t kCategoryCount = 6;
constexpr std::array<OpCategory, kCategoryCount> kAllCategories = {
    OpCategory::Aten,  OpCategory::Fused, OpCategory::Custom, OpCategory::Communication,
    OpCategory::Label, OpCategory::Device};

// Stable lowercase key used in reports: "aten", "fused", "custom", "communication", "label", "device".
std::string_view category_key(OpCategory c);

inline bool is_operator(OpCategory c) { return c != OpCategory::Label && c != OpCategory::Device; }

struct NodeClass {
    OpCategory category = OpCategory::Label;
    bool on_device = false;  // device work: a Chakra node with is_cpu_op false
    // A piece after the first of a call Chakra's converter cut up
    // (trace/split_pieces.h): its time is the call's, it is not a call itself.
    bool later_piece = false;
    // Host operators are the nodes a profiler shows as ops: every category but
    // labels and device work. Only they hide the time of what runs inside them,
    // and only they are what a replay calls.
    bool is_host_operator() const { return !on_device && is_operator(category); }
};

// The class of each node, by position in Trace::nodes.
std::vector<NodeClass> classify_nodes(const Trace& trace);

// The category from a node's name, op schema and Triton/CPU attributes alone.
// Device work is "device" unless it is communication (an NCCL kernel written
// as a Chakra COMM_COLL node): what the work is decides the category.
// `kernel_backend` is the node's kernel_backend attr ("" if none); `is_cpu_op`
// is false only for Chakra nodes that say so.
OpCategory categorize(NodeKind kind, ChakraNodeType chakra_type, std::string_view name, std::string_view op_schema,
                      std::string_view kernel_backend, bool is_cpu_op);

}  // namespace mimic::analysis

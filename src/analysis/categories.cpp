#include "analysis/categories.h"

#include "trace/split_pieces.h"

#include <algorithm>
#include <cctype>

#include "support/text.h"

namespace mimic::analysis {
namespace {

bool contains_fused(std::string_view name) {
    // Case-insensitive: Inductor writes "triton_poi_fused_...", optimizers "FusedAdam".
    static constexpr std::string_view kWord = "fused";
    // cuDNN's "winograd_nonfused" kernels say the opposite.
    const auto lower = [](char a, char b) { return std::tolower(static_cast<unsigned char>(a)) == b; };
    for (auto it = name.begin();; ++it) {
        it = std::search(it, name.end(), kWord.begin(), kWord.end(), lower);
        if (it == name.end()) return false;
        const size_t at = static_cast<size_t>(it - name.begin());
        const bool negated = (at >= 3 && (name.substr(at - 3, 3) == "non" || name.substr(at - 3, 3) == "Non")) ||
                             (at >= 2 && (name.substr(at - 2, 2) == "un" || name.substr(at - 2, 2) == "Un"));
        if (!negated) return true;
    }
}

// The namespace of a schema or qualified name: "aten" for "aten::mm(...)".
std::string_view op_namespace(std::string_view qualified) {
    const size_t colons = qualified.find("::");
    const size_t paren = qualified.find('(');
    if (colons == std::string_view::npos || (paren != std::string_view::npos && paren < colons)) return {};
    return qualified.substr(0, colons);
}

bool is_comm_namespace(std::string_view ns) {
    return ns == "c10d" || ns == "_c10d_functional" || ns == "c10d_functional" || ns == "_c10d_functional_autograd";
}

bool is_communication(ChakraNodeType chakra_type, std::string_view name, std::string_view op_schema) {
    if (chakra_type == ChakraNodeType::CommColl || chakra_type == ChakraNodeType::CommSend ||
        chakra_type == ChakraNodeType::CommRecv)
        return true;
    if (name == "record_param_comms" || starts_with(name, "nccl:") || starts_with(name, "gloo:")) return true;
    return is_comm_namespace(op_namespace(op_schema.empty() ? name : op_schema));
}

bool is_fused(std::string_view name, std::string_view kernel_backend) {
    if (kernel_backend == "triton") return true;
    if (starts_with(name, "triton_") || contains_fused(name)) return true;
    // torch.compile: the autograd.Function wrapping a compiled graph, and the region around it.
    return starts_with(name, "CompiledFunction") || starts_with(name, "Torch-Compiled Region");
}

}  // namespace

std::string_view category_key(OpCategory c) {
    switch (c) {
        case OpCategory::Aten: return "aten";
        case OpCategory::Fused: return "fused";
        case OpCategory::Custom: return "custom";
        case OpCategory::Communication: return "communication";
        case OpCategory::Label: return "label";
        case OpCategory::Device: return "device";
    }
    return "label";
}

OpCategory categorize(NodeKind kind, ChakraNodeType chakra_type, std::string_view name, std::string_view op_schema,
                      std::string_view kernel_backend, bool is_cpu_op) {
    if (kind == NodeKind::Root || kind == NodeKind::Thread || kind == NodeKind::ProcessGroupInit)
        return OpCategory::Label;
    if (is_communication(chakra_type, name, op_schema)) return OpCategory::Communication;
    // Before the name tests: cuDNN kernels have "fused" in their names.
    if (!is_cpu_op) return OpCategory::Device;
    if (is_fused(name, kernel_backend)) return OpCategory::Fused;
    if (!op_schema.empty()) return op_namespace(op_schema) == "aten" ? OpCategory::Aten : OpCategory::Custom;
    // An operator the profile alone knows (a cpu_op event): by its name's namespace.
    if (kind == NodeKind::Operator) return op_namespace(name) == "aten" ? OpCategory::Aten : OpCategory::Custom;
    return OpCategory::Label;
}

std::vector<NodeClass> classify_nodes(const Trace& trace) {
    const StrId kernel_backend_key = trace.strings.find("kernel_backend");
    const StrId is_cpu_op_key = trace.strings.find("is_cpu_op");
    const std::vector<uint8_t> later_piece = later_split_pieces(trace);
    std::vector<NodeClass> out;
    out.reserve(trace.nodes.size());
    for (const Node& node : trace.nodes) {
        std::string_view backend;
        bool cpu = true;
        // One pass over the node's few extra attrs; keys absent from the trace
        // intern to the empty id, which no attr name equals.
        for (uint32_t i = 0; i < node.attrs.count; ++i) {
            const Attr& a = trace.attrs[node.attrs.begin + i];
            if (kernel_backend_key.value != 0 && a.name == kernel_backend_key && a.value.kind == ValueKind::String)
                backend = trace.str(a.value.payload.str);
            else if (is_cpu_op_key.value != 0 && a.name == is_cpu_op_key) {
                if (a.value.kind == ValueKind::Bool) cpu = a.value.payload.b;
                if (a.value.kind == ValueKind::Int) cpu = a.value.payload.i != 0;
            }
        }
        const std::string_view name = trace.name(node);
        out.push_back({categorize(node.kind, node.chakra_type, name, trace.str(node.op_schema), backend, cpu), !cpu,
                       later_piece[out.size()] != 0});
    }
    return out;
}

}  // namespace mimic::analysis

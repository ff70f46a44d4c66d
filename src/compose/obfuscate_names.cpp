#include "compose/obfuscate_names.h"

#include <array>
#include <cctype>

#include "support/text.h"

namespace mimic::compose {
namespace {

constexpr std::string_view kAutogradPrefix = "autograd::engine::evaluate_function: ";

// Operator namespaces PyTorch registers itself; any other namespace is a
// custom op library, whose op names say what the owner built.
constexpr std::array<std::string_view, 9> kFrameworkNamespaces = {
    "aten", "prim", "c10d", "_c10d_functional", "c10d_functional", "quantized", "profiler", "_quantized", "inductor"};

// Labels PyTorch's own code puts around ops (autograd, DDP, the profiler,
// torch.compile), seen in real traces.
constexpr std::array<std::string_view, 14> kFrameworkLabels = {
    "record_param_comms", "## process_group:init ##", "DistributedDataParallel.forward", "detach", "detach_",
    "torch::autograd::AccumulateGrad", "torch::autograd::CopySlices", "torch::autograd::GraphRoot", "CompiledFunction",
    "TorchDynamo Cache Lookup", "Pregraph bytecode", "AOTDispatcher Runtime Wrapper Prologue",
    "torch::distributed::reducer::mul_out", "torch.distributed.ddp.reducer::copy_bucket_to_grad"};

constexpr std::array<std::string_view, 15> kTorchOptimizers = {
    "SGD", "Adam", "AdamW", "Adagrad", "Adadelta", "Adamax", "ASGD", "LBFGS", "NAdam", "RAdam", "RMSprop", "Rprop",
    "SparseAdam", "Adafactor", "Optimizer"};

bool is_identifier(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') return false;
    return true;
}

// gloo:all_reduce, nccl:broadcast: the label a backend puts on a collective.
bool is_backend_label(std::string_view name) {
    for (std::string_view backend : {"gloo:", "nccl:", "mpi:", "ucc:", "xccl:"})
        if (starts_with(name, backend)) {
            std::string_view rest = name.substr(backend.size());
            for (char c : rest)
                if (!std::islower(static_cast<unsigned char>(c)) && c != '_') return false;
            return !rest.empty();
        }
    return false;
}

// "AddmmBackward0", "CopyBackwards": the form of an autograd function's name.
bool looks_like_backward(std::string_view name) {
    size_t at = name.rfind("Backward");
    if (at == std::string_view::npos || at == 0 || !std::isupper(static_cast<unsigned char>(name[0]))) return false;
    std::string_view tail = name.substr(at + 8);
    return tail.empty() || tail == "s" || all_digits(tail);
}

}  // namespace

bool all_digits(std::string_view s) {
    if (s.empty()) return false;
    for (char c : s)
        if (!std::isdigit(static_cast<unsigned char>(c))) return false;
    return true;
}

std::string squash_op_name(std::string_view name) {
    std::string out;
    for (char c : name)
        if (c != '_') out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}

std::string_view optimizer_class(std::string_view label) {
    for (std::string_view head : {"Optimizer.step#", "Optimizer.zero_grad#"}) {
        if (!starts_with(label, head)) continue;
        std::string_view rest = label.substr(head.size());
        size_t dot = rest.find('.');
        return dot == std::string_view::npos ? std::string_view() : rest.substr(0, dot);
    }
    return {};
}

bool is_torch_optimizer(std::string_view cls) {
    for (std::string_view o : kTorchOptimizers)
        if (o == cls) return true;
    return false;
}

NameKind classify_name(std::string_view name) {
    if (starts_with(name, "[pytorch|profiler|")) return NameKind::FrameworkLabel;
    if (starts_with(name, "ProfilerStep#") && all_digits(name.substr(13))) return NameKind::FrameworkLabel;
    if (starts_with(name, "Torch-Compiled Region: ")) return NameKind::FrameworkLabel;
    // The profiler's own events: [memory], [OutOfMemory], [pytorch|...].
    if (name.size() > 2 && name.front() == '[' && name.back() == ']' && name.find('|') == std::string_view::npos &&
        is_identifier(name.substr(1, name.size() - 2)))
        return NameKind::FrameworkLabel;
    if (is_backend_label(name)) return NameKind::FrameworkLabel;
    for (std::string_view label : kFrameworkLabels)
        if (label == name) return NameKind::FrameworkLabel;
    if (starts_with(name, kAutogradPrefix) || looks_like_backward(name)) return NameKind::AutogradNode;
    if (!optimizer_class(name).empty()) return NameKind::OptimizerLabel;
    // Generated kernels of torch.compile: named after the ATen ops they fuse.
    if (starts_with(name, "triton_") && is_identifier(name)) return NameKind::FrameworkLabel;
    size_t sep = name.find("::");
    if (sep != std::string_view::npos && sep > 0) {
        std::string_view ns = name.substr(0, sep);
        std::string_view op = name.substr(sep + 2);
        if (is_identifier(ns) && is_identifier(op)) {
            for (std::string_view f : kFrameworkNamespaces)
                if (f == ns) return NameKind::FrameworkOp;
            return NameKind::CustomOp;
        }
    }
    return NameKind::UserLabel;
}

bool autograd_function_is_builtin(std::string_view function, const std::unordered_set<std::string>& aten_ops) {
    if (classify_name(function) == NameKind::FrameworkLabel) return true;  // torch::autograd::AccumulateGrad
    if (!looks_like_backward(function)) return false;
    std::string stem = squash_op_name(function.substr(0, function.rfind("Backward")));
    if (stem == "copy" || stem == "copyslices") return true;
    // MaxPool2DWithIndicesBackward0 for aten::max_pool2d_with_indices, DivBackward1 for aten::div.
    return aten_ops.count(stem) > 0;
}

namespace {

std::string_view trim(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

// "Tensor(a!) self=None" -> "Tensor(a!) argN"; "*" stays. Types never hold a
// space outside brackets, so the last top-level space ends the type.
std::string anonymize_arguments(std::string_view list, const char* prefix) {
    std::string out;
    int depth = 0, index = 0;
    size_t start = 0;
    for (size_t i = 0; i <= list.size(); ++i) {
        char c = i < list.size() ? list[i] : ',';
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (c != ',' || depth > 0) continue;
        std::string_view piece = trim(list.substr(start, i - start));
        start = i + 1;
        if (piece.empty()) continue;
        if (!out.empty()) out += ", ";
        if (piece == "*") {
            out += "*";
            continue;
        }
        std::string_view no_default = piece.substr(0, piece.find('='));
        size_t space = std::string_view::npos;
        int d = 0;
        for (size_t k = 0; k < no_default.size(); ++k) {
            if (no_default[k] == '(' || no_default[k] == '[') ++d;
            if (no_default[k] == ')' || no_default[k] == ']') --d;
            if (no_default[k] == ' ' && d == 0) space = k;
        }
        std::string_view type = space == std::string_view::npos ? trim(no_default) : trim(no_default.substr(0, space));
        out += std::string(type);
        if (space != std::string_view::npos) out += std::string(" ") + prefix + std::to_string(index);
        ++index;
    }
    return out;
}

}  // namespace

std::string anonymize_schema(std::string_view schema, std::string_view alias) {
    size_t open = schema.find('(');
    if (open == std::string_view::npos) return std::string(alias);
    int depth = 0;
    size_t close = std::string_view::npos;
    for (size_t i = open; i < schema.size(); ++i) {
        if (schema[i] == '(') ++depth;
        if (schema[i] == ')' && --depth == 0) {
            close = i;
            break;
        }
    }
    if (close == std::string_view::npos) return std::string(alias);
    std::string out = std::string(alias) + "(" + anonymize_arguments(schema.substr(open + 1, close - open - 1), "arg") + ")";
    size_t arrow = schema.find("->", close);
    if (arrow == std::string_view::npos) return out;
    std::string_view ret = trim(schema.substr(arrow + 2));
    if (!ret.empty() && ret.front() == '(' && ret.back() == ')')
        out += " -> (" + anonymize_arguments(ret.substr(1, ret.size() - 2), "out") + ")";
    else
        out += " -> " + std::string(ret.substr(0, ret.find(' ')));
    return out;
}

bool is_plain_type(std::string_view type) {
    // Every PyTorch type string is made of these (complex dtypes are written
    // as templates: "Tensor(c10::complex<float>)"); a class path has dots.
    for (char c : type)
        if (!std::isalnum(static_cast<unsigned char>(c)) && std::string_view("[](),: _*?<>").find(c) == std::string_view::npos)
            return false;
    return type.find("__torch__") == std::string_view::npos;
}

}  // namespace mimic::compose

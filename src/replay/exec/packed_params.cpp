#include "replay/exec/packed_params.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/jit_type.h>
#include <ATen/ops/quantize_per_tensor.h>
#include <ATen/ops/randn.h>

#include <algorithm>
#include <optional>
#include <string_view>

namespace mimic::replay {
namespace {

constexpr std::string_view kLinearPacked = "LinearPackedParamsBase";

bool ends_with(std::string_view s, std::string_view tail) {
    return s.size() >= tail.size() && s.substr(s.size() - tail.size()) == tail;
}

// The last dimension of a recorded tensor value, if it is a tensor of rank >= 1.
std::optional<int64_t> last_dim(const Trace& trace, const Value* v) {
    if (!v || v->kind != ValueKind::Tensor) return std::nullopt;
    const TensorMeta& m = trace.tensor(*v);
    if (m.undefined || m.rank == 0) return std::nullopt;
    return trace.shape(m)[m.rank - 1];
}

// The first tensor output of the recorded call.
const Value* first_tensor_output(const Trace& trace, NodeIndex node) {
    const ValueRange& outputs = trace.nodes[node.value].outputs;
    for (uint32_t k = 0; k < outputs.count; ++k) {
        const Value* v = trace.value_ptr(outputs, k);
        if (v->kind == ValueKind::Tensor) return v;
    }
    return nullptr;
}

std::string linear_packed(const ValidValueContext& ctx, c10::IValue& out) {
    // Every quantized linear op takes its input first.
    const Value* input = ctx.args.empty() ? nullptr : ctx.args[0].recorded;
    const std::optional<int64_t> in_features = last_dim(ctx.trace, input);
    const std::optional<int64_t> out_features = last_dim(ctx.trace, first_tensor_output(ctx.trace, ctx.node));
    if (!in_features || !out_features || *in_features <= 0 || *out_features <= 0)
        return "the packed weight's shape needs the input's and the output's last dimensions, which the trace lacks";
    const bool fp16 = ctx.op_name.find("fp16") != std::string_view::npos;
    const auto options = at::TensorOptions().dtype(at::kFloat);
    at::Tensor weight = at::randn({*out_features, *in_features}, options);
    weight.mul_(0.05);
    if (!fp16) weight = at::quantize_per_tensor(weight, 0.002, 0, at::kQInt8);
    at::Tensor bias = at::randn({*out_features}, options);
    const auto& prepack = c10::Dispatcher::singleton().findSchema(
        {fp16 ? "quantized::linear_prepack_fp16" : "quantized::linear_prepack", ""});
    if (!prepack) return "this libtorch has no quantized::linear_prepack to rebuild the packed weight";
    try {
        torch::jit::Stack stack{weight, bias};
        prepack->callBoxed(stack);
        out = stack.at(0);
    } catch (const std::exception& e) {
        std::string what = e.what();
        return "rebuilding the packed weight failed: " + what.substr(0, what.find('\n'));
    }
    return {};
}

}  // namespace

std::string packed_params(const ValidValueContext& ctx, std::vector<std::pair<size_t, c10::IValue>>& overrides) {
    const auto& formals = ctx.schema.arguments();
    for (size_t i = 0; i < formals.size() && i < ctx.args.size(); ++i) {
        if (formals[i].type()->kind() != c10::TypeKind::ClassType) continue;
        if (std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == i; })) continue;
        const std::string cls = formals[i].type()->str();
        c10::IValue value;
        std::string why = ends_with(cls, kLinearPacked)
                              ? linear_packed(ctx, value)
                              : "the trace records a " + cls + " only as an object, and the replay cannot rebuild one";
        if (!why.empty()) return "argument " + std::to_string(i) + " '" + formals[i].name() + "': " + why;
        overrides.emplace_back(i, std::move(value));
    }
    return {};
}

}  // namespace mimic::replay

#include "replay/exec/packed_params.h"

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/jit_type.h>
#include <ATen/ops/quantize_per_tensor.h>
#include <ATen/ops/randn.h>

#include <algorithm>
#include <optional>
#include <string_view>

#include "support/text.h"

namespace mimic::replay {
namespace {

constexpr std::string_view kLinearPacked = "LinearPackedParamsBase";
constexpr std::string_view kCellParams = "CellParamsBase";

// The recorded shape of a tensor value (a list's first tensor), if it has one.
std::optional<std::vector<int64_t>> shape_of(const Trace& trace, const Value* v) {
    if (v && v->kind == ValueKind::List && v->payload.range.count > 0) v = &trace.values[v->payload.range.begin];
    if (!v || v->kind != ValueKind::Tensor) return std::nullopt;
    const TensorMeta& m = trace.tensor(*v);
    if (m.undefined || m.rank == 0) return std::nullopt;
    return std::vector<int64_t>(trace.shape(m), trace.shape(m) + m.rank);
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

// The recorded value of the schema argument called `name`, if recorded.
const Value* arg_named(const ValidValueContext& ctx, std::string_view name) {
    const auto& formals = ctx.schema.arguments();
    for (size_t i = 0; i < formals.size() && i < ctx.args.size(); ++i)
        if (formals[i].name() == name) return ctx.args[i].recorded;
    return nullptr;
}

std::string call(const char* op, torch::jit::Stack& stack, c10::IValue& out) {
    const auto& handle = c10::Dispatcher::singleton().findSchema({op, ""});
    if (!handle) return std::string("this libtorch has no ") + op + " to rebuild the packed weights";
    try {
        handle->callBoxed(stack);
        out = stack.at(0);
    } catch (const std::exception& e) {
        const std::string what = e.what();
        return std::string(op) + " failed: " + what.substr(0, what.find('\n'));
    }
    return {};
}

// A weight of [out, in] prepacked as quantized::linear_* takes it: int8 per
// tensor, or float for the fp16 kernels; a float bias unless `bias` is false.
std::string prepack_linear(int64_t out_features, int64_t in_features, bool fp16, bool bias, c10::IValue& out) {
    const auto options = at::TensorOptions().dtype(at::kFloat);
    at::Tensor weight = at::randn({out_features, in_features}, options);
    weight.mul_(0.05);
    if (!fp16) weight = at::quantize_per_tensor(weight, 0.002, 0, at::kQInt8);
    torch::jit::Stack stack{weight, bias ? c10::IValue(at::randn({out_features}, options)) : c10::IValue()};
    return call(fp16 ? "quantized::linear_prepack_fp16" : "quantized::linear_prepack", stack, out);
}

std::string linear_packed(const ValidValueContext& ctx, c10::IValue& out) {
    // Every quantized linear op takes its input first.
    const auto input = shape_of(ctx.trace, ctx.args.empty() ? nullptr : ctx.args[0].recorded);
    const auto output = shape_of(ctx.trace, first_tensor_output(ctx.trace, ctx.node));
    if (!input || !output || input->back() <= 0 || output->back() <= 0)
        return "the packed weight's shape needs the input's and the output's last dimensions, which the trace lacks";
    const bool fp16 = ctx.op_name.find("fp16") != std::string_view::npos;
    return prepack_linear(output->back(), input->back(), fp16, true, out);
}

// aten::quantized_lstm / quantized_gru: one CellParamsBase per layer and
// direction, each holding the gates' input and hidden weights, [G*H, in] and
// [G*H, H] (G = 4 gates for an LSTM, 3 for a GRU), `in` being the input's
// features for the first layer and H times the directions after it.
std::string cell_params(const ValidValueContext& ctx, const Value& recorded, const c10::TypePtr& element,
                        c10::IValue& out) {
    const int64_t gates = ctx.op_name.find("lstm") != std::string_view::npos  ? 4
                          : ctx.op_name.find("gru") != std::string_view::npos ? 3
                                                                              : 0;
    if (gates == 0) return "cell parameters of an op that is neither an LSTM nor a GRU";
    const auto input = shape_of(ctx.trace, ctx.args.empty() ? nullptr : ctx.args[0].recorded);
    const auto hidden = shape_of(ctx.trace, arg_named(ctx, "hx"));
    const Value* bidirectional = arg_named(ctx, "bidirectional");
    const Value* dtype = arg_named(ctx, "dtype");
    const Value* dynamic = arg_named(ctx, "use_dynamic");
    if (!input || !hidden || recorded.kind != ValueKind::List)
        return "the cell weights' shapes need the input's and the hidden state's shapes, which the trace lacks";
    // quantized_lstm says whether it is dynamic; quantized_gru has no such
    // argument and is dynamic when its input is float.
    const bool statically = dynamic ? dynamic->kind == ValueKind::Bool && !dynamic->payload.b
                                    : ctx.trace.str(ctx.trace.tensor(*ctx.args[0].recorded).dtype).find("int") != std::string_view::npos;
    if (statically) return "cell parameters of a statically quantized RNN (quantized inputs) are not rebuilt";
    const bool fp16 = dtype && dtype->kind == ValueKind::Int && dtype->payload.i == int64_t(c10::ScalarType::Half);
    const int64_t dirs = bidirectional && bidirectional->kind == ValueKind::Bool && bidirectional->payload.b ? 2 : 1;
    const int64_t features = input->back(), h = hidden->back();
    c10::impl::GenericList made(element);  // typed as the schema's list, which the kernel's unboxing checks
    for (uint32_t p = 0; p < recorded.payload.range.count; ++p) {
        const int64_t in = p / uint32_t(dirs) == 0 ? features : h * dirs;
        c10::IValue w_ih, w_hh, cell;
        std::string why = prepack_linear(gates * h, in, fp16, !fp16, w_ih);
        if (why.empty()) why = prepack_linear(gates * h, h, fp16, !fp16, w_hh);
        if (!why.empty()) return why;
        torch::jit::Stack stack{w_ih, w_hh};
        if (!fp16) {
            const auto options = at::TensorOptions().dtype(at::kFloat);
            stack.push_back(at::randn({gates * h}, options));
            stack.push_back(at::randn({gates * h}, options));
            stack.push_back(true);  // reduce_range, as quantize_dynamic packs them
        }
        why = call(fp16 ? "quantized::make_quantized_cell_params_fp16" : "quantized::make_quantized_cell_params_dynamic",
                   stack, cell);
        if (!why.empty()) return why;
        made.push_back(std::move(cell));
    }
    out = c10::IValue(std::move(made));
    return {};
}

}  // namespace

std::string packed_params(const ValidValueContext& ctx, std::vector<std::pair<size_t, c10::IValue>>& overrides) {
    const auto& formals = ctx.schema.arguments();
    for (size_t i = 0; i < formals.size() && i < ctx.args.size(); ++i) {
        const c10::TypePtr& type = formals[i].type();
        const bool is_list = type->kind() == c10::TypeKind::ListType;
        const c10::TypePtr& element = is_list ? type->castRaw<c10::ListType>()->getElementType() : type;
        if (element->kind() != c10::TypeKind::ClassType || !ctx.args[i].recorded) continue;
        if (std::any_of(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == i; })) continue;
        const std::string cls = element->str();
        c10::IValue value;
        std::string why;
        if (!is_list && ends_with(cls, kLinearPacked)) why = linear_packed(ctx, value);
        else if (is_list && ends_with(cls, kCellParams)) why = cell_params(ctx, *ctx.args[i].recorded, element, value);
        else why = "the trace records a " + type->str() + " only as objects, and the replay cannot rebuild one";
        if (!why.empty()) return "argument " + std::to_string(i) + " '" + formals[i].name() + "': " + why;
        overrides.emplace_back(i, std::move(value));
    }
    return {};
}

}  // namespace mimic::replay

#include "replay/exec/device_substitutes.h"

#include "replay/exec/op_resolver.h"

namespace mimic::replay {
namespace {

struct Recorded {
    const Trace& trace;
    const Node& node;
    const Value* in(uint32_t i) const { return i < node.inputs.count ? trace.value_ptr(node.inputs, i) : nullptr; }
    const Value* out(uint32_t i) const { return i < node.outputs.count ? trace.value_ptr(node.outputs, i) : nullptr; }
    ArgSource arg(uint32_t i) const { return ArgSource::of(in(i)); }
};

std::optional<Substitute> make(const char* name, const char* overload) {
    auto h = OpResolver::find(name, overload);
    if (!h) return std::nullopt;
    return Substitute{*h, {}, {}};
}

}  // namespace

std::optional<Substitute> substitute_for(std::string_view op_name, const Trace& trace, const Node& node) {
    const Recorded r{trace, node};
    if (op_name == "aten::cudnn_batch_norm_backward") {
        // cudnn: (input, grad_output, weight, running_mean, running_var, save_mean, save_var, epsilon, reserveSpace)
        // native: (grad_out, input, weight, running_mean, running_var, save_mean, save_invstd, train, eps, output_mask)
        // cuDNN's save_var holds the inverse std, like native's save_invstd.
        if (node.inputs.count < 8) return std::nullopt;
        auto s = make("aten::native_batch_norm_backward", "");
        if (!s) return s;
        s->args = {r.arg(1), r.arg(0), r.arg(2), r.arg(3), r.arg(4), r.arg(5), r.arg(6),
                   ArgSource::fixed(true), r.arg(7), ArgSource::fixed(c10::List<bool>({true, true, true}))};
        s->outputs = {r.out(0), r.out(1), r.out(2)};
        return s;
    }
    if (op_name == "aten::cudnn_batch_norm") {
        // (input, weight, bias, running_mean, running_var, training, exponential_average_factor, epsilon)
        // matches native_batch_norm's arguments; returns (out, save_mean, save_var, reserve).
        if (node.inputs.count < 8) return std::nullopt;
        auto s = make("aten::native_batch_norm", "");
        if (!s) return s;
        for (uint32_t i = 0; i < 8; ++i) s->args.push_back(r.arg(i));
        s->outputs = {r.out(0), r.out(1), r.out(2)};
        return s;
    }
    if (op_name == "aten::cudnn_convolution" || op_name == "aten::miopen_convolution") {
        // cudnn: (self, weight, padding, stride, dilation, groups, benchmark, deterministic, allow_tf32)
        // convolution: (input, weight, bias, stride, padding, dilation, transposed, output_padding, groups)
        if (node.inputs.count < 6) return std::nullopt;
        auto s = make("aten::convolution", "");
        if (!s) return s;
        const Value* pad = r.in(2);
        const int64_t spatial = pad && pad->kind == ValueKind::List ? pad->payload.range.count : 2;
        s->args = {r.arg(0), r.arg(1), ArgSource::fixed(c10::IValue()), r.arg(3), r.arg(2), r.arg(4),
                   ArgSource::fixed(false), ArgSource::fixed(c10::List<int64_t>(std::vector<int64_t>(size_t(spatial), 0))),
                   r.arg(5)};
        s->outputs = {r.out(0)};
        return s;
    }
    if (op_name == "aten::_fused_dropout") {
        // (self, p, generator) -> (out, mask); native_dropout(input, p, train) keeps with
        // probability p in _fused_dropout but drops with p in native_dropout.
        if (node.inputs.count < 2) return std::nullopt;
        const Value* p = r.in(1);
        if (!p || p->kind != ValueKind::Double) return std::nullopt;
        auto s = make("aten::native_dropout", "");
        if (!s) return s;
        s->args = {r.arg(0), ArgSource::fixed(1.0 - p->payload.d), ArgSource::fixed(true)};
        s->outputs = {r.out(0), nullptr};  // mask dtype differs (bool vs uint8): not fed forward
        return s;
    }
    return std::nullopt;
}

}  // namespace mimic::replay

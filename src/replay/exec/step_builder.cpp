#include "replay/exec/step_builder.h"

#include <ATen/core/jit_type.h>

#include "replay/exec/autocast_region.h"
#include "replay/exec/packed_params.h"
#include "replay/exec/valid_values.h"

namespace mimic::replay {

struct StepBuilder::Conversion {
    std::vector<TensorPatch> patches;
    bool list_patches = false;
};

namespace {

const char* kind_name(ValueKind k) {
    switch (k) {
        case ValueKind::None: return "None";
        case ValueKind::Int: return "Int";
        case ValueKind::Double: return "Double";
        case ValueKind::Bool: return "Bool";
        case ValueKind::String: return "String";
        case ValueKind::Device: return "Device";
        case ValueKind::Tensor: return "Tensor";
        case ValueKind::List: return "List";
        case ValueKind::Object: return "Object";
        case ValueKind::Generator: return "Generator";
        case ValueKind::Unknown: return "unknown";
    }
    return "?";
}

std::string mismatch(const c10::TypePtr& type, const Value& v) {
    return "schema wants " + type->str() + ", trace has " + kind_name(v.kind);
}

}  // namespace

bool StepBuilder::same_view(const TensorMeta& a, const TensorMeta& b) const {
    if (a.dtype != b.dtype || a.rank != b.rank || a.offset != b.offset) return false;
    for (uint16_t d = 0; d < a.rank; ++d)
        if (trace_.shape(a)[d] != trace_.shape(b)[d]) return false;
    if (a.has_strides && b.has_strides)
        for (uint16_t d = 0; d < a.rank; ++d)
            if (trace_.strides(a)[d] != trace_.strides(b)[d]) return false;
    return true;
}

std::string StepBuilder::tensor_arg(Conversion& c, uint16_t arg, int32_t elem, const Value& v, at::Tensor& out) {
    const uint32_t index = v.payload.index;
    const TensorMeta& meta = trace_.tensors[index];
    if (meta.undefined) return "a required tensor was not given";
    std::string why = pool_.reserve(meta);
    if (!why.empty()) return why;
    auto t = by_tensor_.find(meta.tensor_id);
    if (t != by_tensor_.end()) {
        auto s = t->second.find(meta.storage_id);
        if (s != t->second.end() && same_view(trace_.tensors[s->second.tensor_index], meta)) {
            c.patches.push_back({arg, elem, s->second.slot, index, -1, false});
            if (elem != kWholeArg) c.list_patches = true;
            return {};
        }
    }
    if (meta.storage_id != 0) {
        auto s = by_storage_.find(meta.storage_id);
        if (s != by_storage_.end() && trace_.tensors[s->second.tensor_index].dtype == meta.dtype) {
            TensorLayout layout;
            if (layout_of(trace_, meta, layout).empty()) {
                views_.push_back(std::move(layout));
                c.patches.push_back({arg, elem, s->second.slot, index, int32_t(views_.size() - 1), false});
                if (elem != kWholeArg) c.list_patches = true;
                return {};
            }
        }
    }
    out = pool_.view(meta);
    return {};
}

std::string StepBuilder::convert(Conversion& c, uint16_t arg, const c10::TypePtr& type, const Value& v,
                                 c10::IValue& out) {
    using K = c10::TypeKind;
    switch (type->kind()) {
        case K::OptionalType:
            if (v.kind == ValueKind::Tensor && trace_.tensor(v).undefined) {
                out = at::Tensor();  // what the original passed: an undefined tensor, not None
                return {};
            }
            if (v.kind == ValueKind::None || v.kind == ValueKind::Generator) {
                out = c10::IValue();
                return {};
            }
            return convert(c, arg, type->castRaw<c10::OptionalType>()->getElementType(), v, out);
        case K::TensorType: {
            if (v.kind != ValueKind::Tensor) return mismatch(type, v);
            at::Tensor t;
            std::string why = tensor_arg(c, arg, kWholeArg, v, t);
            out = std::move(t);
            return why;
        }
        case K::ListType: {
            const c10::TypePtr& elem = type->castRaw<c10::ListType>()->getElementType();
            const bool is_list = v.kind == ValueKind::List;
            const uint32_t n = is_list ? v.payload.range.count : 1;
            auto item = [&](uint32_t k) -> const Value& { return is_list ? trace_.values[v.payload.range.begin + k] : v; };
            switch (elem->kind()) {
                case K::TensorType: {
                    if (!is_list) return mismatch(type, v);
                    c10::List<at::Tensor> list;
                    list.reserve(n);
                    for (uint32_t k = 0; k < n; ++k) {
                        if (item(k).kind != ValueKind::Tensor) return "list element " + std::to_string(k) + ": " + mismatch(elem, item(k));
                        at::Tensor t;
                        std::string why = tensor_arg(c, arg, int32_t(k), item(k), t);
                        if (!why.empty()) return "list element " + std::to_string(k) + ": " + why;
                        list.push_back(std::move(t));
                    }
                    out = std::move(list);
                    return {};
                }
                case K::OptionalType: {
                    if (!is_list) return mismatch(type, v);
                    c10::List<c10::optional<at::Tensor>> list;
                    list.reserve(n);
                    for (uint32_t k = 0; k < n; ++k) {
                        const Value& e = item(k);
                        if (e.kind == ValueKind::None || (e.kind == ValueKind::Tensor && trace_.tensor(e).undefined)) {
                            list.push_back(c10::nullopt);
                            continue;
                        }
                        if (e.kind != ValueKind::Tensor) return "list element " + std::to_string(k) + ": " + mismatch(elem, e);
                        at::Tensor t;
                        std::string why = tensor_arg(c, arg, int32_t(k), e, t);
                        if (!why.empty()) return "list element " + std::to_string(k) + ": " + why;
                        list.push_back(std::move(t));
                    }
                    out = std::move(list);
                    return {};
                }
                case K::IntType:
                case K::SymIntType: {
                    c10::List<int64_t> list;
                    for (uint32_t k = 0; k < n; ++k) {
                        const Value& e = item(k);
                        if (e.kind == ValueKind::Int) list.push_back(e.payload.i);
                        else if (e.kind == ValueKind::Bool) list.push_back(e.payload.b);
                        else return "list element " + std::to_string(k) + ": " + mismatch(elem, e);
                    }
                    out = std::move(list);
                    return {};
                }
                case K::FloatType: {
                    c10::List<double> list;
                    for (uint32_t k = 0; k < n; ++k) {
                        const Value& e = item(k);
                        if (e.kind == ValueKind::Double) list.push_back(e.payload.d);
                        else if (e.kind == ValueKind::Int) list.push_back(double(e.payload.i));
                        else return "list element " + std::to_string(k) + ": " + mismatch(elem, e);
                    }
                    out = std::move(list);
                    return {};
                }
                case K::BoolType: {
                    c10::List<bool> list;
                    for (uint32_t k = 0; k < n; ++k) {
                        const Value& e = item(k);
                        if (e.kind == ValueKind::Bool) list.push_back(e.payload.b);
                        else if (e.kind == ValueKind::Int) list.push_back(e.payload.i != 0);
                        else return "list element " + std::to_string(k) + ": " + mismatch(elem, e);
                    }
                    out = std::move(list);
                    return {};
                }
                case K::NumberType: {
                    // Scalar[]: the per-tensor factors of the optimizers'
                    // _foreach_* ops (Adam's bias corrections, one per param).
                    c10::List<at::Scalar> list;
                    for (uint32_t k = 0; k < n; ++k) {
                        const Value& e = item(k);
                        if (e.kind == ValueKind::Double) list.push_back(e.payload.d);
                        else if (e.kind == ValueKind::Int) list.push_back(e.payload.i);
                        else if (e.kind == ValueKind::Bool) list.push_back(e.payload.b);
                        else return "list element " + std::to_string(k) + ": " + mismatch(elem, e);
                    }
                    out = std::move(list);
                    return {};
                }
                default:
                    return "argument type " + type->str() + " not supported";
            }
        }
        case K::IntType:
        case K::SymIntType:
        case K::ScalarTypeType:
        case K::LayoutType:
        case K::MemoryFormatType:
            if (v.kind == ValueKind::Int) out = v.payload.i;
            else if (v.kind == ValueKind::Bool) out = int64_t(v.payload.b);
            else return mismatch(type, v);
            return {};
        case K::FloatType:
            if (v.kind == ValueKind::Double) out = v.payload.d;
            else if (v.kind == ValueKind::Int) out = double(v.payload.i);
            else return mismatch(type, v);
            return {};
        case K::BoolType:
            if (v.kind == ValueKind::Bool) out = v.payload.b;
            else if (v.kind == ValueKind::Int) out = v.payload.i != 0;
            else return mismatch(type, v);
            return {};
        case K::NumberType:
            if (v.kind == ValueKind::Int) out = v.payload.i;
            else if (v.kind == ValueKind::Double) out = v.payload.d;
            else if (v.kind == ValueKind::Bool) out = v.payload.b;
            else return mismatch(type, v);
            return {};
        case K::StringType:
            if (v.kind != ValueKind::String) return mismatch(type, v);
            out = std::string(trace_.str(v.payload.str));
            return {};
        case K::DeviceObjType:
            // Traces recorded on a GPU replay on the pool's device.
            out = pool_.device();
            return {};
        case K::GeneratorType:
            out = c10::IValue();
            return {};
        default:
            return "argument type " + type->str() + " not supported";
    }
}

std::string StepBuilder::build(NodeIndex node, const c10::OperatorHandle& op, const std::vector<ArgSource>& args,
                               const std::vector<const Value*>& outputs, std::vector<Step>& steps) {
    const c10::FunctionSchema& schema = op.schema();
    const auto& formals = schema.arguments();
    if (args.size() > formals.size())
        return "trace has " + std::to_string(args.size()) + " inputs, schema takes " + std::to_string(formals.size());
    std::vector<std::pair<size_t, c10::IValue>> overrides;
    const ValidValueContext context{trace_.name(trace_.nodes[node.value]), node, schema, args, trace_, pool_};
    std::string why = valid_values(context, overrides);
    if (why.empty()) why = packed_params(context, overrides);
    if (!why.empty()) return why;

    Step step(op);
    step.unboxed = find_unboxed_call(op.operator_name());
    step.node = node;
    step.name = std::string(trace_.name(trace_.nodes[node.value]));
    // torch 1.13's CPU autocast runs bfloat16 only: a GPU trace's float16
    // region replays as before, without autocast, rather than not at all.
    if (const c10::ScalarType dtype = autocast_dtype(trace_, node); dtype == c10::kBFloat16) step.autocast = dtype;
    Conversion c;
    step.args.reserve(formals.size());
    for (size_t i = 0; i < formals.size(); ++i) {
        c10::IValue val;
        auto ov = std::find_if(overrides.begin(), overrides.end(), [&](const auto& o) { return o.first == i; });
        if (ov != overrides.end()) {
            val = ov->second;
        } else if (i < args.size() && args[i].is_constant) {
            val = args[i].constant;
        } else if (i < args.size() && args[i].recorded) {
            std::string bad = convert(c, uint16_t(i), formals[i].type(), *args[i].recorded, val);
            if (!bad.empty()) return "argument " + std::to_string(i) + " '" + formals[i].name() + "': " + bad;
        } else if (formals[i].default_value()) {
            val = *formals[i].default_value();
        } else {
            return "argument " + std::to_string(i) + " '" + formals[i].name() + "' not recorded and has no default";
        }
        step.args.push_back(std::move(val));
    }
    step.patches = std::move(c.patches);
    step.has_list_patches = c.list_patches;

    // Outputs: every tensor a later step may read gets a slot.
    auto bind = [&](uint16_t r, int32_t elem, const Value& v) {
        if (v.kind != ValueKind::Tensor) return;
        const TensorMeta& meta = trace_.tensor(v);
        if (meta.undefined || !pool_.reserve(meta).empty()) return;
        const uint32_t slot = next_slot_++;
        step.outputs.push_back({r, elem, slot, v.payload.index});
        by_tensor_[meta.tensor_id][meta.storage_id] = {slot, v.payload.index};
        if (meta.storage_id != 0) by_storage_[meta.storage_id] = {slot, v.payload.index};
    };
    for (size_t r = 0; r < outputs.size() && r < schema.returns().size(); ++r) {
        const Value* v = outputs[r];
        if (!v) continue;
        if (v->kind == ValueKind::List) {
            for (uint32_t k = 0; k < v->payload.range.count; ++k) bind(uint16_t(r), int32_t(k), trace_.values[v->payload.range.begin + k]);
        } else {
            bind(uint16_t(r), kWholeArg, *v);
        }
    }
    steps.push_back(std::move(step));
    return {};
}

}  // namespace mimic::replay

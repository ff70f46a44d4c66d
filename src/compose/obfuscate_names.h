// Which names of an execution trace belong to PyTorch (and may stay when a
// trace is shared) and which are the owner's (labels, module and custom op
// names, custom autograd functions and optimizers). The rule is by form, so a
// name PyTorch never writes is treated as the owner's: obfuscation errs on the
// side of renaming.
#pragma once

#include <string>
#include <string_view>
#include <unordered_set>

namespace mimic::compose {

enum class NameKind : uint8_t {
    FrameworkOp,     // aten::add, c10d::allreduce_, prim::... : kept, with its schema and arguments
    FrameworkLabel,  // a label PyTorch itself writes (ProfilerStep#3, gloo:all_reduce, thread roots): kept
    AutogradNode,    // "autograd::engine::evaluate_function: X": prefix kept, X judged by autograd_function_is_builtin
    OptimizerLabel,  // "Optimizer.step#C.step": kept when C is one of torch.optim's classes
    CustomOp,        // ns::op of a namespace that is not PyTorch's: renamed, with its schema dropped
    UserLabel,       // anything else (record_function labels, module names): renamed
};

NameKind classify_name(std::string_view name);

// Small words of the obfuscation rules.
bool all_digits(std::string_view s);
template <typename List>
bool contains(const List& list, std::string_view s) {
    for (std::string_view x : list)
        if (x == s) return true;
    return false;
}

// The X of an autograd node: PyTorch's own when it is AccumulateGrad-like or
// "<Op>Backward<N>" for an ATen op the trace runs (AddmmBackward0 for
// aten::addmm; `aten_ops` holds op names without the namespace and without
// underscores, lower case).
bool autograd_function_is_builtin(std::string_view function, const std::unordered_set<std::string>& aten_ops);

// "native_layer_norm" or "NativeLayerNorm" -> "nativelayernorm": how an ATen
// op name and its autograd function's name are compared.
std::string squash_op_name(std::string_view name);

// The class of an "Optimizer.step#C.step" / "Optimizer.zero_grad#C.zero_grad" label, "" when not one.
std::string_view optimizer_class(std::string_view label);
bool is_torch_optimizer(std::string_view cls);

// A custom op's schema with its name replaced by `alias` and its argument
// names by arg0, arg1... (defaults dropped), types kept: the op stays an
// operator with the same signature for every tool, without the owner's words.
std::string anonymize_schema(std::string_view schema, std::string_view alias);

// A type string that reveals nothing (Tensor(float), GenericList[Int], Device...);
// a TorchScript class path such as __torch__.mycompany.Thing does.
bool is_plain_type(std::string_view type);

}  // namespace mimic::compose

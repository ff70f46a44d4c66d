#include "model/op_family.h"

#include <array>

namespace mimic::model {
namespace {

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

bool is_any(std::string_view base, std::initializer_list<std::string_view> names) {
    for (std::string_view n : names)
        if (base == n) return true;
    return false;
}

constexpr std::array<const char*, static_cast<size_t>(OpFamily::kCount)> kNames = {
    "gemm", "conv", "embedding", "norm", "softmax", "attention", "reduction", "optimizer", "copy", "view", "elementwise", "other"};

}  // namespace

OpFamily family_of(std::string_view name) {
    std::string_view base = name;
    if (const auto colons = base.rfind("::"); colons != std::string_view::npos) base = base.substr(colons + 2);
    if (const auto dot = base.find('.'); dot != std::string_view::npos) base = base.substr(0, dot);
    while (!base.empty() && base.front() == '_') base.remove_prefix(1);
    if (is_any(base, {"mm", "addmm", "bmm", "baddbmm", "matmul", "linear", "addbmm", "dot", "mv", "addmv"})) return OpFamily::Gemm;
    if (contains(base, "conv")) return OpFamily::Conv;
    if (contains(base, "embedding")) return OpFamily::Embedding;
    if (contains(base, "batch_norm") || contains(base, "layer_norm") || contains(base, "group_norm") || contains(base, "instance_norm"))
        return OpFamily::Norm;
    if (contains(base, "scaled_dot_product") || contains(base, "attention")) return OpFamily::Attention;
    if (contains(base, "softmax") || contains(base, "nll_loss") || contains(base, "cross_entropy")) return OpFamily::Softmax;
    if (contains(base, "foreach") || contains(base, "fused_adam") || contains(base, "fused_sgd") ||
        is_any(base, {"add_", "mul_", "addcmul_", "addcdiv_", "lerp_", "sqrt_", "div_", "sub_", "zero_"}))
        return OpFamily::Optimizer;
    if (is_any(base, {"sum", "mean", "max", "min", "amax", "amin", "norm", "linalg_vector_norm", "prod", "var", "std", "var_mean",
                      "logsumexp", "argmax", "argmin", "all", "any", "cumsum"}))
        return OpFamily::Reduction;
    if (is_any(base, {"view", "reshape", "t", "transpose", "permute", "expand", "slice", "select", "as_strided", "unsqueeze",
                      "squeeze", "unflatten", "flatten", "alias", "detach", "unbind", "split", "chunk", "narrow", "view_as",
                      "expand_as", "unsafe_view", "reshape_alias", "resolve_conj", "resolve_neg", "split_with_sizes", "numpy_T",
                      "empty", "empty_like", "empty_strided", "set_", "lift_fresh"}))
        return OpFamily::View;
    if (is_any(base, {"copy_", "clone", "cat", "stack", "to", "contiguous", "index", "index_select", "gather", "scatter",
                      "scatter_add", "index_put_", "index_add", "masked_fill", "masked_fill_", "repeat", "pad", "constant_pad_nd",
                      "new_zeros", "zeros", "zeros_like", "ones", "ones_like", "full", "fill_", "tril_indices", "_to_copy",
                      "slice_backward", "select_backward", "index_select_backward", "unfold", "roll", "flip", "where",
                      "reflection_pad2d", "replication_pad2d", "tril", "triu", "arange"}))
        return OpFamily::Copy;
    if (name.rfind("aten::", 0) == 0) return OpFamily::Elementwise;
    return OpFamily::Other;
}

const char* family_name(OpFamily family) { return kNames[static_cast<size_t>(family)]; }

OpFamily family_from_name(std::string_view family) {
    for (size_t i = 0; i < kNames.size(); ++i)
        if (family == kNames[i]) return static_cast<OpFamily>(i);
    return OpFamily::Other;
}

}  // namespace mimic::model

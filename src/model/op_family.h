// Operator families of the cost models: ops of one family share a shape of
// cost (GEMMs by their FLOPs, elementwise ops by the bytes they touch...).
#pragma once

#include <string_view>

namespace mimic::model {

enum class OpFamily : uint8_t {
    Gemm,         // mm, addmm, bmm, baddbmm, matmul, linear
    Conv,         // convolutions and their backward
    Embedding,    // embedding, embedding_bag and their backward
    Norm,         // batch/layer/group norm and their backward
    Softmax,      // softmax, log_softmax and their backward, losses over them
    Attention,    // scaled dot-product attention
    Reduction,    // sum, mean, max, norm...
    Optimizer,    // in-place updates (add_, mul_, addcmul_, lerp_, foreach, fused)
    Copy,         // copy_, clone, cat, stack, to, contiguous, index ops
    View,         // view, reshape, transpose, slice...: metadata only
    Elementwise,  // everything pointwise
    Other,
    kCount
};

OpFamily family_of(std::string_view op_name);
const char* family_name(OpFamily family);
OpFamily family_from_name(std::string_view family);  // Other when unknown

}  // namespace mimic::model

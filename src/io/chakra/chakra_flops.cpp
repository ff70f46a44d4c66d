#include "io/chakra/chakra_flops.h"

#include <string_view>
#include <vector>

#include "trace/split_pieces.h"

namespace mimic {

namespace {

struct Shape {
    const int64_t* dims = nullptr;
    int rank = -1;  // -1: not a tensor with a recorded shape
    int64_t operator[](int i) const { return dims[i < 0 ? rank + i : i]; }
    int64_t product(int from = 0, int to = -1) const {
        if (to < 0) to = rank;
        int64_t p = 1;
        for (int i = from; i < to; ++i) p *= dims[i];
        return p;
    }
};

Shape shape_of(const Trace& trace, ValueRange side, uint32_t i) {
    if (i >= side.count) return {};
    const Value& v = trace.values[side.begin + i];
    if (v.kind != ValueKind::Tensor) return {};
    const TensorMeta& t = trace.tensors[v.payload.index];
    if (t.undefined || (t.rank == 0 && t.numel != 1)) return {};  // shape not recorded
    return {trace.shape(t), t.rank};
}

const Value* input(const Trace& trace, const Node& node, uint32_t i) {
    return i < node.inputs.count ? &trace.values[node.inputs.begin + i] : nullptr;
}

// 2 * batch * m * k * n for a (broadcast) matrix product a @ b.
int64_t matmul_flops(Shape a, Shape b) {
    if (a.rank < 1 || b.rank < 1) return -1;
    if (a.rank == 1 && b.rank == 1) return 2 * a[0];
    const int64_t m = a.rank >= 2 ? a[-2] : 1;
    const int64_t k = a[-1];
    const int64_t n = b.rank >= 2 ? b[-1] : 1;
    // Batch dims broadcast against each other, aligned from the right.
    const int batch_a = a.rank > 2 ? a.rank - 2 : 0;
    const int batch_b = b.rank > 2 ? b.rank - 2 : 0;
    int64_t batch = 1;
    for (int i = 0; i < (batch_a > batch_b ? batch_a : batch_b); ++i) {
        const int64_t da = i < batch_a ? a.dims[batch_a - 1 - i] : 1;
        const int64_t db = i < batch_b ? b.dims[batch_b - 1 - i] : 1;
        batch *= da > db ? da : db;
    }
    return 2 * batch * m * k * n;
}

// A convolution's FLOPs from its weight and the larger of its two sides:
// every output element (input element when transposed) takes
// C_in/groups * prod(kernel) multiply-adds.
int64_t conv_flops(Shape weight, Shape big_side) {
    if (weight.rank < 3 || big_side.rank < 3) return -1;
    return 2 * big_side.product() * weight[1] * weight.product(2);
}

bool is_transposed_flag(const Trace& trace, const Node& node, uint32_t index) {
    const Value* v = input(trace, node, index);
    return v && v->kind == ValueKind::Bool && v->payload.b;
}

}  // namespace

int64_t op_flops(const Trace& trace, const Node& node) {
    // A call Chakra's converter cut into pieces (trace/split_pieces.h): the
    // first piece carries the call's FLOPs, the others none, so that sums
    // over nodes count the call once.
    std::string_view name = first_piece_base(trace.str(node.name));
    if (name.substr(0, 6) != "aten::") return -1;
    name.remove_prefix(6);
    const ValueRange in = node.inputs;
    if (name == "mm" || name == "bmm" || name == "matmul") return matmul_flops(shape_of(trace, in, 0), shape_of(trace, in, 1));
    if (name == "addmm" || name == "baddbmm" || name == "addbmm")
        return matmul_flops(shape_of(trace, in, 1), shape_of(trace, in, 2));
    if (name == "linear") {
        Shape x = shape_of(trace, in, 0), w = shape_of(trace, in, 1);
        if (x.rank < 1 || w.rank != 2) return -1;
        return 2 * x.product(0, x.rank - 1) * w[0] * w[1];
    }
    if (name == "conv1d" || name == "conv2d" || name == "conv3d" || name == "convolution" || name == "_convolution" ||
        name == "cudnn_convolution" || name == "mkldnn_convolution" || name == "miopen_convolution" ||
        name == "_convolution_mode" || name == "slow_conv2d_forward" || name == "thnn_conv2d" ||
        name.substr(0, 14) == "conv_transpose" || name == "cudnn_convolution_transpose") {
        // convolution/_convolution(input, weight, bias, stride, padding, dilation, transposed, ...)
        const bool transposed = name.find("transpose") != std::string_view::npos ||
                                ((name == "convolution" || name == "_convolution") && is_transposed_flag(trace, node, 6));
        return conv_flops(shape_of(trace, in, 1), transposed ? shape_of(trace, in, 0) : shape_of(trace, node.outputs, 0));
    }
    if (name == "convolution_backward") {
        // (grad_output, input, weight, bias_sizes, stride, padding, dilation,
        //  transposed, output_padding, groups, output_mask): each of the input
        //  and weight gradients costs one forward convolution.
        const bool transposed = is_transposed_flag(trace, node, 7);
        const int64_t forward =
            conv_flops(shape_of(trace, in, 2), transposed ? shape_of(trace, in, 1) : shape_of(trace, in, 0));
        if (forward < 0) return -1;
        int64_t passes = 2;
        const Value* mask = input(trace, node, 10);
        if (mask && mask->kind == ValueKind::List && mask->payload.range.count >= 2) {
            passes = 0;
            for (uint32_t k = 0; k < 2; ++k) {
                const Value& m = trace.values[mask->payload.range.begin + k];
                if (m.kind == ValueKind::Bool && m.payload.b) ++passes;
            }
        }
        return forward * passes;
    }
    return -1;
}

}  // namespace mimic

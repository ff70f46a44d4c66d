// Operator schemas as libtorch 1.13's dispatcher prints them (FunctionSchema's
// text), which is what its execution-trace observer writes as op_schema and
// what the replay resolves an op by. Shared by the ETs mimic writes itself
// (generate --format et, calibrate's shape sweep).
#pragma once

namespace mimic::compose::schema {

inline constexpr const char* native_layer_norm =
    "aten::native_layer_norm(Tensor input, SymInt[] normalized_shape, Tensor? weight, Tensor? bias, float eps) -> (Tensor, Tensor, Tensor)";
inline constexpr const char* native_layer_norm_backward =
    "aten::native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, "
    "Tensor? weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)";
inline constexpr const char* addmm = "aten::addmm(Tensor self, Tensor mat1, Tensor mat2, *, Scalar beta=1, Scalar alpha=1) -> Tensor";
inline constexpr const char* mm = "aten::mm(Tensor self, Tensor mat2) -> Tensor";
inline constexpr const char* bmm = "aten::bmm(Tensor self, Tensor mat2) -> Tensor";
inline constexpr const char* view = "aten::view(Tensor(a) self, SymInt[] size) -> Tensor(a)";
inline constexpr const char* transpose = "aten::transpose.int(Tensor(a) self, int dim0, int dim1) -> Tensor(a)";
inline constexpr const char* t = "aten::t(Tensor(a) self) -> Tensor(a)";
inline constexpr const char* contiguous = "aten::contiguous(Tensor(a) self, *, MemoryFormat memory_format=0) -> Tensor(a)";
inline constexpr const char* mul_scalar = "aten::mul.Scalar(Tensor self, Scalar other) -> Tensor";
inline constexpr const char* softmax = "aten::softmax.int(Tensor self, int dim, ScalarType? dtype=None) -> Tensor";
inline constexpr const char* softmax_backward = "aten::_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor";
inline constexpr const char* add = "aten::add.Tensor(Tensor self, Tensor other, *, Scalar alpha=1) -> Tensor";
inline constexpr const char* add_ = "aten::add_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)";
inline constexpr const char* gelu = "aten::gelu(Tensor self, *, str approximate=\"none\") -> Tensor";
inline constexpr const char* gelu_backward = "aten::gelu_backward(Tensor grad_output, Tensor self, *, str approximate=\"none\") -> Tensor";
inline constexpr const char* embedding =
    "aten::embedding(Tensor weight, Tensor indices, int padding_idx=-1, bool scale_grad_by_freq=False, bool sparse=False) -> Tensor";
inline constexpr const char* embedding_backward =
    "aten::embedding_dense_backward(Tensor grad_output, Tensor indices, SymInt num_weights, int padding_idx, bool scale_grad_by_freq) -> Tensor";
inline constexpr const char* log_softmax = "aten::_log_softmax(Tensor self, int dim, bool half_to_float) -> Tensor";
inline constexpr const char* log_softmax_backward =
    "aten::_log_softmax_backward_data(Tensor grad_output, Tensor output, int dim, ScalarType input_dtype) -> Tensor";
inline constexpr const char* nll_loss = "aten::nll_loss_forward(Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index) -> (Tensor output, Tensor total_weight)";
inline constexpr const char* nll_loss_backward =
    "aten::nll_loss_backward(Tensor grad_output, Tensor self, Tensor target, Tensor? weight, int reduction, int ignore_index, Tensor total_weight) -> Tensor";
inline constexpr const char* ones_like =
    "aten::ones_like(Tensor self, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None, "
    "MemoryFormat? memory_format=None) -> Tensor";
inline constexpr const char* sum = "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor";
inline constexpr const char* cat = "aten::cat(Tensor[] tensors, int dim=0) -> Tensor";
inline constexpr const char* send =
    "c10d::send(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, int _2, int _3) -> __torch__.torch.classes.c10d.Work _0";
inline constexpr const char* recv =
    "c10d::recv_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, int _2, int _3) -> __torch__.torch.classes.c10d.Work _0";
inline constexpr const char* allreduce =
    "c10d::allreduce_(Tensor[] _0, __torch__.torch.classes.c10d.ProcessGroup _1, __torch__.torch.classes.c10d.ReduceOp _2, int _3) "
    "-> (Tensor[] _0, __torch__.torch.classes.c10d.Work _1)";
inline constexpr const char* linear = "aten::linear(Tensor input, Tensor weight, Tensor? bias=None) -> Tensor";
inline constexpr const char* conv2d =
    "aten::conv2d(Tensor input, Tensor weight, Tensor? bias=None, int[2] stride=1, int[2] padding=0, int[2] dilation=1, int groups=1) -> "
    "Tensor";
inline constexpr const char* conv_backward =
    "aten::convolution_backward(Tensor grad_output, Tensor input, Tensor weight, SymInt[]? bias_sizes, int[] stride, int[] padding, "
    "int[] dilation, bool transposed, int[] output_padding, int groups, bool[3] output_mask) -> (Tensor, Tensor, Tensor)";
inline constexpr const char* embedding_bag =
    "aten::embedding_bag.padding_idx(Tensor weight, Tensor indices, Tensor offsets, bool scale_grad_by_freq, int mode, bool sparse, "
    "Tensor? per_sample_weights, bool include_last_offset, int? padding_idx) -> (Tensor, Tensor, Tensor, Tensor)";
inline constexpr const char* layer_norm =
    "aten::layer_norm(Tensor input, int[] normalized_shape, Tensor? weight=None, Tensor? bias=None, float eps=1.0000000000000001e-05, "
    "bool cudnn_enable=True) -> Tensor";
inline constexpr const char* layer_norm_backward =
    "aten::native_layer_norm_backward(Tensor grad_out, Tensor input, SymInt[] normalized_shape, Tensor mean, Tensor rstd, Tensor? "
    "weight, Tensor? bias, bool[3] output_mask) -> (Tensor, Tensor, Tensor)";
inline constexpr const char* batch_norm =
    "aten::batch_norm(Tensor input, Tensor? weight, Tensor? bias, Tensor? running_mean, Tensor? running_var, bool training, float "
    "momentum, float eps, bool cudnn_enabled) -> Tensor";
inline constexpr const char* cross_entropy =
    "aten::cross_entropy_loss(Tensor self, Tensor target, Tensor? weight=None, int reduction=1, int ignore_index=-100, float "
    "label_smoothing=0.) -> Tensor";
inline constexpr const char* relu = "aten::relu(Tensor self) -> Tensor";
inline constexpr const char* sigmoid = "aten::sigmoid(Tensor self) -> Tensor";
inline constexpr const char* mul = "aten::mul.Tensor(Tensor self, Tensor other) -> Tensor";
inline constexpr const char* threshold_backward = "aten::threshold_backward(Tensor grad_output, Tensor self, Scalar threshold) -> Tensor";
inline constexpr const char* addcdiv_ = "aten::addcdiv_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)";
inline constexpr const char* addcmul_ = "aten::addcmul_(Tensor(a!) self, Tensor tensor1, Tensor tensor2, *, Scalar value=1) -> Tensor(a!)";
inline constexpr const char* sqrt = "aten::sqrt(Tensor self) -> Tensor";
inline constexpr const char* zero_ = "aten::zero_(Tensor(a!) self) -> Tensor(a!)";
inline constexpr const char* copy_ = "aten::copy_(Tensor(a!) self, Tensor src, bool non_blocking=False) -> Tensor(a!)";

inline constexpr const char* stack = "aten::stack(Tensor[] tensors, int dim=0) -> Tensor";
inline constexpr const char* new_empty =
    "aten::new_empty(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor";
inline constexpr const char* new_zeros =
    "aten::new_zeros(Tensor self, SymInt[] size, *, ScalarType? dtype=None, Layout? layout=None, Device? device=None, bool? pin_memory=None) "
    "-> Tensor";
inline constexpr const char* split_with_sizes = "aten::split_with_sizes(Tensor(a -> *) self, int[] split_sizes, int dim=0) -> Tensor(a)[]";
inline constexpr const char* unbind = "aten::unbind.int(Tensor(a -> *) self, int dim=0) -> Tensor(a)[]";
inline constexpr const char* narrow = "aten::narrow(Tensor(a) self, int dim, int start, int length) -> Tensor(a)";
inline constexpr const char* slice =
    "aten::slice.Tensor(Tensor(a) self, int dim=0, SymInt? start=None, SymInt? end=None, SymInt step=1) -> Tensor(a)";
inline constexpr const char* tril_indices =
    "aten::tril_indices(int row, int col, int offset=0, *, ScalarType? dtype=4, Layout? layout=None, Device? device=None, bool? "
    "pin_memory=None) -> Tensor";
inline constexpr const char* index = "aten::index.Tensor(Tensor self, Tensor?[] indices) -> Tensor";
inline constexpr const char* index_put_impl_ =
    "aten::_index_put_impl_(Tensor(a!) self, Tensor?[] indices, Tensor values, bool accumulate=False, bool unsafe=False) -> Tensor(a!)";
inline constexpr const char* bce_with_logits =
    "aten::binary_cross_entropy_with_logits(Tensor self, Tensor target, Tensor? weight=None, Tensor? pos_weight=None, int reduction=1) -> "
    "Tensor";
inline constexpr const char* sub_ = "aten::sub_.Tensor(Tensor(a!) self, Tensor other, *, Scalar alpha=1) -> Tensor(a!)";
inline constexpr const char* mul_ = "aten::mul_.Tensor(Tensor(a!) self, Tensor other) -> Tensor(a!)";
inline constexpr const char* div_scalar_ = "aten::div_.Scalar(Tensor(a!) self, Scalar other) -> Tensor(a!)";
inline constexpr const char* embedding_bag_backward =
    "aten::_embedding_bag_backward(Tensor grad, Tensor indices, Tensor offsets, Tensor offset2bag, Tensor bag_size, Tensor "
    "maximum_indices, int num_weights, bool scale_grad_by_freq, int mode, bool sparse, Tensor? per_sample_weights, int padding_idx=-1) "
    "-> Tensor";

}  // namespace mimic::compose::schema

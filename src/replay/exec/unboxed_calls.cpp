#include "replay/exec/unboxed_calls.h"

#include <ATen/ops/chunk_ops.h>
#include <ATen/ops/contiguous_ops.h>
#include <ATen/ops/empty_ops.h>
#include <ATen/ops/expand_ops.h>
#include <ATen/ops/item_ops.h>
#include <ATen/ops/narrow_ops.h>
#include <ATen/ops/new_zeros_ops.h>
#include <ATen/ops/ones_like_ops.h>
#include <ATen/ops/permute_ops.h>
#include <ATen/ops/reshape_ops.h>
#include <ATen/ops/select_ops.h>
#include <ATen/ops/slice_backward_ops.h>
#include <ATen/ops/slice_ops.h>
#include <ATen/ops/squeeze_ops.h>
#include <ATen/ops/stack_ops.h>
#include <ATen/ops/sub_ops.h>
#include <ATen/ops/t_ops.h>
#include <ATen/ops/transpose_ops.h>
#include <ATen/ops/tril_indices_ops.h>
#include <ATen/ops/unbind_ops.h>
#include <ATen/ops/unsqueeze_ops.h>
#include <ATen/ops/view_ops.h>
#include <ATen/ops/zero_ops.h>
#include <ATen/ops/zeros_ops.h>
#include <c10/core/SymIntArrayRef.h>

#include <string>
#include <unordered_map>
#include <vector>

namespace mimic::replay {
namespace {

using torch::jit::Stack;

bool tensor(const c10::IValue& v) { return v.isTensor(); }
bool ints(const c10::IValue& v) { return v.isIntList(); }
bool int_(const c10::IValue& v) { return v.isInt(); }
bool opt_int(const c10::IValue& v) { return v.isNone() || v.isInt(); }  // ScalarType, Layout, MemoryFormat, SymInt?
bool opt_device(const c10::IValue& v) { return v.isNone() || v.isDevice(); }
bool opt_bool(const c10::IValue& v) { return v.isNone() || v.isBool(); }
bool scalar(const c10::IValue& v) { return v.isInt() || v.isDouble() || v.isBool(); }
bool tensors(const c10::IValue& v) { return v.isTensorList(); }

c10::optional<c10::SymInt> opt_sym(const c10::IValue& v) {
    return v.isNone() ? c10::nullopt : c10::optional<c10::SymInt>(c10::SymInt(v.toInt()));
}

template <class T>
c10::optional<T> opt(const c10::IValue& v) {
    return v.isNone() ? c10::nullopt : c10::optional<T>(v.to<T>());
}

// The stack's last n values, which must be the op's arguments.
template <size_t N>
bool args_are(const Stack& s, bool (*const (&checks)[N])(const c10::IValue&)) {
    if (s.size() != N) return false;
    for (size_t i = 0; i < N; ++i)
        if (!checks[i](s[i])) return false;
    return true;
}

template <class R>
bool push(Stack& s, R&& result) {
    s.clear();
    s.emplace_back(std::forward<R>(result));
    return true;
}

bool empty_memory_format(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {ints, opt_int, opt_int, opt_device, opt_bool, opt_int};
    if (!args_are(s, kinds)) return false;
    const std::vector<int64_t> size = s[0].toIntVector();
    return push(s, at::_ops::empty_memory_format::call(c10::fromIntArrayRef(size), opt<at::ScalarType>(s[1]),
                                                       opt<at::Layout>(s[2]), opt<at::Device>(s[3]), opt<bool>(s[4]),
                                                       opt<at::MemoryFormat>(s[5])));
}

bool zeros(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {ints, opt_int, opt_int, opt_device, opt_bool};
    if (!args_are(s, kinds)) return false;
    const std::vector<int64_t> size = s[0].toIntVector();
    return push(s, at::_ops::zeros::call(c10::fromIntArrayRef(size), opt<at::ScalarType>(s[1]), opt<at::Layout>(s[2]),
                                         opt<at::Device>(s[3]), opt<bool>(s[4])));
}

bool ones_like(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, opt_int, opt_int, opt_device, opt_bool, opt_int};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    return push(s, at::_ops::ones_like::call(self, opt<at::ScalarType>(s[1]), opt<at::Layout>(s[2]), opt<at::Device>(s[3]),
                                             opt<bool>(s[4]), opt<at::MemoryFormat>(s[5])));
}

// op(self, sizes): view, reshape.
template <class Op>
bool self_and_sizes(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, ints};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    const std::vector<int64_t> sizes = s[1].toIntVector();
    return push(s, Op::call(self, c10::fromIntArrayRef(sizes)));
}

bool expand(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, ints, [](const c10::IValue& v) { return v.isBool(); }};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    const std::vector<int64_t> size = s[1].toIntVector();
    return push(s, at::_ops::expand::call(self, c10::fromIntArrayRef(size), s[2].toBool()));
}

bool permute(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, ints};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    const std::vector<int64_t> dims = s[1].toIntVector();
    return push(s, at::_ops::permute::call(self, dims));
}

// op(self): t, zero_, item.
template <class Op>
bool self_only(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor};
    if (!args_are(s, kinds)) return false;
    at::Tensor self = s[0].toTensor();
    return push(s, Op::call(self));
}

// op(self, int, int): transpose.int, select.int.
template <class Op>
bool self_int_int(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, int_, int_};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    return push(s, Op::call(self, s[1].toInt(), s[2].toInt()));
}

bool narrow(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, int_, int_, int_};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    return push(s, at::_ops::narrow::call(self, s[1].toInt(), s[2].toInt(), s[3].toInt()));
}

// op(self, int): unsqueeze, squeeze.dim, unbind.int.
template <class Op>
bool self_int(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, int_};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    return push(s, Op::call(self, s[1].toInt()));
}

bool contiguous(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, int_};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    return push(s, at::_ops::contiguous::call(self, static_cast<at::MemoryFormat>(s[1].toInt())));
}

bool slice(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, int_, opt_int, opt_int, int_};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    return push(s, at::_ops::slice_Tensor::call(self, s[1].toInt(), opt_sym(s[2]), opt_sym(s[3]), c10::SymInt(s[4].toInt())));
}

bool new_zeros(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, ints, opt_int, opt_int, opt_device, opt_bool};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    const std::vector<int64_t> size = s[1].toIntVector();
    return push(s, at::_ops::new_zeros::call(self, c10::fromIntArrayRef(size), opt<at::ScalarType>(s[2]),
                                             opt<at::Layout>(s[3]), opt<at::Device>(s[4]), opt<bool>(s[5])));
}

bool tril_indices(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {int_, int_, int_, opt_int, opt_int, opt_device, opt_bool};
    if (!args_are(s, kinds)) return false;
    return push(s, at::_ops::tril_indices::call(s[0].toInt(), s[1].toInt(), s[2].toInt(), opt<at::ScalarType>(s[3]),
                                                opt<at::Layout>(s[4]), opt<at::Device>(s[5]), opt<bool>(s[6])));
}

bool sub__tensor(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, tensor, scalar};
    if (!args_are(s, kinds)) return false;
    at::Tensor self = s[0].toTensor();
    const at::Tensor other = s[1].toTensor();
    return push(s, at::_ops::sub__Tensor::call(self, other, s[2].toScalar()));
}

bool stack(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensors, int_};
    if (!args_are(s, kinds)) return false;
    const std::vector<at::Tensor> list = s[0].toTensorVector();
    return push(s, at::_ops::stack::call(list, s[1].toInt()));
}

bool chunk(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, int_, int_};
    if (!args_are(s, kinds)) return false;
    const at::Tensor self = s[0].toTensor();
    return push(s, at::_ops::chunk::call(self, s[1].toInt(), s[2].toInt()));
}

bool slice_backward(Stack& s) {
    static bool (*const kinds[])(const c10::IValue&) = {tensor, ints, int_, int_, int_, int_};
    if (!args_are(s, kinds)) return false;
    const at::Tensor grad = s[0].toTensor();
    const std::vector<int64_t> sizes = s[1].toIntVector();
    return push(s, at::_ops::slice_backward::call(grad, c10::fromIntArrayRef(sizes), s[2].toInt(),
                                                  c10::SymInt(s[3].toInt()), c10::SymInt(s[4].toInt()),
                                                  c10::SymInt(s[5].toInt())));
}

}  // namespace

UnboxedCall find_unboxed_call(const c10::OperatorName& name) {
    static const std::unordered_map<std::string, UnboxedCall> calls = {
        {"aten::empty.memory_format", empty_memory_format},
        {"aten::zeros", zeros},
        {"aten::ones_like", ones_like},
        {"aten::view", self_and_sizes<at::_ops::view>},
        {"aten::reshape", self_and_sizes<at::_ops::reshape>},
        {"aten::expand", expand},
        {"aten::permute", permute},
        {"aten::t", self_only<at::_ops::t>},
        {"aten::transpose.int", self_int_int<at::_ops::transpose_int>},
        {"aten::select.int", self_int_int<at::_ops::select_int>},
        {"aten::narrow", narrow},
        {"aten::unsqueeze", self_int<at::_ops::unsqueeze>},
        {"aten::contiguous", contiguous},
        {"aten::zero_", self_only<at::_ops::zero_>},
        {"aten::item", self_only<at::_ops::item>},
        {"aten::unbind.int", self_int<at::_ops::unbind_int>},
        {"aten::slice.Tensor", slice},
        {"aten::new_zeros", new_zeros},
        {"aten::tril_indices", tril_indices},
        {"aten::sub_.Tensor", sub__tensor},
        {"aten::stack", stack},
        {"aten::chunk", chunk},
        {"aten::squeeze.dim", self_int<at::_ops::squeeze_dim>},
        {"aten::slice_backward", slice_backward},
    };
    auto it = calls.find(name.overload_name.empty() ? name.name : name.name + "." + name.overload_name);
    return it == calls.end() ? nullptr : it->second;
}

}  // namespace mimic::replay

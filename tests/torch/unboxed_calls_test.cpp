// The unboxed calls: each gives what the boxed call of the same operator
// gives, goes through the dispatcher (a RecordFunction event with the op's
// name, as the profiler saw the original's call), and leaves a stack it does
// not handle to the boxed call.
#include "replay/exec/unboxed_calls.h"

#include <ATen/ATen.h>
#include <ATen/record_function.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace mimic::replay {
namespace {

using torch::jit::Stack;

c10::OperatorHandle handle(const char* name, const char* overload) {
    return c10::Dispatcher::singleton().findSchemaOrThrow(name, overload);
}

// Names of the top-level RecordFunction events started while it lives.
class TopLevelEvents {
public:
    TopLevelEvents() {
        names().clear();
        depth() = 0;
        handle_ = at::addThreadLocalCallback(at::RecordFunctionCallback(
            [](const at::RecordFunction& fn) -> std::unique_ptr<at::ObserverContext> {
                if (depth()++ == 0) names().emplace_back(fn.name());
                return nullptr;
            },
            [](const at::RecordFunction&, at::ObserverContext*) { --depth(); }));
    }
    ~TopLevelEvents() { at::removeCallback(handle_); }
    static std::vector<std::string>& names() {
        static thread_local std::vector<std::string> n;
        return n;
    }

private:
    static int& depth() {
        static thread_local int d = 0;
        return d;
    }
    at::CallbackHandle handle_;
};

void expect_same(const c10::IValue& boxed, const c10::IValue& unboxed, const std::string& what) {
    if (boxed.isTensorList()) {
        ASSERT_TRUE(unboxed.isTensorList()) << what;
        const std::vector<at::Tensor> a = boxed.toTensorVector(), b = unboxed.toTensorVector();
        ASSERT_EQ(a.size(), b.size()) << what;
        for (size_t i = 0; i < a.size(); ++i) expect_same(a[i], b[i], what + "[" + std::to_string(i) + "]");
    } else if (boxed.isTensor()) {
        ASSERT_TRUE(unboxed.isTensor()) << what;
        const at::Tensor a = boxed.toTensor(), b = unboxed.toTensor();
        EXPECT_EQ(a.sizes(), b.sizes()) << what;
        EXPECT_EQ(a.strides(), b.strides()) << what;
        EXPECT_EQ(a.storage_offset(), b.storage_offset()) << what;
        EXPECT_EQ(a.dtype(), b.dtype()) << what;
        EXPECT_TRUE(at::equal(a, b)) << what;
    } else {
        ASSERT_TRUE(boxed.isScalar() && unboxed.isScalar()) << what;
        EXPECT_EQ(boxed.toScalar().toDouble(), unboxed.toScalar().toDouble()) << what;
    }
}

struct Case {
    const char* name;
    const char* overload;
    Stack args;
};

TEST(UnboxedCalls, GiveWhatTheBoxedCallGivesThroughTheDispatcher) {
    const at::Tensor x = at::arange(24, at::kFloat).reshape({2, 3, 4});
    const c10::IValue none;
    const c10::IValue cpu(c10::Device(c10::kCPU));
    const std::vector<Case> cases = {
        {"aten::empty", "memory_format", {std::vector<int64_t>{0}, int64_t(at::kByte), none, cpu, none, none}},
        {"aten::zeros", "", {std::vector<int64_t>{2, 3}, none, none, cpu, false}},
        {"aten::ones_like", "", {x, none, none, none, none, none}},
        {"aten::view", "", {x, std::vector<int64_t>{6, -1}}},
        {"aten::reshape", "", {x.transpose(0, 2), std::vector<int64_t>{24}}},
        {"aten::expand", "", {x.select(2, 0).unsqueeze(0), std::vector<int64_t>{5, 2, 3}, false}},
        {"aten::permute", "", {x, std::vector<int64_t>{2, 0, 1}}},
        {"aten::t", "", {x.select(0, 1)}},
        {"aten::transpose", "int", {x, int64_t(0), int64_t(2)}},
        {"aten::select", "int", {x, int64_t(1), int64_t(2)}},
        {"aten::narrow", "", {x, int64_t(2), int64_t(1), int64_t(2)}},
        {"aten::unsqueeze", "", {x, int64_t(-1)}},
        {"aten::contiguous", "", {x.transpose(1, 2), int64_t(at::MemoryFormat::Contiguous)}},
        {"aten::zero_", "", {x.clone()}},
        {"aten::item", "", {x.sum()}},
        {"aten::unbind", "int", {x, int64_t(1)}},
        {"aten::slice", "Tensor", {x, int64_t(2), int64_t(1), none, int64_t(2)}},
        {"aten::slice", "Tensor", {x, int64_t(0), none, int64_t(1), int64_t(1)}},
        {"aten::new_zeros", "", {x, std::vector<int64_t>{3, 2}, int64_t(at::kDouble), none, cpu, none}},
        {"aten::tril_indices", "", {int64_t(4), int64_t(4), int64_t(-1), int64_t(at::kLong), none, cpu, false}},
        {"aten::sub_", "Tensor", {x.clone(), x.select(0, 0), int64_t(2)}},
        {"aten::stack", "", {std::vector<at::Tensor>{x, x * 2}, int64_t(1)}},
        {"aten::chunk", "", {x, int64_t(2), int64_t(-1)}},
        {"aten::squeeze", "dim", {x.select(1, 0).unsqueeze(1), int64_t(1)}},
        {"aten::slice_backward", "", {x.narrow(0, 1, 1), std::vector<int64_t>{3, 3, 4}, int64_t(0), int64_t(1),
                                      int64_t(2), int64_t(1)}},
    };
    for (const Case& c : cases) {
        const std::string what = std::string(c.name) + "." + c.overload;
        const c10::OperatorHandle op = handle(c.name, c.overload);
        const UnboxedCall call = find_unboxed_call(op.operator_name());
        ASSERT_NE(call, nullptr) << what;
        // An in-place op writes its own copy of the inputs, so that the two results can differ.
        Stack boxed = c.args;
        if (std::string(c.name).back() == '_')
            for (c10::IValue& v : boxed)
                if (v.isTensor()) v = v.toTensor().clone();
        op.callBoxed(&boxed);
        Stack unboxed = c.args;
        {
            TopLevelEvents events;
            ASSERT_TRUE(call(unboxed)) << what;
            EXPECT_EQ(events.names(), std::vector<std::string>{c.name}) << what;
        }
        ASSERT_EQ(unboxed.size(), 1u) << what;
        if (std::string(c.name) == "aten::empty") {
            EXPECT_EQ(unboxed[0].toTensor().sizes(), boxed[0].toTensor().sizes());  // no values to compare
            EXPECT_EQ(unboxed[0].toTensor().dtype(), at::kByte);
        } else {
            expect_same(boxed[0], unboxed[0], what);
        }
    }
}

TEST(UnboxedCalls, LeaveStacksTheyDoNotHandleUntouched) {
    const c10::OperatorHandle view = handle("aten::view", "");
    const UnboxedCall call = find_unboxed_call(view.operator_name());
    ASSERT_NE(call, nullptr);
    Stack too_short{at::ones({4})};
    EXPECT_FALSE(call(too_short));
    EXPECT_EQ(too_short.size(), 1u);
    Stack wrong_type{at::ones({4}), int64_t(4)};  // an int where the size list goes
    EXPECT_FALSE(call(wrong_type));
    EXPECT_EQ(wrong_type.size(), 2u);
    // view.dtype has another schema: not handled.
    EXPECT_EQ(find_unboxed_call(handle("aten::view", "dtype").operator_name()), nullptr);
    EXPECT_EQ(find_unboxed_call(handle("aten::mm", "").operator_name()), nullptr);
}

}  // namespace
}  // namespace mimic::replay

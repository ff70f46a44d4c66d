// A model moved to channels-last, recorded by torch 1.13's own observer (no
// strides in the ET): the trace's conversions name the format, and the
// step's 4-D tensors from outside it get channels-last strides.
#include "analysis/channels_last.h"

#include <gtest/gtest.h>

#include <string>

#include "io/pytorch_et/et_reader.h"
#include "test_support.h"

namespace mimic {
namespace {

Trace read_fixture(const std::string& relative) {
    EtReadOptions options;
    options.progress = false;
    return read_pytorch_et(std::string(MIMIC_SOURCE_DIR) + "/tests/data/" + relative, options);
}

// The strides of input `k` of the first node named `op`; empty when it has none.
std::vector<int64_t> input_strides(const Trace& trace, std::string_view op, uint32_t k) {
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        if (trace.name(node) != op || k >= node.inputs.count) continue;
        const Value& v = *trace.value_ptr(node.inputs, k);
        if (v.kind != ValueKind::Tensor) return {};
        const TensorMeta& t = trace.tensor(v);
        if (!t.has_strides) return {};
        return {trace.strides(t), trace.strides(t) + t.rank};
    }
    return {};
}

TEST(ChannelsLast, ConversionsInTheTraceNameTheFormat) {
    const Trace trace = read_fixture("channels_last_1.13/conv_instance_norm.et.json.gz");
    const auto evidence = analysis::channels_last_evidence(trace);
    ASSERT_TRUE(evidence);
    EXPECT_EQ(evidence->format, 2);
    EXPECT_EQ(evidence->ops, 16u);  // contiguous, clone, empty_like, to and _to_copy with memory_format=ChannelsLast
    EXPECT_EQ(trace.name(trace.nodes[evidence->node.value]), "aten::contiguous");
}

TEST(ChannelsLast, TheStepsFourDimensionalInputsBecomeChannelsLast) {
    Trace trace = read_fixture("channels_last_1.13/conv_instance_norm.et.json.gz");
    // The input [2, 3, 8, 8], the two conv weights [8, 3, 3, 3] and [4, 8, 3, 3],
    // their gradients from the step before (zero_grad zeroes them) and their
    // SGD momentum buffers: what `.to(memory_format=...)` made channels-last.
    EXPECT_EQ(analysis::assume_channels_last_sources(trace, 2), 7u);
    EXPECT_EQ(input_strides(trace, "aten::conv2d", 0), (std::vector<int64_t>{192, 1, 24, 3}));  // the input, NHWC
    EXPECT_EQ(input_strides(trace, "aten::conv2d", 1), (std::vector<int64_t>{27, 1, 9, 3}));    // its weight
    // What an op of the step made is left to the op: InstanceNorm's output keeps no strides.
    EXPECT_TRUE(input_strides(trace, "aten::hardswish", 0).empty());
}

TEST(ChannelsLast, AContiguousModelShowsNone) {
    const Trace trace = read_fixture("scale_1.13/conv3d_pool.et.json.gz");
    EXPECT_FALSE(analysis::channels_last_evidence(trace));
}

}  // namespace
}  // namespace mimic

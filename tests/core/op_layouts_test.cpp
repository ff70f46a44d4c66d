// op_layouts.json: read strictly, and applied to a 1.13 ET (no strides) only
// where an op's tensors match the record one for one.
#include "io/recording/op_layouts.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "io/trace_loader.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

// A torch 1.13 (schema 1.0.1) step: mm on a transposed weight view, cat of a
// list of two tensors, and an op whose optional tensor was not given.
const char* kEt = R"J({"schema": "1.0.1", "pid": 1, "time": "2024-01-01 00:00:00", "start_ts": 0, "nodes": [
 {"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 0, "parent": 1, "fw_parent": 0,
  "seq_id": -1, "scope": 7, "tid": 0, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [],
  "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
 {"name": "aten::mm", "id": 2, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1,
  "fw_tid": 0, "op_schema": "aten::mm(Tensor self, Tensor mat2) -> Tensor",
  "inputs": [[10, 100, 0, 6, 4, "cpu"], [11, 101, 0, 12, 4, "cpu"]], "input_shapes": [[2, 3], [3, 4]],
  "input_types": ["Tensor(float)", "Tensor(float)"], "outputs": [[12, 102, 0, 8, 4, "cpu"]],
  "output_shapes": [[2, 4]], "output_types": ["Tensor(float)"]},
 {"name": "aten::cat", "id": 3, "rf_id": 2, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1,
  "fw_tid": 0, "op_schema": "aten::cat(Tensor[] tensors, int dim=0) -> Tensor",
  "inputs": [[[13, 103, 0, 2, 4, "cpu"], [14, 104, 0, 2, 4, "cpu"]], 0], "input_shapes": [[[2], [2]], []],
  "input_types": ["GenericList[Tensor(float),Tensor(float)]", "Int"], "outputs": [[15, 105, 0, 4, 4, "cpu"]],
  "output_shapes": [[4]], "output_types": ["Tensor(float)"]}
], "finish_ts": 1})J";

Trace et() { return load_trace(testing::scratch_file("op_layouts", "et.json", kEt)); }

OpLayouts read(const std::string& text) {
    return read_op_layouts(testing::scratch_file("op_layouts", "op_layouts.json", text));
}

std::vector<int64_t> strides_of(const Trace& t, uint64_t node_id, uint32_t k) {
    std::vector<const TensorMeta*> metas;
    const Node& n = t.nodes[t.find(NodeId(node_id)).value];
    for (uint32_t i = 0; i < n.inputs.count; ++i) {
        const Value& v = t.values[n.inputs.begin + i];
        if (v.kind == ValueKind::Tensor) metas.push_back(&t.tensors[v.payload.index]);
        if (v.kind == ValueKind::List)
            for (uint32_t j = 0; j < v.payload.range.count; ++j)
                metas.push_back(&t.tensors[t.values[v.payload.range.begin + j].payload.index]);
    }
    const TensorMeta& m = *metas.at(k);
    if (!m.has_strides) return {};
    return std::vector<int64_t>(t.strides(m), t.strides(m) + m.rank);
}

TEST(OpLayouts, TheRecordedStridesReachTheTensorsOfMatchingOps) {
    Trace t = et();
    const OpLayouts l = read(R"({"layouts": [[2, [[[2, 3], [3, 1], 0], [[3, 4], [1, 3], 0]]],
                                             [3, [[[2], [1], 0], [[2], [2], 1]]]]})");
    const LayoutsApplied a = apply_op_layouts(t, l);
    EXPECT_EQ(a.ops, 2u);
    EXPECT_EQ(a.tensors, 4u);
    EXPECT_EQ(a.mismatched_ops, 0u);
    EXPECT_EQ(strides_of(t, 2, 1), (std::vector<int64_t>{1, 3}));  // mat2 is a transposed view
    EXPECT_EQ(strides_of(t, 3, 1), (std::vector<int64_t>{2}));     // inside the list
    const TensorMeta& mat2 = t.tensors[t.values[t.nodes[t.find(NodeId(2)).value].inputs.begin + 1].payload.index];
    EXPECT_EQ(t.shape(mat2)[0], 3);  // the shape stays
    EXPECT_EQ(t.shape(mat2)[1], 4);
}

TEST(OpLayouts, AnOpThatDoesNotMatchKeepsTheTracesLayouts) {
    Trace t = et();
    const OpLayouts l = read(R"({"layouts": [[2, [[[2, 3], [3, 1], 0]]],
                                             [3, [[[2], [1], 0], [[3], [1], 0]]],
                                             [99, []]]})");
    const LayoutsApplied a = apply_op_layouts(t, l);
    EXPECT_EQ(a.ops, 0u);
    EXPECT_EQ(a.mismatched_ops, 3u);  // a tensor short, a size that differs, a node not in the trace
    EXPECT_TRUE(strides_of(t, 2, 1).empty());
    EXPECT_TRUE(strides_of(t, 3, 0).empty());
}

TEST(OpLayouts, FoundBesideMetaJsonOrNotAtAll) {
    const std::string meta = testing::scratch_file("op_layouts_beside", "meta.json", "{}");
    std::filesystem::remove(std::filesystem::path(meta).parent_path() / "op_layouts.json");
    EXPECT_FALSE(read_op_layouts_beside(meta).has_value());
    testing::scratch_file("op_layouts_beside", "op_layouts.json", R"({"layouts": [[1, [null]]]})");
    ASSERT_TRUE(read_op_layouts_beside(meta).has_value());
    EXPECT_FALSE(read_op_layouts_beside(meta)->ops[0].second[0].has_value());
}

TEST(OpLayouts, BadFilesNameTheFieldThatIsWrong) {
    struct Case {
        const char* text;
        const char* says;
    } cases[] = {
        {"[]", "not a JSON object"},
        {R"({"layouts": 1})", "layouts"},
        {R"({"layouts": [[1]]})", "layouts[0]"},
        {R"({"layouts": [[1, [[[2], [1, 1], 0]]]]})", "layouts[0][1][0]"},
        {R"({"layouts": [[1, [[[2], [-1], 0]]]]})", "layouts[0][1][0]"},
        {R"({"layouts": [[1, [null, [[2], [1]]]]]})", "layouts[0][1][1]"},
        {R"({"layouts": [[1, [[[2], [1], -3]]]]})", "layouts[0][1][0]"},
    };
    for (const Case& c : cases) {
        std::string error;
        try {
            read(c.text);
        } catch (const Error& e) {
            error = e.what();
        }
        EXPECT_NE(error.find(c.says), std::string::npos) << c.text << ": " << error;
        EXPECT_NE(error.find("op_layouts.json"), std::string::npos) << error;
    }
}

}  // namespace
}  // namespace mimic

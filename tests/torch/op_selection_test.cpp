// Which ops a multi-rank replay runs when the ET files later ops under a c10d
// op (PyTorch 1.13 + Gloo, rank 2 of a 4-rank ddp_mlp recording; see
// tests/recorded_et_samples.h).
#include <gtest/gtest.h>

#include <fstream>

#include "io/trace_loader.h"
#include "replay/op_selection.h"
#include "recorded_et_samples.h"
#include "test_support.h"

namespace mimic::replay {
namespace {

TEST(OpSelection, OpsFiledUnderAC10dOpAreTopLevel) {
    const char* et = testing::kEtOpsFiledUnderAC10dOp;
    const std::string path = testing::scratch_dir("selection_c10d_nesting") + "/et.json";
    {
        std::ofstream(path) << et;
    }
    const Trace t = load_trace(path);
    SelectionOptions o;
    o.collectives = true;
    const Selection sel = select_ops(t, o);
    std::vector<uint64_t> ids;
    for (NodeIndex n : sel.ops) ids.push_back(t.nodes[n.value].id.value);
    EXPECT_EQ(ids, (std::vector<uint64_t>{589, 640, 648}));
    ASSERT_EQ(sel.collectives.size(), 2u);
    EXPECT_EQ(sel.collectives[1].input_bytes, 65792u * 4);

    // One process: the collectives are left out with the reason, aten::add_ still runs.
    const Selection single = select_ops(t, SelectionOptions{});
    ASSERT_EQ(single.ops.size(), 1u);
    EXPECT_EQ(t.nodes[single.ops[0].value].id.value, 640u);
    ASSERT_EQ(single.excluded.size(), 2u);
    EXPECT_NE(single.excluded[0].reason.find("--nproc"), std::string::npos);
}

}  // namespace
}  // namespace mimic::replay

// Which ops a multi-rank replay runs when the ET files later ops under a c10d
// op (PyTorch 1.13 + Gloo, rank 2 of a 4-rank ddp_mlp recording; see
// tests/recorded_et_samples.h).
#include <gtest/gtest.h>

#include "io/trace_loader.h"
#include "replay/exec/op_selection.h"
#include "recorded_et_samples.h"
#include "test_support.h"
#include "trace/split_pieces.h"

namespace mimic::replay {
namespace {

// The trace of `et` (written to a scratch file named after `name`).
Trace load_et_text(const std::string& et, const std::string& name) {
    return load_trace(testing::scratch_file(name, "et.json", et));
}

// The ids of the ops a multi-rank replay selects, in order.
std::vector<uint64_t> selected_ids(const Trace& t, Selection& sel) {
    SelectionOptions o;
    o.collectives = true;
    sel = select_ops(t, o);
    std::vector<uint64_t> ids;
    for (NodeIndex n : sel.ops) ids.push_back(t.nodes[n.value].id.value);
    return ids;
}

TEST(OpSelection, OpsFiledUnderAC10dOpAreTopLevel) {
    const Trace t = load_et_text(testing::kEtOpsFiledUnderAC10dOp, "selection_c10d_nesting");
    Selection sel;
    EXPECT_EQ(selected_ids(t, sel), (std::vector<uint64_t>{589, 640, 648}));
    ASSERT_EQ(sel.collectives.size(), 2u);
    EXPECT_EQ(sel.collectives[1].input_bytes, 65792u * 4);

    // One process: the collectives are left out with the reason, aten::add_ still runs.
    const Selection single = select_ops(t, SelectionOptions{});
    ASSERT_EQ(single.ops.size(), 1u);
    EXPECT_EQ(t.nodes[single.ops[0].value].id.value, 640u);
    ASSERT_EQ(single.excluded.size(), 2u);
    EXPECT_NE(single.excluded[0].reason.find("--nproc"), std::string::npos);
}

// Under load the observer can also file a later bucket's c10d::allreduce_
// straight below an ATen op (here an aten::as_strided that has long ended),
// with no label between: it is still a call of its own (CI lost three of
// four DDP calls on one rank this way).
TEST(OpSelection, ACollectiveFiledUnderAnAtenOpIsStillACall) {
    const std::string et = testing::et_with_a_c10d_op_filed_under_an_aten_op();
    ASSERT_FALSE(et.empty());
    const Trace t = load_et_text(et, "selection_c10d_under_aten");
    Selection sel;
    EXPECT_EQ(selected_ids(t, sel), (std::vector<uint64_t>{589, 640, 645, 648}));
    ASSERT_EQ(sel.collectives.size(), 2u);
    EXPECT_EQ(sel.collectives[1].input_bytes, 65792u * 4);
}

// Or straight below the previous c10d op: no c10d op calls another.
TEST(OpSelection, AC10dOpFiledUnderTheLastOneIsStillACall) {
    std::string et = testing::kEtOpsFiledUnderAC10dOp;
    const std::string from = R"ET("id": 648, "rf_id": 648, "parent": 636,)ET";
    const size_t at = et.find(from);
    ASSERT_NE(at, std::string::npos);
    et.replace(at, from.size(), R"ET("id": 648, "rf_id": 648, "parent": 589,)ET");
    const Trace t = load_et_text(et, "selection_c10d_under_c10d");
    Selection sel;
    EXPECT_EQ(selected_ids(t, sel), (std::vector<uint64_t>{589, 640, 648}));
    EXPECT_EQ(sel.collectives.size(), 2u);
}

// A Chakra file from the converter that cut CPU ops at each GPU launch
// (trace/split_pieces.h): each call replays once, at its first piece.
TEST(OpSelection, AChakraOpCutIntoPiecesRunsOnce) {
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    const Trace t = load_trace(testing::trace_path("chakra/feeder_sample.0.et"));
    SelectionOptions all;
    all.iteration = "all";
    const Selection sel = select_ops(t, all);
    const std::vector<uint8_t> later = later_split_pieces(t);
    size_t first_pieces = 0;
    for (NodeIndex n : sel.ops) {
        EXPECT_FALSE(later[n.value]) << t.name(t.nodes[n.value]);
        first_pieces += t.name(t.nodes[n.value]).size() > 3 && t.name(t.nodes[n.value]).substr(t.name(t.nodes[n.value]).size() - 3) == "(0)";
    }
    EXPECT_GT(first_pieces, 800u);
    for (const Excluded& e : sel.excluded) EXPECT_FALSE(later[e.node.value]);
}

}  // namespace
}  // namespace mimic::replay

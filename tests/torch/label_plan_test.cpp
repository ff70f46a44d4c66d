// The original's non-operator events around replayed ops, planned from a real
// recording (PyTorch 1.13, tests/recorded_et_samples.h): labels open before
// the ops below them and close when the walk leaves them; a wrapper with no
// replayed op opens and closes where it happened.
#include <gtest/gtest.h>

#include "io/trace_loader.h"
#include "replay/exec/op_selection.h"
#include "replay/timing/label_plan.h"
#include "recorded_et_samples.h"
#include "test_support.h"

namespace mimic::replay {
namespace {

std::string describe(const Trace& t, const LabelPlan& plan, const std::vector<NodeIndex>& steps) {
    std::string out;
    for (const LabelAction& a : plan.actions) {
        if (a.kind == LabelAction::Kind::Open) out += "open " + std::to_string(t.nodes[plan.labels[a.index].node.value].id.value);
        if (a.kind == LabelAction::Kind::Close) out += "close";
        if (a.kind == LabelAction::Kind::Run) out += "run " + std::to_string(t.nodes[steps[a.index].value].id.value);
        out += "; ";
    }
    return out;
}

TEST(LabelPlan, LabelsWrapTheOpsTheyHeldAndStandAloneWhereTheyHeldNone) {
    const Trace t = load_trace(testing::scratch_file("label_plan", "et.json", testing::kEtSavedOutputHandleSharesAGradientsKey));
    const Selection sel = select_ops(t, SelectionOptions{});
    ASSERT_EQ(sel.ops.size(), 4u);
    const std::vector<NodeIndex> range = nodes_in_id_range(t, sel.first_node_id, sel.last_node_id);
    const LabelPlan plan = plan_labels(t, range, sel.ops, std::vector<bool>(sel.ops.size(), true));
    EXPECT_EQ(describe(t, plan, sel.ops),
              "open 8; run 189; run 195; run 207; run 212; open 241; open 242; close; close; close; ");

    // An op the check dropped still happened in the original: it opens as a label.
    const LabelPlan dropped = plan_labels(t, range, sel.ops, {true, false, true, true});
    EXPECT_EQ(describe(t, dropped, sel.ops),
              "open 8; run 189; open 195; close; run 207; run 212; open 241; open 242; close; close; close; ");
}

}  // namespace
}  // namespace mimic::replay

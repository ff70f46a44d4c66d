// mimic diff's comparison: op sequences aligned by name, input shapes
// compared, counts per name; and a replay recorded with the ET observer diffs
// clean against the trace it replayed.
#include <gtest/gtest.h>

#include <filesystem>

#include "analysis/trace_diff.h"
#include "io/trace_loader.h"
#include "replay/replay_recording.h"
#include "replay/replayer.h"
#include "replay_test_trace.h"
#include "test_support.h"

namespace mimic {
namespace {

using testing::TestTrace;
const char* kRelu = "aten::relu(Tensor self) -> Tensor";
const char* kMm = "aten::mm(Tensor self, Tensor mat2) -> Tensor";

// relu, mm, relu with the given mm shapes; `with_mm` false leaves the mm out.
Trace make(int64_t k, bool with_mm = true) {
    TestTrace b;
    Value x = b.tensor({4, k}, "float", 1);
    Value y = b.tensor({4, k}, "float", 2);
    b.op("aten::relu", kRelu, {x}, {y});
    Value z = b.tensor({4, 3}, "float", 4);
    if (with_mm) b.op("aten::mm", kMm, {b.same(y), b.tensor({k, 3}, "float", 3)}, {z});
    b.op("aten::relu", kRelu, {b.same(z)}, {b.tensor({4, 3}, "float", 5)});
    return b.finish();
}

TEST(ReplayDiff, SameTracesAreIdentical) {
    const analysis::TraceDiff d = analysis::diff_traces(make(5), make(5));
    EXPECT_TRUE(d.identical());
    EXPECT_EQ(d.matched, 3u);
    EXPECT_EQ(d.same_shapes, 3u);
}

TEST(ReplayDiff, OtherShapesAreReported) {
    const analysis::TraceDiff d = analysis::diff_traces(make(5), make(6));
    EXPECT_FALSE(d.identical());
    EXPECT_EQ(d.matched, 3u);
    EXPECT_EQ(d.shape_mismatch_count, 2u);  // the first relu and the mm
    ASSERT_FALSE(d.shape_mismatches.empty());
    EXPECT_EQ(d.shape_mismatches[0].shapes_a, "[4,5]");
    EXPECT_EQ(d.shape_mismatches[0].shapes_b, "[4,6]");
}

TEST(ReplayDiff, MissingOpsShowInCounts) {
    const analysis::TraceDiff d = analysis::diff_traces(make(5), make(5, false));
    EXPECT_EQ(d.ops_a, 3u);
    EXPECT_EQ(d.ops_b, 2u);
    EXPECT_EQ(d.matched, 2u);
    bool found = false;
    for (const analysis::NameDiff& n : d.names)
        if (n.name == "aten::mm") {
            found = true;
            EXPECT_EQ(n.count_a, 1u);
            EXPECT_EQ(n.count_b, 0u);
        }
    EXPECT_TRUE(found);
}

TEST(ReplayDiff, RecordedReplayOfTheLinearTraceMatchesIt) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    const Trace original = load_trace(testing::trace_path("pytorch/linear_et.json.gz"));
    replay::ReplayOptions options;
    options.selection.exclude = std::regex("^aten::(mm|linear)$");  // heavy; the CLI test diffs a full replay
    replay::Replayer r(original, options);
    r.plan();
    r.check();
    const std::string dir = testing::scratch_dir("replay_diff_linear");
    const std::string path = replay::record_replay(r, dir);
    const Trace replayed = load_trace(path);
    analysis::DiffOptions all;
    all.iteration = "all";
    const analysis::TraceDiff d = analysis::diff_traces(original, replayed, all);
    // Every op the replay ran is in the original, in order, with its shapes.
    EXPECT_EQ(d.ops_b, r.replayed_count());
    EXPECT_EQ(d.matched, r.replayed_count());
    EXPECT_EQ(d.shape_mismatch_count, 0u);
}

}  // namespace
}  // namespace mimic

// Bad input never stops a replay: each broken op is skipped with its reason
// and the ops around it still run.
#include <gtest/gtest.h>

#include "replay/replayer.h"
#include "replay_test_trace.h"

namespace mimic::replay {
namespace {

using testing::TestTrace;

const char* kRelu = "aten::relu(Tensor self) -> Tensor";
const char* kMm = "aten::mm(Tensor self, Tensor mat2) -> Tensor";

std::unique_ptr<Replayer> replay(const Trace& trace) {
    ReplayOptions options;
    options.selection.iteration = "all";
    auto r = std::make_unique<Replayer>(trace, options);
    r->plan();
    r->check();
    r->run_iteration();
    return r;
}

// The reason an op was skipped, "" if it was not.
std::string reason_for(const Replayer& r, const std::string& name) {
    for (const SkippedOp& s : r.skipped())
        if (s.name == name) return s.reason;
    return "";
}

// A relu before and after the op under test, which must both run.
void add_guards(TestTrace& b, uint64_t storage) {
    b.op("aten::relu", kRelu, {b.tensor({3, 3}, "float", storage)}, {b.tensor({3, 3}, "float", storage + 1)});
}

TEST(ReplayBadInput, ShapesThatContradictTheSchemaSkipTheOpOnly) {
    TestTrace b;
    add_guards(b, 100);
    b.op("aten::mm", kMm, {b.tensor({2, 3}, "float", 110), b.tensor({4, 5}, "float", 111)}, {b.tensor({2, 5}, "float", 112)});
    add_guards(b, 120);
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 2u);
    EXPECT_NE(reason_for(*r, "aten::mm").find("mat1 and mat2 shapes cannot be multiplied"), std::string::npos)
        << reason_for(*r, "aten::mm");
}

TEST(ReplayBadInput, UnknownDtypeIsAReason) {
    TestTrace b;
    b.op("aten::relu", kRelu, {b.tensor({3}, "c10::qint8", 200)}, {b.tensor({3}, "c10::qint8", 201)});
    add_guards(b, 210);
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 1u);
    EXPECT_NE(reason_for(*r, "aten::relu").find("unknown dtype 'c10::qint8'"), std::string::npos);
}

TEST(ReplayBadInput, StridesPastTheRecordedStorageStayInsideTheBuffer) {
    TestTrace b;
    // A view whose strides reach 10x further than its numel: the pool sizes the
    // storage to cover it, so the op reads only memory it owns.
    b.op("aten::relu", kRelu, {b.tensor({4, 5}, "float", 300, 7, {50, 10})}, {b.tensor({4, 5}, "float", 301)});
    b.op("aten::sum", "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
         {b.tensor({10}, "float", 300, 0), TestTrace::none()}, {b.tensor({}, "float", 302)});
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 2u);
    EXPECT_TRUE(r->skipped().empty());
}

TEST(ReplayBadInput, NegativeStridesAndSizesAreReasons) {
    TestTrace b;
    b.op("aten::relu", kRelu, {b.tensor({4}, "float", 400, 0, {-1})}, {b.tensor({4}, "float", 401)});
    add_guards(b, 410);
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 1u);
    EXPECT_NE(reason_for(*r, "aten::relu").find("negative stride"), std::string::npos);
}

TEST(ReplayBadInput, UnregisteredAndUnparsableSchemas) {
    TestTrace b;
    b.op("mimic_test::nothing", "mimic_test::nothing(Tensor self) -> Tensor", {b.tensor({3}, "float", 500)}, {});
    b.op("aten::broken", "aten::broken(Tensor self ->", {b.tensor({3}, "float", 501)}, {});
    add_guards(b, 510);
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 1u);
    EXPECT_FALSE(reason_for(*r, "mimic_test::nothing").empty());
    EXPECT_FALSE(reason_for(*r, "aten::broken").empty());
}

TEST(ReplayBadInput, RecordedValueOfTheWrongKind) {
    TestTrace b;
    // dim recorded as a tensor where the schema wants an int.
    b.op("aten::sum", "aten::sum.dim_IntList(Tensor self, int[1]? dim, bool keepdim=False, *, ScalarType? dtype=None) -> Tensor",
         {b.tensor({3, 3}, "float", 600), b.tensor({1}, "float", 601), TestTrace::boolean(false), TestTrace::none()},
         {b.tensor({3}, "float", 602)});
    add_guards(b, 610);
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 1u);
    EXPECT_NE(reason_for(*r, "aten::sum").find("schema wants"), std::string::npos) << reason_for(*r, "aten::sum");
}

TEST(ReplayBadInput, ConsumerOfAFailedProducerFallsBackToThePool) {
    TestTrace b;
    Value bad_out = b.tensor({2, 5}, "float", 700);
    b.op("aten::mm", kMm, {b.tensor({2, 3}, "float", 701), b.tensor({4, 5}, "float", 702)}, {bad_out});
    b.op("aten::relu", kRelu, {b.same(bad_out)}, {b.tensor({2, 5}, "float", 703)});
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 1u);  // relu ran on a pool tensor of the recorded shape
    EXPECT_EQ(r->fallbacks(), 1u);
}

TEST(ReplayBadInput, AnOutputUnlikeTheRecordingNamesItsOp) {
    TestTrace b;
    // Recorded as [2, 6] (a shape that depended on the original's values); mm gives [2, 5].
    Value unlike = b.tensor({2, 6}, "float", 750);
    b.op("aten::mm", kMm, {b.tensor({2, 3}, "float", 751), b.tensor({3, 5}, "float", 752)}, {unlike});
    b.op("aten::relu", kRelu, {b.same(unlike)}, {b.tensor({2, 6}, "float", 753)});
    Trace trace = b.finish();
    auto r = replay(trace);
    EXPECT_EQ(r->replayed_count(), 2u);
    EXPECT_EQ(r->shape_mismatches(), 1u);
    ASSERT_EQ(r->mismatched_nodes().size(), 1u);
    EXPECT_EQ(trace.name(trace.nodes[r->mismatched_nodes()[0].value]), "aten::mm");
    EXPECT_EQ(r->fallbacks(), 1u);  // relu read a pool tensor of the recorded shape
}

TEST(ReplayBadInput, LazyModeFreesAfterLastUseAndStillRuns) {
    TestTrace b;
    Value a = b.tensor({8, 8}, "float", 800);
    Value x = b.tensor({8, 8}, "float", 801);
    b.op("aten::relu", kRelu, {a}, {x});
    Value y = b.tensor({8, 8}, "float", 802);
    b.op("aten::relu", kRelu, {b.same(x)}, {y});
    b.op("aten::mm", kMm, {b.same(x), b.same(y)}, {b.tensor({8, 8}, "float", 803)});
    Trace trace = b.finish();
    ReplayOptions options;
    options.selection.iteration = "all";
    options.lazy = true;
    Replayer r(trace, options);
    r.plan();
    r.check();
    for (int i = 0; i < 3; ++i) r.run_iteration();
    EXPECT_EQ(r.replayed_count(), 3u);
    EXPECT_EQ(r.fallbacks(), 0u);
    EXPECT_EQ(r.runtime_errors(), 0u);
}

}  // namespace
}  // namespace mimic::replay

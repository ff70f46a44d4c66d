// The shape sweep calibrate times: an ET the readers take, one top-level op
// per call, every op family covered, the quick grid a subset of the full one,
// and no call beyond the FLOP bound that keeps a sweep under a minute.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "compose/calibration_sweep.h"
#include "io/trace_loader.h"
#include "model/op_family.h"
#include "model/op_signature.h"
#include "model/predictor.h"
#include "test_support.h"

namespace mimic {
namespace {

struct Read {
    compose::SweepStats stats;
    Trace trace;
};

Read sweep(bool quick) {
    const std::string path = testing::scratch_dir("calibration_sweep") + (quick ? "/quick.json" : "/full.json");
    compose::SweepStats stats = compose::write_calibration_sweep(path, quick);
    return {stats, load_trace(path)};
}

TEST(CalibrationSweep, EveryCallIsATopLevelOpOfAFamily) {
    const Read r = sweep(false);
    const std::vector<model::TopLevelOp> tops = model::top_level_ops(r.trace);
    ASSERT_EQ(tops.size(), r.stats.ops);
    std::set<std::string> families;
    for (const model::TopLevelOp& t : tops) {
        const model::OpFacts facts = model::op_facts(r.trace, r.trace.nodes[t.node]);
        const model::OpFamily family = model::family_of(facts.name);
        families.insert(model::family_name(family));
        EXPECT_GT(facts.bytes, 0u) << facts.signature;
        if (family == model::OpFamily::Gemm) {
            EXPECT_GT(facts.flops, 0) << facts.signature;
            EXPECT_LE(facts.flops, 1.2e9) << facts.signature;
        }
    }
    for (const char* want : {"gemm", "conv", "embedding", "norm", "softmax", "elementwise", "reduction", "optimizer", "copy"})
        EXPECT_TRUE(families.count(want)) << want;
    size_t counted = 0;
    for (const auto& [family, n] : r.stats.ops_per_family) counted += n;
    EXPECT_EQ(counted, r.stats.ops);
}

TEST(CalibrationSweep, QuickGridIsASubsetOfTheFullOne) {
    const Read quick = sweep(true), full = sweep(false);
    EXPECT_LT(quick.stats.ops, full.stats.ops / 2 + 1);
    std::set<std::string> all;
    for (const model::TopLevelOp& t : model::top_level_ops(full.trace))
        all.insert(model::op_facts(full.trace, full.trace.nodes[t.node]).signature);
    for (const model::TopLevelOp& t : model::top_level_ops(quick.trace)) {
        const std::string s = model::op_facts(quick.trace, quick.trace.nodes[t.node]).signature;
        EXPECT_TRUE(all.count(s)) << s;
    }
    for (const auto& [family, n] : full.stats.ops_per_family) EXPECT_GT(quick.stats.ops_per_family.at(family), 0u) << family;
}

}  // namespace
}  // namespace mimic

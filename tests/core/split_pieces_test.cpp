// The pieces Chakra's converter of early 2024 cut one CPU op into, on the
// real feeder sample: found, costed once by predict, named without the index.
#include "trace/split_pieces.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "io/chakra/chakra_reader.h"
#include "io/trace_loader.h"
#include "model/op_signature.h"
#include "model/predictor.h"
#include "test_support.h"

namespace mimic {
namespace {

TEST(SplitPieces, BaseNameDropsOnlyAnOperatorsPieceIndex) {
    EXPECT_EQ(split_piece_base("aten::conv2d(0)"), "aten::conv2d");
    EXPECT_EQ(split_piece_base("c10d::allreduce_(12)"), "c10d::allreduce_");
    EXPECT_EQ(split_piece_base("aten::mm"), "aten::mm");
    // A kernel's signature and a label keep their parentheses.
    EXPECT_EQ(split_piece_base("void at::native::f<float>(float*, int)"), "void at::native::f<float>(float*, int)");
    EXPECT_EQ(split_piece_base("step(1)"), "step(1)");
    EXPECT_EQ(split_piece_base("aten::mm(x)"), "aten::mm(x)");
    // Only the first piece stands for the call.
    EXPECT_EQ(first_piece_base("aten::conv2d(0)"), "aten::conv2d");
    EXPECT_EQ(first_piece_base("aten::conv2d(1)"), "aten::conv2d(1)");
    EXPECT_EQ(first_piece_base("aten::mm"), "aten::mm");
}

TEST(SplitPieces, FeederSampleOpsAreCostedOnceUnderTheirOwnName) {
    MIMIC_REQUIRE_TRACE("chakra/feeder_sample.0.et");
    ChakraReadOptions quiet;
    quiet.progress = false;
    const Trace t = read_chakra(testing::trace_path("chakra/feeder_sample.0.et"), quiet);
    const std::vector<uint8_t> later = later_split_pieces(t);
    size_t count = 0;
    for (size_t i = 0; i < t.nodes.size(); ++i) {
        if (!later[i]) continue;
        ++count;
        // Every later piece follows a piece of the same op.
        EXPECT_NE(split_piece_base(t.name(t.nodes[i])), t.name(t.nodes[i]));
    }
    // 899 calls cut into 2,115 pieces: 1,216 after a first (counted from the file's names and data deps).
    EXPECT_EQ(count, 1216u);
    // predict plans 2,448 CPU nodes of the file, the calls among them once each.
    const std::vector<model::TopLevelOp> ops = model::top_level_ops(t);
    EXPECT_EQ(ops.size(), 2448u - 1216u);
    for (const model::TopLevelOp& op : ops) {
        const model::OpFacts f = model::op_facts(t, t.nodes[op.node]);
        EXPECT_EQ(f.name.find("(0)"), std::string::npos) << f.name;
        EXPECT_EQ(f.signature.rfind(f.name + "(", 0), 0u) << f.signature;
    }
}

// Only Chakra files are read for pieces: an ET names ops as PyTorch does.
TEST(SplitPieces, AnEtHasNone) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    const Trace t = load_trace(testing::trace_path("pytorch/linear_et.json.gz"));
    const std::vector<uint8_t> later = later_split_pieces(t);
    EXPECT_EQ(std::count(later.begin(), later.end(), 1), 0);
}

}  // namespace
}  // namespace mimic

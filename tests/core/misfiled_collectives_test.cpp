// A real 2-rank DDP recording (mimic record --workload ddp_mlp --nproc 2,
// PyTorch 1.13, Gloo) in which the observer misfiled rank 1's later buckets:
// c10d::allreduce_ under a gloo:all_reduce label under an aten::mul. Convert
// must give both ranks the same collectives in the same order, as analysis
// does, or the converted ranks deadlock in the simulator.
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "analysis/categories.h"
#include "analysis/op_nesting.h"
#include "io/chakra/chakra_convert.h"
#include "io/trace_loader.h"

namespace mimic {
namespace {

std::string fixture(int rank) {
    return std::string(MIMIC_SOURCE_DIR) + "/tests/data/ddp_gloo_misfiled/rank" + std::to_string(rank) + ".et.json.gz";
}

std::vector<std::pair<CollectiveType, int64_t>> converted_collectives(const Trace& trace) {
    std::vector<std::pair<CollectiveType, int64_t>> out;
    for (const ChakraPlanNode& n : plan_chakra_nodes(trace).nodes)
        if (n.type == ChakraNodeType::CommColl) out.emplace_back(n.comm.type, n.comm.size_bytes);
    return out;
}

TEST(MisfiledCollectives, BothRanksConvertToTheSameCollectives) {
    const Trace rank0 = load_trace(fixture(0));
    const Trace rank1 = load_trace(fixture(1));
    const auto c0 = converted_collectives(rank0);
    const auto c1 = converted_collectives(rank1);
    // DDP's four gradient buckets of the MLP: 1,062,952 bytes, then three of 263,168.
    ASSERT_EQ(c0.size(), 4u);
    EXPECT_EQ(c0, c1);
    EXPECT_EQ(c0[0].second, 1062952);
    for (size_t k = 1; k < c0.size(); ++k) EXPECT_EQ(c0[k].second, 263168);
}

TEST(MisfiledCollectives, NoOperatorOwnsACollectiveFiledBelowIt) {
    // The aten::mul rank 1's buckets were filed under is plain compute, and
    // every c10d::allreduce_ is its own top-level op.
    const Trace trace = load_trace(fixture(1));
    const analysis::OpNesting nesting = analysis::compute_op_nesting(trace, analysis::classify_nodes(trace));
    int c10d_top_level = 0;
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& n = trace.nodes[i];
        if (trace.name(n) != "c10d::allreduce_") continue;
        EXPECT_TRUE(analysis::is_top_level_operator(nesting, NodeIndex(i))) << "node " << n.id.value;
        ++c10d_top_level;
    }
    EXPECT_EQ(c10d_top_level, 4);
}

}  // namespace
}  // namespace mimic

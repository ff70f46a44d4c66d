// Chakra files given to simulate one by one (not as an ASTRA-sim prefix) run
// as written, as the prefix runs them: their communication and device nodes
// too, not only the host operators an ET conversion keeps.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/simulator.h"
#include "sim/trace_workload.h"
#include "test_support.h"

namespace mimic::sim {
namespace {

TEST(SimTraceInputs, ChakraFilesOneByOneRunAsTheirPrefix) {
    const std::string prefix = testing::trace_path("chakra/microbench/all_reduce/all_reduce");
    MIMIC_REQUIRE_TRACE("chakra/microbench/all_reduce/all_reduce.0.et");
    const std::string configs = testing::astra_dir() + "/configs";
    SimulationInput in;
    std::vector<std::string> w;
    in.network = read_network_config(configs + "/network/Ring_4npus.yml", w);
    in.system = read_system_config(configs + "/system/Ring_4chunks.json", w);
    in.graphs = read_workload_prefix(prefix, 4);
    const SimulationResult as_prefix = simulate(in);

    std::vector<std::string> files;
    for (int r = 0; r < 4; ++r) files.push_back(prefix + "." + std::to_string(r) + ".et");
    TraceWorkload one_by_one = read_trace_workload(files);
    in.graphs.clear();
    for (RankGraph& g : one_by_one.graphs) in.graphs.push_back(std::make_shared<const RankGraph>(std::move(g)));
    const SimulationResult as_files = simulate(in);

    ASSERT_EQ(as_files.ranks.size(), 4u);
    for (int r = 0; r < 4; ++r) {
        EXPECT_GT(as_prefix.ranks[r].finish_ns, 0u);  // the 1 MB all-reduce itself
        EXPECT_EQ(as_files.ranks[r].finish_ns, as_prefix.ranks[r].finish_ns) << "rank " << r;
        EXPECT_EQ(as_files.ranks[r].exposed_comm_ns, as_prefix.ranks[r].exposed_comm_ns) << "rank " << r;
    }
}

}  // namespace
}  // namespace mimic::sim

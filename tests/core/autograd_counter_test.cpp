#include "analysis/autograd_counter.h"

#include <gtest/gtest.h>

#include <string>

#include "io/pytorch_et/et_reader.h"
#include "test_support.h"

namespace mimic::analysis {
namespace {

std::string node(uint64_t id, const char* name, uint64_t parent, int64_t seq, uint64_t tid) {
    return "{\"name\": \"" + std::string(name) + "\", \"id\": " + std::to_string(id) + ", \"rf_id\": " + std::to_string(id) +
           ", \"parent\": " + std::to_string(parent) + ", \"fw_parent\": 0, \"seq_id\": " + std::to_string(seq) +
           ", \"scope\": 0, \"tid\": " + std::to_string(tid) +
           ", \"fw_tid\": 0, \"op_schema\": \"\", \"inputs\": [], \"input_shapes\": [], \"input_types\": [], "
           "\"outputs\": [], \"output_shapes\": [], \"output_types\": []}";
}

// A forward with no backward: mul (its cast inside) and add on data keep the
// counter at 0; linear's addmm makes a node (relu after it carries 1); relu
// makes one too (the next call on its thread, past another thread's call and
// a call without grad, carries 2). What follows nothing on its thread, or has
// no number, cannot be told.
TEST(AutogradCounter, ACallMadeANodeWhereTheNextCallOnItsThreadCarriesAHigherNumber) {
    const std::string et = "{\"schema\": \"1.0.1\", \"pid\": 1, \"time\": \"2024-01-01 00:00:00\", \"start_ts\": 0, \"nodes\": [" +
                           node(1, "[pytorch|profiler|execution_graph|process]", 1, -1, 0) + ",\n" +
                           node(2, "[pytorch|profiler|execution_graph|thread]", 1, -1, 1) + ",\n" +
                           node(3, "aten::mul", 2, 0, 1) + ",\n" + node(4, "aten::to", 3, 0, 1) + ",\n" +
                           node(5, "aten::add", 2, 0, 1) + ",\n" + node(6, "aten::linear", 2, 0, 1) + ",\n" +
                           node(7, "aten::addmm", 6, 0, 1) + ",\n" + node(8, "aten::relu", 2, 1, 1) + ",\n" +
                           node(9, "aten::view", 2, 5, 2) + ",\n" + node(10, "aten::sum", 2, -1, 1) + ",\n" +
                           node(11, "aten::neg", 2, 2, 1) + "], \"finish_ts\": 1}";
    EtReadOptions options;
    options.progress = false;
    const Trace trace = read_pytorch_et(testing::scratch_file("autograd_counter", "et.json", et), options);
    const std::vector<MadeNode> made = made_autograd_nodes(trace);
    const auto of = [&](uint64_t id) { return made[trace.find(NodeId(id)).value]; };
    EXPECT_EQ(of(3), MadeNode::No);
    EXPECT_EQ(of(4), MadeNode::No);
    EXPECT_EQ(of(5), MadeNode::No);
    EXPECT_EQ(of(6), MadeNode::Yes);
    EXPECT_EQ(of(7), MadeNode::Yes);
    EXPECT_EQ(of(8), MadeNode::Yes);
    EXPECT_EQ(of(9), MadeNode::Unknown);
    EXPECT_EQ(of(10), MadeNode::Unknown);
    EXPECT_EQ(of(11), MadeNode::Unknown);
}

// The backward's labels carry the number of the node they run (here the
// mul's 4), not the counter's: the mul, last of the forward, cannot be told.
TEST(AutogradCounter, TheBackwardsLabelsSayNothingOfTheCounter) {
    std::string backward_label = node(4, "autograd::engine::evaluate_function: MulBackward0", 2, 4, 1);
    std::string backward_node = node(5, "MulBackward0", 4, 4, 1);
    backward_node.replace(backward_node.find("\"scope\": 0"), 10, "\"scope\": 1");
    const std::string et = "{\"schema\": \"1.0.1\", \"pid\": 1, \"time\": \"2024-01-01 00:00:00\", \"start_ts\": 0, \"nodes\": [" +
                           node(1, "[pytorch|profiler|execution_graph|process]", 1, -1, 0) + ",\n" +
                           node(2, "[pytorch|profiler|execution_graph|thread]", 1, -1, 1) + ",\n" +
                           node(3, "aten::mul", 2, 4, 1) + ",\n" + backward_label + ",\n" + backward_node + ",\n" +
                           node(6, "aten::mul", 5, -1, 1) + "], \"finish_ts\": 1}";
    EtReadOptions options;
    options.progress = false;
    const Trace trace = read_pytorch_et(testing::scratch_file("autograd_counter", "backward.json", et), options);
    const std::vector<MadeNode> made = made_autograd_nodes(trace);
    EXPECT_EQ(made[trace.find(NodeId(3)).value], MadeNode::Unknown);
    EXPECT_EQ(made[trace.find(NodeId(4)).value], MadeNode::Unknown);
}

}  // namespace
}  // namespace mimic::analysis

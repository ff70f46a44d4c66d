// PyTorch 1.13's observer, when recording an op throws (ops on nested
// tensors), writes the op with id 0 and parent 0, or not at all, leaving its
// calls naming a parent the file does not hold. Such a trace reads, mended,
// with one warning; a missing parent without those signs is still an error.
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "io/trace_loader.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

std::string node(int id, int parent, const std::string& name, int tid = 1) {
    return R"J({"name": ")J" + name + R"J(", "id": )J" + std::to_string(id) + R"J(, "parent": )J" + std::to_string(parent) +
           R"J(, "tid": )J" + std::to_string(tid) + R"J(, "op_schema": "", "inputs": [], "outputs": []})J";
}

std::string write_et(const std::string& name, const std::string& nodes) {
    const std::string path = testing::scratch_dir("failed_records") + "/" + name;
    std::ofstream(path) << R"J({"schema": "1.0.1", "pid": 1, "time": "x", "start_ts": 1, "nodes": [)J" + nodes +
                               R"J(], "finish_ts": 2})J";
    return path;
}

std::string warnings_of(const Trace& t) {
    std::string all;
    for (const auto& w : t.warnings) all += w.message + "\n";
    return all;
}

// Written as the observer writes them, children before parents: thread 2
// runs op 3, which called op 10 (never written; its calls 11 and 12 name it),
// then op 20, and a record the observer wrote with id 0.
const std::string kNodes = node(2, 1, "[pytorch|profiler|execution_graph|thread]") + "," +
                           node(11, 10, "aten::zeros") + "," + node(12, 10, "aten::cumsum") + "," +
                           node(3, 2, "aten::outer_op") + "," + node(20, 2, "aten::after") + "," +
                           node(0, 0, "aten::to_padded_tensor") + "," +
                           node(1, 1, "[pytorch|profiler|execution_graph|process]");

TEST(FailedRecords, CallsOfAnOpNeverWrittenGoToTheOpThatCalledIt) {
    Trace t = load_trace(write_et("mended.json", kNodes));
    // 10 started after 3 and ended before it: 3 is the first op written after 10's calls with a smaller id.
    EXPECT_EQ(t.nodes[t.parent_of(t.find(NodeId(11))).value].id.value, 3u);
    EXPECT_EQ(t.nodes[t.parent_of(t.find(NodeId(12))).value].id.value, 3u);
    EXPECT_EQ(t.nodes[t.parent_of(t.find(NodeId(20))).value].id.value, 2u);
    const std::string w = warnings_of(t);
    EXPECT_NE(w.find("1 written with id 0 and no parent come after the rest (aten::to_padded_tensor)"), std::string::npos) << w;
    EXPECT_NE(w.find("1 not written at all, whose 2 calls are attached"), std::string::npos) << w;
}

TEST(FailedRecords, ARecordOfIdZeroComesAfterTheRest) {
    Trace t = load_trace(write_et("left_out.json", kNodes));
    for (uint32_t i = 0; i < t.nodes.size(); ++i) {
        if (t.name(t.nodes[i]) != "aten::to_padded_tensor") continue;
        EXPECT_EQ(t.nodes[i].id.value, 21u);  // a fresh id, after every other: no duplicate of another record
        EXPECT_EQ(t.parent_of(NodeIndex(i)), kNoNode);
    }
}

TEST(FailedRecords, CallsAtTheTopOfAThreadGoToTheThread) {
    // Op 10 ran at the top of thread 2: no op written after its calls has a smaller id.
    const std::string nodes = node(2, 1, "[pytorch|profiler|execution_graph|thread]") + "," + node(11, 10, "aten::zeros") +
                              "," + node(0, 0, "aten::failed") + "," + node(1, 1, "[pytorch|profiler|execution_graph|process]");
    Trace t = load_trace(write_et("top.json", nodes));
    EXPECT_EQ(t.nodes[t.parent_of(t.find(NodeId(11))).value].id.value, 2u);
}

TEST(FailedRecords, ACallOfAnUnwrittenOpCanHoldCallsOfAnotherUnwrittenOp) {
    // Op 10 (never written) called 11, which called op 12 (never written), which called 13.
    const std::string nodes = node(2, 1, "[pytorch|profiler|execution_graph|thread]") + "," + node(13, 12, "aten::inner") +
                              "," + node(11, 10, "aten::middle") + "," + node(0, 0, "aten::failed") + "," +
                              node(1, 1, "[pytorch|profiler|execution_graph|process]");
    Trace t = load_trace(write_et("chained.json", nodes));
    EXPECT_EQ(t.nodes[t.parent_of(t.find(NodeId(13))).value].id.value, 11u);
    EXPECT_EQ(t.nodes[t.parent_of(t.find(NodeId(11))).value].id.value, 2u);
}

// Op 10 is missing, but op 20 started after it and ran outside it (its
// parent is the thread): 10 was not still running when the observer stopped.
TEST(FailedRecords, AMissingParentWithoutAnIdZeroRecordIsStillAnError) {
    const std::string nodes = node(2, 1, "[pytorch|profiler|execution_graph|thread]") + "," + node(11, 10, "aten::zeros") +
                              "," + node(20, 2, "aten::after") + "," + node(1, 1, "[pytorch|profiler|execution_graph|process]");
    try {
        load_trace(write_et("dangling.json", nodes));
        ADD_FAILURE() << "expected an error";
    } catch (const Error& e) {
        EXPECT_NE(std::string(e.what()).find("parent 10 is not in the trace"), std::string::npos) << e.what();
    }
}

// Ops 4 and 6 were still running at the stop (6 inside 4): 5 and 7 name
// them and every op after 4 is inside one of them.
TEST(FailedRecords, CallsOfOpsStillRunningWhenTheObserverStoppedGoToTheirThread) {
    const std::string nodes = node(2, 1, "[pytorch|profiler|execution_graph|thread]") + "," + node(3, 2, "aten::before") +
                              "," + node(5, 4, "aten::zeros") + "," + node(7, 6, "aten::add") + "," + node(8, 7, "aten::empty") +
                              "," + node(1, 1, "[pytorch|profiler|execution_graph|process]");
    const Trace t = load_trace(write_et("open_at_stop.json", nodes));
    ASSERT_EQ(t.warnings.size(), 1u);
    EXPECT_NE(t.warnings[0].message.find("2 ops were still running when the observer stopped"), std::string::npos)
        << t.warnings[0].message;
    for (const Node& n : t.nodes) {
        if (n.id.value == 5 || n.id.value == 7) {
            EXPECT_EQ(n.parent.value, 2u) << n.id.value;
        }
        if (n.id.value == 8) {
            EXPECT_EQ(n.parent.value, 7u);
        }
    }
}

// Real recordings (tests/data/observer_open_at_stop_1.13): et.stop() inside a
// record_function around the step, and inside a profiler schedule's next step.
TEST(FailedRecords, RecordingsStoppedInsideALabelRead) {
    const std::string dir = std::string(MIMIC_SOURCE_DIR) + "/tests/data/observer_open_at_stop_1.13/";
    const Trace label = load_trace(dir + "label_et.json.gz");
    ASSERT_EQ(label.warnings.size(), 1u);
    EXPECT_NE(label.warnings[0].message.find("1 op was still running"), std::string::npos) << label.warnings[0].message;
    EXPECT_NE(label.warnings[0].message.find("the 14 calls it had finished"), std::string::npos) << label.warnings[0].message;
    size_t at_thread = 0;
    for (const Node& n : label.nodes) at_thread += n.parent.value == 2 && n.kind != NodeKind::Thread;
    EXPECT_GE(at_thread, 14u);
    const Trace step = load_trace(dir + "profiler_step_et.json.gz");
    ASSERT_EQ(step.warnings.size(), 1u);
    EXPECT_NE(step.warnings[0].message.find("the call it had finished is placed where it ran"), std::string::npos)
        << step.warnings[0].message;
}

}  // namespace
}  // namespace mimic

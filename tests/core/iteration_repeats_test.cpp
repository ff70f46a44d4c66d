#include "link/iteration_repeats.h"

#include <gtest/gtest.h>

#include "io/pytorch_et/et_reader.h"
#include "io/kineto/kineto_reader.h"
#include "link/link_profile.h"
#include "test_support.h"

namespace mimic {
namespace {

// One step of an ET: LABEL { linear { addmm }, relu }.
constexpr const char* kEt = R"({"schema": "1.0.1", "pid": 1, "time": "2024-01-01 00:00:00", "start_ts": 0, "nodes": [
 {"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1,
  "scope": 7, "tid": 0, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [],
  "outputs": [], "output_shapes": [], "output_types": []},
 {"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 0, "parent": 1, "fw_parent": 0, "seq_id": -1,
  "scope": 7, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [],
  "outputs": [], "output_shapes": [], "output_types": []},
 {"name": "LABEL", "id": 3, "rf_id": 1, "parent": 2, "fw_parent": 0, "seq_id": -1, "scope": 7, "tid": 1,
  "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [],
  "output_shapes": [], "output_types": []},
 {"name": "aten::linear", "id": 4, "rf_id": 2, "parent": 3, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1,
  "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [],
  "output_shapes": [], "output_types": []},
 {"name": "aten::addmm", "id": 5, "rf_id": 3, "parent": 4, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1,
  "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [],
  "output_shapes": [], "output_types": []},
 {"name": "aten::relu", "id": 6, "rf_id": 4, "parent": 3, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1,
  "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [],
  "output_shapes": [], "output_types": []}], "finish_ts": 1})";

std::string event(const char* cat, const char* name, double ts, double dur, int rf_id = -1, const char* dims = nullptr) {
    std::string args = "{\"External id\": 0";
    if (rf_id >= 0) args += ", \"Record function id\": " + std::to_string(rf_id);
    if (dims) args += std::string(", \"Input Dims\": ") + dims;
    args += "}";
    return std::string("{\"ph\": \"X\", \"cat\": \"") + cat + "\", \"name\": \"" + name +
           "\", \"pid\": 1, \"tid\": 1, \"ts\": " + std::to_string(ts) + ", \"dur\": " + std::to_string(dur) +
           ", \"args\": " + args + "}";
}

struct Linked {
    Trace trace;
    LinkStats stats;
    const NodeTiming& of(uint64_t id) const { return trace.timing[trace.find(NodeId(id)).value]; }
};

Linked link(const std::vector<std::string>& events, const std::string& label = "ProfilerStep#3") {
    std::string json = "{\"traceEvents\": [";
    for (size_t i = 0; i < events.size(); ++i) json += (i ? ",\n" : "") + events[i];
    json += "]}";
    EtReadOptions et_options;
    et_options.progress = false;
    KinetoReadOptions profile_options;
    profile_options.progress = false;
    Linked out;
    std::string et = kEt;
    et.replace(et.find("LABEL"), 5, label);
    out.trace = read_pytorch_et(testing::scratch_file("iteration_repeats", "et.json", et), et_options);
    const ProfileTrace profile =
        read_kineto_trace(testing::scratch_file("iteration_repeats", "profile.json", json), profile_options);
    out.stats = link_profile(out.trace, profile);
    return out;
}

TEST(IterationRepeats, LabelFamilies) {
    EXPECT_TRUE(same_label_family("ProfilerStep#12", "ProfilerStep#13"));
    EXPECT_TRUE(same_label_family("Optimizer.step#SGD.step", "Optimizer.step#SGD.step"));
    EXPECT_FALSE(same_label_family("ProfilerStep#12", "ProfilerStep#"));
    EXPECT_FALSE(same_label_family("ProfilerStep#12", "OtherStep#12"));
    EXPECT_FALSE(same_label_family("ProfilerStep#1x", "ProfilerStep#12"));
}

TEST(IterationRepeats, EachOpsDurationIsItsMedianOverTheStepsThatRepeatTheLinkedOne) {
    const char* rows = "[[128,256]]";
    const Linked l = link({
        // The linked step (rf ids), then two repeats and things that are not repeats.
        event("user_annotation", "ProfilerStep#3", 100, 100, 1), event("cpu_op", "aten::linear", 110, 40, 2),
        event("cpu_op", "aten::addmm", 115, 30, 3), event("cpu_op", "aten::relu", 160, 10, 4, rows),
        event("user_annotation", "ProfilerStep#4", 300, 110), event("cpu_op", "aten::linear", 310, 30),
        event("cpu_op", "aten::addmm", 315, 20), event("cpu_op", "aten::relu", 360, 12, -1, rows),
        // Here linear's children differ (an extra empty): linear pairs, its children do not;
        // and relu ran on other shapes: it does not pair.
        event("user_annotation", "ProfilerStep#5", 500, 90), event("cpu_op", "aten::linear", 510, 50),
        event("cpu_op", "aten::empty", 512, 1), event("cpu_op", "aten::addmm", 515, 40),
        event("cpu_op", "aten::relu", 560, 9, -1, "[[64,256]]"),
        // Not the step's family, or not a label.
        event("user_annotation", "Other#6", 700, 100), event("cpu_op", "aten::relu", 710, 1000),
        event("cpu_op", "ProfilerStep#7", 900, 1000)});
    EXPECT_EQ(l.stats.profiled_iterations, 3u);
    EXPECT_EQ(l.of(3).iterations, 3u);
    EXPECT_DOUBLE_EQ(l.of(3).median_duration_us, 100.0);
    EXPECT_EQ(l.of(4).iterations, 3u);
    EXPECT_DOUBLE_EQ(l.of(4).median_duration_us, 40.0);
    EXPECT_DOUBLE_EQ(l.of(4).duration_us, 40.0);
    EXPECT_EQ(l.of(5).iterations, 2u);  // not in step 5, where linear's children differ
    EXPECT_DOUBLE_EQ(l.of(5).median_duration_us, 25.0);
    EXPECT_DOUBLE_EQ(l.of(5).typical_duration_us(), 25.0);
    EXPECT_DOUBLE_EQ(l.of(5).duration_us, 30.0);  // the linked iteration's own, for timelines and gaps
    EXPECT_EQ(l.of(6).iterations, 2u);  // not in step 5, where its input had other shapes
    EXPECT_DOUBLE_EQ(l.of(6).median_duration_us, 11.0);
    EXPECT_EQ(l.stats.nodes_with_repeats, 4u);
}

TEST(IterationRepeats, UnnumberedLabelsRepeatOnlyAtTheTopOfTheirThread) {
    const auto labelled = [](bool nested) {
        std::vector<std::string> events = {
            event("user_annotation", "block", 100, 100, 1), event("cpu_op", "aten::linear", 110, 40, 2),
            event("cpu_op", "aten::addmm", 115, 30, 3), event("cpu_op", "aten::relu", 160, 10, 4),
            event("user_annotation", "block", 300, 100), event("cpu_op", "aten::linear", 310, 20),
            event("cpu_op", "aten::addmm", 315, 10), event("cpu_op", "aten::relu", 360, 20)};
        if (nested) events.push_back(event("user_annotation", "forward", 50, 1000));
        return events;
    };
    const Linked top = link(labelled(false), "block");
    EXPECT_EQ(top.of(4).iterations, 2u);
    EXPECT_DOUBLE_EQ(top.of(4).median_duration_us, 30.0);
    // Inside "forward", two "block"s are parts of one pass, not iterations.
    const Linked inside = link(labelled(true), "block");
    EXPECT_EQ(inside.stats.profiled_iterations, 0u);
    EXPECT_EQ(inside.of(4).iterations, 1u);
}

TEST(IterationRepeats, OneProfiledIterationKeepsItsOwnDurations) {
    const Linked l = link({event("user_annotation", "ProfilerStep#3", 100, 100, 1),
                           event("cpu_op", "aten::linear", 110, 40, 2), event("cpu_op", "aten::addmm", 115, 30, 3),
                           event("cpu_op", "aten::relu", 160, 10, 4)});
    EXPECT_EQ(l.stats.profiled_iterations, 0u);
    EXPECT_EQ(l.stats.nodes_with_repeats, 0u);
    for (uint64_t id = 3; id <= 6; ++id) {
        EXPECT_EQ(l.of(id).iterations, 1u);
        EXPECT_DOUBLE_EQ(l.of(id).typical_duration_us(), l.of(id).duration_us);
    }
}

}  // namespace
}  // namespace mimic

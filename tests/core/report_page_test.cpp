// The live-memory estimate (exact on a small ET written here), the HTML page
// (every section present, trace text escaped), and the result readers'
// answers for files they cannot use.
#include <gtest/gtest.h>

#include "analysis/memory_timeline.h"
#include "analysis/report.h"
#include "io/trace_loader.h"
#include "report/report_page.h"
#include "report/result_files.h"
#include "test_support.h"

namespace mimic::report {
namespace {

std::string node(int id, const char* name, const char* schema, const char* inputs, const char* input_shapes,
                 const char* input_types, const char* outputs, const char* output_shapes, const char* output_types) {
    return std::string("{\"name\": \"") + name + "\", \"id\": " + std::to_string(id) +
           ", \"rf_id\": " + std::to_string(id) + ", \"parent\": 2, \"fw_parent\": 0, \"seq_id\": -1, \"scope\": 0, "
           "\"tid\": 1, \"fw_tid\": 0, \"op_schema\": \"" + schema + "\", \"inputs\": " + inputs +
           ", \"input_shapes\": " + input_shapes + ", \"input_types\": " + input_types + ", \"outputs\": " + outputs +
           ", \"output_shapes\": " + output_shapes + ", \"output_types\": " + output_types + "}";
}

// x (8 floats) and W (16 floats) exist before the step; mm makes y, relu z, sum s.
std::string small_step_et(const char* last_op_name = "aten::sum") {
    const std::string root =
        R"({"name": "[pytorch|profiler|execution_graph|process]", "id": 1, "rf_id": 1, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []},
{"name": "[pytorch|profiler|execution_graph|thread]", "id": 2, "rf_id": 2, "parent": 1, "fw_parent": 0, "seq_id": -1, "scope": 0, "tid": 1, "fw_tid": 0, "op_schema": "", "inputs": [], "input_shapes": [], "input_types": [], "outputs": [], "output_shapes": [], "output_types": []})";
    return std::string(R"({"schema": "1.0.1", "pid": 7, "time": "2026-11-26 00:00:00", "nodes": [)") + root + ",\n" +
           node(3, "aten::mm", "aten::mm(Tensor self, Tensor mat2) -> Tensor",
                R"([[1, 11, 0, 8, 4, "cpu"], [2, 10, 0, 16, 4, "cpu"]])", "[[2, 4], [4, 4]]",
                R"J(["Tensor(float)", "Tensor(float)"])J", R"([[3, 12, 0, 8, 4, "cpu"]])", "[[2, 4]]", R"J(["Tensor(float)"])J") +
           ",\n" +
           node(4, "aten::relu", "aten::relu(Tensor self) -> Tensor", R"([[3, 12, 0, 8, 4, "cpu"]])", "[[2, 4]]",
                R"J(["Tensor(float)"])J", R"([[4, 13, 0, 8, 4, "cpu"]])", "[[2, 4]]", R"J(["Tensor(float)"])J") +
           ",\n" +
           node(5, last_op_name, "aten::sum(Tensor self, *, ScalarType? dtype=None) -> Tensor",
                R"([[4, 13, 0, 8, 4, "cpu"], "<None>"])", "[[2, 4], []]", R"J(["Tensor(float)", "None"])J",
                R"([[5, 14, 0, 1, 4, "cpu"]])", "[[]]", R"J(["Tensor(float)"])J") +
           "]}";
}

TEST(MemoryTimeline, StoragesLiveFromTheirWriterToTheirLastUse) {
    const std::string path = testing::scratch_file("memory_small_step", "et.json", small_step_et());
    const analysis::Report r = analysis::analyze(load_trace(path));
    ASSERT_EQ(r.memory.size(), 1u);
    const analysis::MemoryTimeline& m = r.memory[0];
    EXPECT_EQ(m.device, "cpu");
    EXPECT_EQ(m.storages, 5u);
    EXPECT_EQ(m.resident_bytes, 32u + 64u);  // x and W: read before anything wrote them
    ASSERT_EQ(m.points.size(), 3u);
    // After mm: x, W (last used here) and y. After relu: y and z. After sum: z and s.
    EXPECT_EQ(m.points[0].live_bytes, 32u + 64u + 32u);
    EXPECT_EQ(m.points[1].live_bytes, 32u + 32u);
    EXPECT_EQ(m.points[2].live_bytes, 32u + 4u);
    EXPECT_EQ(m.peak_bytes, 128u);
    EXPECT_EQ(m.peak_node_id, 3u);
}

TEST(MemoryTimeline, RealGpuTraceHasACudaCurveBoundedByItsPeak) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const std::string path = testing::trace_path("pytorch/resnet_et.json.gz");
    const analysis::Report r = analysis::analyze(load_trace(path));
    ASSERT_FALSE(r.memory.empty());
    EXPECT_EQ(r.memory[0].device, "cuda:0");
    EXPECT_EQ(r.memory[0].points.size(), r.top_level_operators);
    for (const analysis::MemoryPoint& p : r.memory[0].points) EXPECT_LE(p.live_bytes, r.memory[0].peak_bytes);
    EXPECT_GT(r.memory[0].peak_bytes, r.memory[0].resident_bytes);
}

TEST(ReportPage, EverySectionIsThereAndTraceTextIsEscaped) {
    const std::string path =
        testing::scratch_file("report_escape", "et.json", small_step_et("evil::<script>alert(1)</script>"));
    ReportData d;
    d.inputs = {path};
    d.analysis = analysis::analyze(load_trace(path));
    const std::string html = render_report(d);
    size_t last = 0;
    for (const std::string& id : section_ids()) {
        const size_t at = html.find("<section id=\"" + id + "\"");
        ASSERT_NE(at, std::string::npos) << id;
        EXPECT_GT(at, last) << id << " out of order";
        last = at;
    }
    EXPECT_EQ(html.find("<script"), std::string::npos);
    EXPECT_NE(html.find("evil::&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(html.find("data-chart=\"memory\""), std::string::npos);
    // Without results, the sections say which command fills them.
    EXPECT_NE(html.find("mimic replay INPUT --json replay.json"), std::string::npos);
    EXPECT_NE(html.find("mimic predict INPUT --json predict.json"), std::string::npos);
}

TEST(ResultFiles, FilesThatAreNotResultsComeBackWithTheReason) {
    const ReplayResult missing = read_replay_result("/nonexistent/replay.json");
    EXPECT_NE(missing.problem.find("/nonexistent/replay.json"), std::string::npos);
    const std::string not_json = testing::scratch_file("result_not_json", "r.json", "[1, 2");
    EXPECT_NE(read_predict_result(not_json).problem.find("not a JSON object"), std::string::npos);
    const std::string other = testing::scratch_file("result_other", "r.json", R"({"schema": "1.0.1"})");
    EXPECT_NE(read_replay_result(other).problem.find("not a `mimic replay --json` report"), std::string::npos);
    EXPECT_NE(read_predict_result(other).problem.find("no iteration_ms"), std::string::npos);
    EXPECT_NE(read_simulate_result(other).problem.find("no ranks list"), std::string::npos);
    const std::string sim = testing::scratch_file(
        "result_sim", "s.json", R"({"iteration_ns": 43000, "ranks": [{"rank": 0, "finish_ns": 43000, "exposed_comm_ns": 43000}]})");
    const SimulateResult s = read_simulate_result(sim);
    EXPECT_TRUE(s.problem.empty());
    ASSERT_EQ(s.ranks.size(), 1u);
    EXPECT_EQ(s.ranks[0].finish_ns, 43000u);
}

}  // namespace
}  // namespace mimic::report

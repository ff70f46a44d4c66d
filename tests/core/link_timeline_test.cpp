#include "io/timeline_writer.h"

#include <gtest/gtest.h>
#include <simdjson.h>

#include <set>

#include "io/pytorch_et/et_reader.h"
#include "io/kineto/kineto_reader.h"
#include "link/link_profile.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic {
namespace {

TEST(Timeline, LinkedLinearTraceBecomesAChromeTrace) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    MIMIC_REQUIRE_TRACE("pytorch/linear_kineto.json.gz");
    Trace trace = read_pytorch_et(testing::trace_path("pytorch/linear_et.json.gz"));
    ProfileTrace profile = read_kineto_trace(testing::trace_path("pytorch/linear_kineto.json.gz"));
    LinkStats link = link_profile(trace, profile);
    std::string path = testing::scratch_dir("timeline") + "/linear.json";
    TimelineStats stats = write_timeline(trace, path);
    EXPECT_EQ(stats.host_events, link.linked);
    EXPECT_EQ(stats.device_events, trace.device_events.size());
    EXPECT_GT(stats.span_us, 1000.0);

    simdjson::dom::parser parser;
    simdjson::dom::element doc = parser.load(path);
    size_t host = 0, device = 0, flow_starts = 0, flow_ends = 0;
    std::set<uint64_t> et_ids;
    for (simdjson::dom::element e : doc["traceEvents"].get_array()) {
        std::string_view ph = e["ph"].get_string();
        if (ph == "s") ++flow_starts;
        if (ph == "f") ++flow_ends;
        if (ph != "X") continue;
        EXPECT_GE(double(e["ts"]), 0.0);
        EXPECT_GE(double(e["dur"]), 0.0);
        simdjson::dom::element args = e["args"];
        uint64_t et_id = 0;
        if (args["et_id"].get(et_id) == simdjson::SUCCESS) {
            ++host;
            et_ids.insert(et_id);
            const Node& node = trace.nodes[trace.find(NodeId(et_id)).value];
            EXPECT_EQ(std::string_view(e["name"]), trace.name(node));
        } else {
            ++device;
            uint64_t launcher = 0;
            EXPECT_EQ(args["launcher_et_id"].get(launcher), simdjson::SUCCESS);
        }
    }
    EXPECT_EQ(host, link.linked);
    EXPECT_EQ(et_ids.size(), host);
    EXPECT_EQ(device, trace.device_events.size());
    EXPECT_EQ(flow_starts, device);
    EXPECT_EQ(flow_ends, device);
    // Shapes ride along: aten::linear takes [512,1024], [1024,1024], [1024].
    std::string text = read_whole_file(path);
    EXPECT_NE(text.find(R"("input_shapes":"[[512,1024],[1024,1024],[1024]]")"), std::string::npos);
}

TEST(Timeline, UnlinkedTraceIsAnError) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    Trace trace = read_pytorch_et(testing::trace_path("pytorch/linear_et.json.gz"));
    EXPECT_THROW(write_timeline(trace, testing::scratch_dir("timeline") + "/none.json"), Error);
}

}  // namespace
}  // namespace mimic

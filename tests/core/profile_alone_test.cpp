// A profiler (Kineto) trace with no execution trace beside it: read as a
// trace of its own (io/kineto/profile_skeleton.h) and timed by linking the
// same profile, so analyze, report, timeline, convert and simulate take it.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "analysis/report.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "test_support.h"

namespace mimic {
namespace {

TEST(ProfileAlone, TheResnetGpuProfileIsATraceOfItsOwnOpsLabelsAndKernels) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_kineto.json.gz");
    const std::string path = testing::trace_path("pytorch/resnet_kineto.json.gz");
    const std::vector<TraceInput> inputs = expand_trace_inputs({path});
    ASSERT_EQ(inputs.size(), 1u);
    EXPECT_EQ(inputs[0].profile_path, path);  // timed by itself
    Trace trace = load_trace(path);
    EXPECT_EQ(trace.format, TraceFormat::KinetoProfile);
    KinetoReadOptions quiet;
    quiet.progress = false;
    const ProfileTrace profile = read_kineto_trace(path, quiet);
    const LinkStats stats = link_profile(trace, profile);
    // Every host event of the profile is a node, and each links to its own.
    EXPECT_EQ(stats.linked, stats.linkable);
    EXPECT_EQ(stats.linkable, profile.host.size());
    EXPECT_GT(trace.device_events.size(), 9000u);  // the kernels, under the ops that launched them
    const analysis::Report report = analysis::analyze(trace, {});
    ASSERT_FALSE(report.operators_by_time.empty());
    EXPECT_EQ(report.operators_by_time.front().name, "aten::cudnn_convolution");
    EXPECT_GT(report.category(analysis::OpCategory::Aten).count, 29000u);
    // Nothing of it replays: a profile records no operator's inputs.
    EXPECT_EQ(report.replay.replayable, 0u);
    EXPECT_GT(report.replay.without_schema, 7000u);
}

TEST(ProfileAlone, ADirectoryOfProfilesAloneIsOneTraceEach) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_kineto.json.gz");
    const std::string dir = testing::scratch_dir("profile_alone_dir");
    for (int r = 0; r < 2; ++r)
        std::filesystem::copy_file(testing::trace_path("pytorch/linear_kineto.json.gz"), dir + "/rank" + std::to_string(r) + ".json.gz",
                                   std::filesystem::copy_options::overwrite_existing);
    const std::vector<TraceInput> inputs = expand_trace_inputs({dir});
    ASSERT_EQ(inputs.size(), 2u);
    for (const TraceInput& in : inputs) EXPECT_EQ(in.profile_path, in.trace_path);
    EXPECT_EQ(load_trace(inputs[1].trace_path).rank, 1);  // from its name, as for an ET
}

}  // namespace
}  // namespace mimic

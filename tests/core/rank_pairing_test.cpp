// Ranks and profiles of foreign traces: the rank from Kineto's distributedInfo
// before the file name, and each ET of a directory paired with its profile by
// rank, then by process id, whatever the files are called. Inputs are the
// shared real traces under other names; the distributedInfo a multi-rank
// PyTorch job writes is added to a copy of a real Kineto trace.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/byte_source.h"
#include "test_support.h"

namespace mimic {
namespace {

namespace fs = std::filesystem;

const char* kEt = "pytorch/linear_et.json.gz";
const char* kProfile = "pytorch/linear_kineto.json.gz";

std::string fresh_dir(const std::string& name) {
    const std::string dir = testing::scratch_dir("rank_pairing/" + name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

void copy_to(const std::string& relative, const std::string& to) {
    fs::copy_file(testing::trace_path(relative), to, fs::copy_options::overwrite_existing);
}

// The real profile with the distributedInfo PyTorch writes for rank `rank` of 2.
void profile_of_rank(int rank, const std::string& to) {
    std::string text = read_whole_file(testing::trace_path(kProfile));
    const size_t open = text.find('{');
    text.insert(open + 1, "\n  \"distributedInfo\": {\"backend\": \"gloo\", \"rank\": " + std::to_string(rank) +
                              ", \"world_size\": 2},");
    std::ofstream(to) << text;
}

TEST(RankPairing, DistributedInfoIsReadWholeAndFromTheHead) {
    MIMIC_REQUIRE_TRACE(kProfile);
    const std::string dir = fresh_dir("info");
    profile_of_rank(1, dir + "/p.json");
    ProfileTrace p = read_kineto_trace(dir + "/p.json");
    EXPECT_EQ(p.distributed.rank, 1);
    EXPECT_EQ(p.distributed.world_size, 2);
    EXPECT_EQ(p.distributed.backend, "gloo");
    ProfileIdentity id = peek_profile_identity(dir + "/p.json");
    EXPECT_EQ(id.distributed.rank, 1);
    EXPECT_EQ(id.pid, 24248);  // the real trace's process
    EXPECT_EQ(peek_profile_identity(testing::trace_path(kProfile)).distributed.rank, -1);
}

TEST(RankPairing, DistributedInfoNamesTheRankBeforeTheFileName) {
    MIMIC_REQUIRE_TRACE(kEt);
    MIMIC_REQUIRE_TRACE(kProfile);
    const std::string dir = fresh_dir("source");
    copy_to(kEt, dir + "/et_rank0.json.gz");
    profile_of_rank(1, dir + "/p.json");
    Trace t = load_trace(dir + "/et_rank0.json.gz");
    EXPECT_EQ(t.rank, 0);
    EXPECT_EQ(t.rank_source, "file name");
    link_profile(t, read_kineto_trace(dir + "/p.json"));
    EXPECT_EQ(t.rank, 1);
    EXPECT_EQ(t.rank_source, "distributedInfo");
    EXPECT_EQ(t.world_size, 2);
    // A rank the recording itself gives is kept, and a profile of another rank is said to be one.
    Trace recorded = load_trace(dir + "/et_rank0.json.gz");
    recorded.rank_source = "meta.json";
    link_profile(recorded, read_kineto_trace(dir + "/p.json"));
    EXPECT_EQ(recorded.rank, 0);
    bool warned = false;
    for (const TraceWarning& w : recorded.warnings) warned = warned || w.message.find("a profile of another rank?") != std::string::npos;
    EXPECT_TRUE(warned);
}

TEST(RankPairing, ADirectoryPairsEachEtWithItsProfileByRankThenByPid) {
    MIMIC_REQUIRE_TRACE(kEt);
    MIMIC_REQUIRE_TRACE(kProfile);
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    // Ranks in the ETs' names, in the profiles' distributedInfo, crosswise to the names' order.
    const std::string ranks = fresh_dir("by_rank");
    copy_to(kEt, ranks + "/et_rank0.json.gz");
    copy_to(kEt, ranks + "/et_rank1.json.gz");
    profile_of_rank(1, ranks + "/trace_a.json");
    profile_of_rank(0, ranks + "/trace_b.json");
    std::vector<TraceInput> in = expand_trace_inputs({ranks});
    ASSERT_EQ(in.size(), 2u);
    EXPECT_EQ(fs::path(in[0].trace_path).filename(), "et_rank0.json.gz");
    EXPECT_EQ(fs::path(in[0].profile_path).filename(), "trace_b.json");
    EXPECT_EQ(in[0].pairing, "rank (distributedInfo)");
    EXPECT_EQ(fs::path(in[1].profile_path).filename(), "trace_a.json");

    // No ranks anywhere: the process id both files record (the linear pair's 24248); the
    // ResNet ET's pid is not its profile's, so it stays unpaired rather than guessed.
    const std::string pids = fresh_dir("by_pid");
    copy_to(kEt, pids + "/job_a.json.gz");
    copy_to(kProfile, pids + "/prof_x.json.gz");
    copy_to("pytorch/resnet_et.json.gz", pids + "/job_b.json.gz");
    if (fs::exists(testing::trace_path("pytorch/resnet_kineto.json.gz")))
        copy_to("pytorch/resnet_kineto.json.gz", pids + "/prof_y.json.gz");
    in = expand_trace_inputs({pids});
    ASSERT_EQ(in.size(), 2u);
    EXPECT_EQ(fs::path(in[0].profile_path).filename(), "prof_x.json.gz");
    EXPECT_EQ(in[0].pairing, "pid");
    EXPECT_TRUE(in[1].profile_path.empty()) << in[1].profile_path;

    // One directory per rank, the files named anyhow: the directory names the rank.
    const std::string nested = fresh_dir("nested");
    for (int r = 0; r < 2; ++r) {
        fs::create_directories(nested + "/rank" + std::to_string(r));
        copy_to(kEt, nested + "/rank" + std::to_string(r) + "/trace.json.gz");
        copy_to(kProfile, nested + "/rank" + std::to_string(r) + "/kineto.json.gz");
    }
    in = expand_trace_inputs({nested});
    ASSERT_EQ(in.size(), 2u);
    for (int r = 0; r < 2; ++r) {
        EXPECT_EQ(fs::path(in[r].profile_path).parent_path().filename(), "rank" + std::to_string(r));
        EXPECT_EQ(load_trace(in[r].trace_path).rank, r);
    }
}

}  // namespace
}  // namespace mimic

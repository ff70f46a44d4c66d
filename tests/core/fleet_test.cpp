// mimic fleet's pieces on the real traces: signatures, the choice of k,
// shards merged against one run, and bad files skipped and listed.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "compose/fleet_cluster.h"
#include "compose/fleet_inputs.h"
#include "compose/fleet_kmeans.h"
#include "compose/fleet_parts.h"
#include "compose/fleet_report.h"
#include "compose/fleet_scan.h"
#include "compose/fleet_signature.h"
#include "io/trace_loader.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic::fleet {
namespace {

namespace fs = std::filesystem;

constexpr const char* kResnet = "pytorch/resnet_et.json.gz";
constexpr const char* kResnet111 = "pytorch/resnet_1gpu_et_1.1.1.json.gz";
constexpr const char* kLinear = "pytorch/linear_et.json.gz";
constexpr const char* kFeeder = "chakra/feeder_sample.0.et";
constexpr const char* kAllReduce = "chakra/microbench/all_reduce/all_reduce.0.et";

constexpr size_t bucket(model::OpFamily f) { return static_cast<size_t>(f); }

Signature sign(const char* relative) { return compute_signature(load_trace(testing::trace_path(relative))); }

// A fresh scratch directory (the previous run's removed).
std::string fresh_dir(const std::string& name) {
    const std::string dir = testing::scratch_dir(name);
    fs::remove_all(dir);
    fs::create_directories(dir);
    return dir;
}

// `count` copies of a shared trace in `dir`, named PREFIX<i>.<ext as in the original>.
void copies(const char* relative, const std::string& dir, const std::string& prefix, int count) {
    const fs::path from = testing::trace_path(relative);
    for (int i = 0; i < count; ++i)
        fs::copy_file(from, fs::path(dir) / (prefix + std::to_string(i) + "-" + from.filename().string()), fs::copy_options::overwrite_existing);
}

ScanOptions two_threads() {
    ScanOptions o;
    o.threads = 2;
    return o;
}

TEST(FleetSignature, ResnetTimeGoesToConvolutions) {
    MIMIC_REQUIRE_TRACE(kResnet);
    const Signature s = sign(kResnet);
    EXPECT_EQ(s.format, "pytorch_et");
    EXPECT_EQ(s.time_source, "estimated");  // no profile linked
    const auto time = shares(s.time_us);
    EXPECT_GT(time[bucket(model::OpFamily::Conv)], 0.5);
    EXPECT_GT(s.flops[bucket(model::OpFamily::Conv)], 0);
    // analyze finds 15 all_reduce and 6 broadcast calls in this trace
    EXPECT_EQ(s.collectives, 21u);
    EXPECT_GT(s.bytes[kCommBucket], 290.0 * (1 << 20));
    EXPECT_GT(time[kCommBucket], 0);
    uint64_t gemm_calls = 0;
    for (uint64_t c : s.gemm_flops_hist) gemm_calls += c;
    EXPECT_GT(gemm_calls, 100u);
}

TEST(FleetSignature, LinearIsGemm) {
    MIMIC_REQUIRE_TRACE(kLinear);
    const Signature s = sign(kLinear);
    EXPECT_GT(shares(s.time_us)[bucket(model::OpFamily::Gemm)], 0.5);
    EXPECT_DOUBLE_EQ(shares(s.flops)[bucket(model::OpFamily::Gemm)], 1.0);
    EXPECT_EQ(s.collectives, 0u);
    EXPECT_EQ(s.bytes[kCommBucket], 0);
}

TEST(FleetSignature, ChakraTraceTimedByItsDeviceWork) {
    MIMIC_REQUIRE_TRACE(kFeeder);
    const Signature s = sign(kFeeder);
    EXPECT_EQ(s.format, "chakra");
    EXPECT_EQ(s.time_source, "chakra_device");
    EXPECT_GT(s.total_time_us(), 0);
    EXPECT_GT(shares(s.time_us)[kCommBucket], 0);  // NCCL kernels
    EXPECT_GT(s.ops, 1000u);
}

TEST(FleetSignature, CollectiveMicrobenchmarkIsAllCommunication) {
    MIMIC_REQUIRE_TRACE(kAllReduce);
    const Signature s = sign(kAllReduce);
    EXPECT_EQ(s.collectives, 1u);
    EXPECT_EQ(s.bytes[kCommBucket], 1048576.0);
    EXPECT_DOUBLE_EQ(shares(s.time_us)[kCommBucket], 1.0);
}

TEST(FleetSignature, FeatureVectorIsWeightedDistributions) {
    MIMIC_REQUIRE_TRACE(kLinear);
    const Signature s = sign(kLinear);
    const std::vector<double> v = feature_vector(s);
    ASSERT_EQ(v.size(), 3 * kBuckets + 2 * kHistBuckets);
    double time = 0;
    for (size_t i = 0; i < kBuckets; ++i) time += v[i];
    EXPECT_NEAR(time, 1.0, 1e-12);
    // The same work signs the same, whatever the file.
    EXPECT_EQ(feature_vector(sign(kLinear)), v);
}

TEST(FleetSignature, HistogramBuckets) {
    EXPECT_EQ(hist_bucket(0, kGemmFlopsLog2Lo), 0u);
    EXPECT_EQ(hist_bucket(1, kGemmFlopsLog2Lo), 0u);
    EXPECT_EQ(hist_bucket(std::ldexp(1.0, 12), kGemmFlopsLog2Lo), 1u);
    EXPECT_EQ(hist_bucket(std::ldexp(1.0, 14) - 1, kGemmFlopsLog2Lo), 1u);
    EXPECT_EQ(hist_bucket(std::ldexp(1.0, 60), kGemmFlopsLog2Lo), kHistBuckets - 1);
    EXPECT_EQ(hist_bucket_label(1, kGemmFlopsLog2Lo), "2^12..2^14");
}

// Three kinds of work, copied several times each: three clusters, each one kind.
TEST(FleetCluster, CopiesOfThreeKindsMakeThreeClusters) {
    MIMIC_REQUIRE_TRACE(kResnet111);
    MIMIC_REQUIRE_TRACE(kLinear);
    MIMIC_REQUIRE_TRACE(kAllReduce);
    const std::string dir = fresh_dir("fleet-kinds");
    copies(kResnet111, dir, "a", 6);
    copies(kLinear, dir, "b", 4);
    copies(kAllReduce, dir, "c", 3);
    const FleetResult r = cluster_items(scan_fleet(list_fleet_inputs({dir}), two_threads()), "nominal", {});
    ASSERT_EQ(r.readable.size(), 13u);
    EXPECT_EQ(r.clustering.k, 3u) << r.clustering.reason;
    ASSERT_EQ(r.clustering.clusters.size(), 3u);
    const size_t sizes[] = {6, 4, 3};
    const char* kinds[] = {"/a", "/b", "/c"};
    for (size_t c = 0; c < 3; ++c) {
        const Cluster& cl = r.clustering.clusters[c];
        EXPECT_EQ(cl.members.size(), sizes[c]);
        EXPECT_DOUBLE_EQ(cl.weight, static_cast<double>(sizes[c]) / 13.0);
        for (size_t m : cl.members) EXPECT_NE(r.items[r.readable[m]].path.find(kinds[c]), std::string::npos);
    }
    EXPECT_LT(r.clustering.time.max_pp, 1e-9);
    EXPECT_LT(r.clustering.bytes.l1_pp, 1e-9);
}

// Signatures of real traces with every amount scaled by its own factor in
// [1 - spread, 1 + spread]: a family of jobs that differ a little.
std::vector<Signature> jittered(const Signature& base, int count, double spread, uint64_t seed) {
    std::vector<Signature> out;
    uint64_t x = seed;
    auto uniform = [&x] {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        return static_cast<double>(x >> 11) * 0x1.0p-53;
    };
    for (int i = 0; i < count; ++i) {
        Signature s = base;
        for (size_t b = 0; b < kBuckets; ++b) {
            s.time_us[b] *= 1 + spread * (2 * uniform() - 1);
            s.bytes[b] *= 1 + spread * (2 * uniform() - 1);
            s.flops[b] *= 1 + spread * (2 * uniform() - 1);
        }
        out.push_back(s);
    }
    return out;
}

TEST(FleetCluster, ChoosesKOnSeparatedGroupsOfVariedJobs) {
    // Three kinds of job: a ResNet's convolutions, a linear model's GEMMs and
    // a collective microbenchmark. (The feeder sample is a ResNet too.)
    MIMIC_REQUIRE_TRACE(kResnet);
    MIMIC_REQUIRE_TRACE(kLinear);
    MIMIC_REQUIRE_TRACE(kAllReduce);
    std::vector<Signature> all;
    const char* bases[] = {kResnet, kLinear, kAllReduce};
    for (int g = 0; g < 3; ++g) {
        std::vector<Signature> group = jittered(sign(bases[g]), 15, 0.2, 7 + g);
        all.insert(all.end(), group.begin(), group.end());
    }
    const FleetClustering c = cluster_fleet(all);
    EXPECT_EQ(c.k, 3u) << c.reason;
    // Every cluster holds one group's jobs.
    for (const Cluster& cl : c.clusters) {
        EXPECT_EQ(cl.members.size(), 15u);
        for (size_t m : cl.members) EXPECT_EQ(m / 15, cl.members.front() / 15);
    }
    EXPECT_LT(c.time.max_pp, 5.0);
}

TEST(FleetCluster, OneGroupOfNearCopiesIsOneCluster) {
    MIMIC_REQUIRE_TRACE(kResnet);
    const std::vector<Signature> all = jittered(sign(kResnet), 30, 0.02, 3);
    const FleetClustering c = cluster_fleet(all);
    EXPECT_EQ(c.k, 1u) << c.reason;
    ASSERT_EQ(c.clusters.size(), 1u);
    EXPECT_DOUBLE_EQ(c.clusters[0].weight, 1.0);
    EXPECT_LT(c.time.max_pp, 2.0);
}

TEST(FleetCluster, DeterministicAcrossRuns) {
    MIMIC_REQUIRE_TRACE(kResnet);
    MIMIC_REQUIRE_TRACE(kLinear);
    std::vector<Signature> all = jittered(sign(kResnet), 20, 0.3, 1);
    const std::vector<Signature> more = jittered(sign(kLinear), 20, 0.3, 2);
    all.insert(all.end(), more.begin(), more.end());
    const FleetClustering a = cluster_fleet(all), b = cluster_fleet(all);
    EXPECT_EQ(a.assignment, b.assignment);
    EXPECT_EQ(a.k, b.k);
}

TEST(FleetKMeans, SilhouetteIgnoresDifferencesBelowTheResolution) {
    // Two points a hair apart and one far away.
    const std::vector<Point> points = {{0.0}, {0.001}, {0.0}, {0.001}, {1.0}, {1.0}};
    const std::vector<size_t> split_hair = {0, 1, 0, 1, 2, 2};
    const std::vector<size_t> by_kind = {0, 0, 0, 0, 1, 1};
    const SilhouetteScorer exact(points, 0.0), coarse(points, 0.02);
    // Without a resolution, splitting the hair scores as well as it can.
    EXPECT_NEAR(exact.score(split_hair, 3), 1.0, 1e-9);
    EXPECT_LT(coarse.score(split_hair, 3), coarse.score(by_kind, 2));
}

// A Slurm array's parts, merged, cluster exactly as one run.
TEST(FleetShards, MergedShardsEqualOneRun) {
    MIMIC_REQUIRE_TRACE(kResnet);
    const std::string dir = fresh_dir("fleet-shards");
    copies(kLinear, dir, "b", 3);
    copies(kAllReduce, dir, "c", 2);
    std::ofstream(dir + "/notes.txt") << "not a trace\n";
    const std::vector<FleetInput> inputs = list_fleet_inputs({testing::traces_dir(), dir});
    const std::string single = fleet_json(cluster_items(scan_fleet(inputs, two_threads()), "nominal", {}));

    const int shards = 3;
    std::vector<FleetPart> parts;
    std::vector<std::string> paths;
    for (int s = shards - 1; s >= 0; --s) {  // any order
        ScanOptions o = two_threads();
        o.shard = s;
        o.shards = shards;
        FleetPart part;
        part.shard = s;
        part.shards = shards;
        part.members = inputs.size();
        part.listing_digest = listing_digest(inputs);
        part.time_model = "nominal";
        part.items = scan_fleet(inputs, o);
        const std::string path = dir + "/../fleet-part-" + std::to_string(s) + ".json";
        std::ofstream(path) << part_to_json(part);
        parts.push_back(read_part(path));
        paths.push_back(path);
    }
    std::string model;
    const std::string merged = fleet_json(cluster_items(merge_parts(parts, paths, &model), model, {}));
    EXPECT_EQ(merged, single);

    // A missing shard, or a part of another listing, is refused by name.
    const std::vector<FleetPart> two(parts.begin(), parts.begin() + 2);
    EXPECT_NE(testing::error_message_of([&] { merge_parts(two, paths); }).find("missing shards"), std::string::npos);
    std::vector<FleetPart> other = parts;
    other[1].listing_digest ^= 1;
    EXPECT_NE(testing::error_message_of([&] { merge_parts(other, paths); }).find(paths[1]), std::string::npos);
}

TEST(FleetBadInput, UnreadableFilesAreListedAndSkipped) {
    MIMIC_REQUIRE_TRACE(kLinear);
    const std::string dir = fresh_dir("fleet-bad");
    copies(kLinear, dir, "good", 2);
    std::ofstream(dir + "/empty.et").close();
    std::ofstream(dir + "/garbage.json.gz") << "\x1f\x8b\x08\x00 this is no deflate stream at all";
    std::ofstream(dir + "/truncated.json") << R"({"schema": "1.0.1", "pid": 1, "nodes": [{"id": 1, "name": "x")";
    std::ofstream(dir + "/readme.md") << "# notes\n";
    const std::vector<FleetItem> items = scan_fleet(list_fleet_inputs({dir, dir + "/missing.et"}), two_threads());
    ASSERT_EQ(items.size(), 7u);
    size_t bad = 0;
    for (const FleetItem& it : items) {
        if (it.ok) continue;
        ++bad;
        EXPECT_NE(it.reason.find(it.path), std::string::npos) << it.reason;  // names the file
        EXPECT_GT(it.reason.size(), it.path.size() + 5) << it.reason;        // and what failed
    }
    EXPECT_EQ(bad, 5u);
    const FleetResult r = cluster_items(items, "nominal", {});
    EXPECT_EQ(r.readable.size(), 2u);
    EXPECT_NE(fleet_table(r).find("truncated.json"), std::string::npos);
    EXPECT_NE(fleet_json(r).find("missing.et"), std::string::npos);

    // Nothing readable at all is an error that says why.
    std::vector<FleetItem> only_bad;
    for (const FleetItem& it : items)
        if (!it.ok) only_bad.push_back(it);
    const std::string message = testing::error_message_of([&] { cluster_items(only_bad, "nominal", {}); });
    EXPECT_NE(message.find("none of the 5 files"), std::string::npos) << message;
    EXPECT_NE(message.find("garbage.json.gz"), std::string::npos) << message;
}

}  // namespace
}  // namespace mimic::fleet

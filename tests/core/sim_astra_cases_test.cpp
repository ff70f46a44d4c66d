// mimic simulate against ASTRA-sim's own outputs: every case of
// ../shared/astra/cases.json (and of tests/data/astra_extra, cases made the
// same way on inputs the simulator was not written against) is simulated and
// each rank's finish and exposed-communication times compared, with the
// statistics ASTRA-sim printed. Where ASTRA-sim misbehaves, the test checks
// what mimic does instead.
#include <gtest/gtest.h>
#include <simdjson.h>

#include <filesystem>
#include <map>
#include <string>

#include "sim/simulator.h"
#include "support/error.h"
#include "test_support.h"

namespace mimic::sim {
namespace {

struct AstraCase {
    std::string name, workload, network, system, memory, comm_group, backend, status;
    std::vector<std::string> extra_args;
    std::vector<int64_t> finish, exposed;
    std::map<int, std::map<std::string, int64_t>> statistics;
};

std::vector<AstraCase> load_cases(const std::string& dir) {
    std::vector<AstraCase> cases;
    simdjson::dom::parser parser;
    simdjson::dom::element root = parser.load(dir + "/cases.json");
    for (simdjson::dom::element c : root["cases"].get_array()) {
        AstraCase k;
        k.name = std::string(c["name"].get_string().value());
        k.workload = dir + "/" + std::string(c["workload"].get_string().value());
        k.network = dir + "/" + std::string(c["network"].get_string().value());
        k.system = dir + "/" + std::string(c["system"].get_string().value());
        k.memory = dir + "/" + std::string(c["memory"].get_string().value());
        std::string_view group;
        if (c["comm_group"].get(group) == simdjson::SUCCESS) k.comm_group = dir + "/" + std::string(group);
        k.backend = std::string(c["backend"].get_string().value());
        k.status = std::string(c["status"].get_string().value());
        for (auto a : c["extra_args"].get_array()) k.extra_args.emplace_back(a.get_string().value());
        simdjson::dom::object summary;
        if (c["astra_stdout_summary"].get(summary) == simdjson::SUCCESS) {
            simdjson::dom::array finish, exposed;
            if (summary["finish_cycles"].get(finish) == simdjson::SUCCESS)
                for (auto v : finish) k.finish.push_back(v.is_null() ? -1 : v.get_int64().value());
            if (summary["exposed_comm_cycles"].get(exposed) == simdjson::SUCCESS)
                for (auto v : exposed) k.exposed.push_back(v.is_null() ? -1 : v.get_int64().value());
            simdjson::dom::object stats;
            if (summary["statistics"].get(stats) == simdjson::SUCCESS)
                for (auto rank : stats)
                    for (auto field : rank.value.get_object()) {
                        int64_t v;
                        if (field.value.get(v) == simdjson::SUCCESS)
                            k.statistics[std::stoi(std::string(rank.key))][std::string(field.key)] = v;
                    }
        }
        cases.push_back(std::move(k));
    }
    return cases;
}

SimulationInput input_of(const AstraCase& k, const std::string& system_override = "") {
    SimulationInput in;
    std::vector<std::string> warnings;
    in.network = read_network_config(k.network, warnings);
    in.system = read_system_config(system_override.empty() ? k.system : system_override, warnings);
    in.memory = read_remote_memory_config(k.memory, warnings);
    if (!k.comm_group.empty()) {
        in.comm_groups = read_comm_groups(k.comm_group);
        in.comm_groups_source = k.comm_group;
    }
    in.options.congestion_aware = k.backend == "aware";
    for (const std::string& a : k.extra_args) {
        const auto eq = a.find('=');
        const std::string key = a.substr(0, eq), value = a.substr(eq + 1);
        if (key == "--comm-scale") in.options.comm_scale = std::stod(value);
        else if (key == "--compute-scale") in.options.compute_scale = std::stod(value);
        else if (key == "--injection-scale") in.options.injection_scale = std::stod(value);
        else if (key == "--num-queues-per-dim") in.options.num_queues_per_dim = std::stoi(value);
        else if (key == "--rendezvous-protocol") in.options.rendezvous = value == "true";
        else ADD_FAILURE() << k.name << ": unknown ASTRA-sim option " << a;
    }
    in.graphs = read_workload_prefix(k.workload, in.network.total_npus());
    return in;
}

const std::map<std::string, Tick RankResult::*>& statistic_fields() {
    static const std::map<std::string, Tick RankResult::*> fields = {
        {"Wall time", &RankResult::wall_ns},
        {"GPU time", &RankResult::gpu_compute_ns},
        {"CPU time", &RankResult::cpu_compute_ns},
        {"Comm time", &RankResult::comm_ns},
        {"Total compute-communication overlap", &RankResult::overlap_ns},
    };
    return fields;
}

// Cases where ASTRA-sim misbehaves (its README lists them); checked below.
bool is_quirk(const std::string& name) {
    for (const char* q : {"mix8_hgx_commscale2", "mix8_hgx_computescale2", "mb_ag4_ring4_dbt", "quirk_1impl_for_2d_net",
                          "quirk_hd_all_to_all", "quirk_ed0_concurrent8", "aware_2d_rejected"})
        if (name == q) return true;
    return false;
}

void expect_matches_astra(const AstraCase& k) {
    SCOPED_TRACE(k.name);
    const SimulationResult r = simulate(input_of(k));
    ASSERT_TRUE(r.errors.empty()) << r.errors.front();
    ASSERT_EQ(r.ranks.size(), k.finish.size());
    const double tolerance = k.backend == "aware" ? 0.02 : 0.001;
    for (size_t i = 0; i < r.ranks.size(); ++i) {
        ASSERT_TRUE(r.ranks[i].finished) << "rank " << i;
        EXPECT_NEAR(static_cast<double>(r.ranks[i].finish_ns), static_cast<double>(k.finish[i]), tolerance * k.finish[i]) << "rank " << i;
        EXPECT_NEAR(static_cast<double>(r.ranks[i].exposed_comm_ns), static_cast<double>(k.exposed[i]),
                    std::max(1.0, tolerance * k.exposed[i]))
            << "rank " << i;
    }
    for (const auto& [rank, stats] : k.statistics)
        for (const auto& [name, value] : stats) {
            auto f = statistic_fields().find(name);
            if (f == statistic_fields().end()) continue;  // roofline utilisation percentages
            EXPECT_NEAR(static_cast<double>(r.ranks[static_cast<size_t>(rank)].*(f->second)), static_cast<double>(value),
                        std::max(1.0, tolerance * value))
                << "rank " << rank << " " << name;
        }
}

TEST(SimAstraCases, EveryCaseMatchesAstraSim) {
    const std::string dir = testing::astra_dir();
    if (!std::filesystem::exists(dir + "/cases.json")) GTEST_SKIP() << "ASTRA-sim cases not found under " << dir << " (../shared/astra)";
    int checked = 0;
    for (const AstraCase& k : load_cases(dir)) {
        if (k.status != "ok" || is_quirk(k.name)) continue;
        expect_matches_astra(k);
        ++checked;
    }
    EXPECT_GE(checked, 50);
}

TEST(SimAstraCases, HeldOutCasesMatchAstraSim) {
    const std::string dir = std::string(MIMIC_SOURCE_DIR) + "/tests/data/astra_extra";
    if (!std::filesystem::exists(dir + "/cases.json")) GTEST_SKIP() << "no extra cases in " << dir;
    int checked = 0;
    for (const AstraCase& k : load_cases(dir)) {
        if (k.status != "ok") continue;
        if (k.name == "ar8_2d_sw4_ring2_dbt_inner" || k.name == "layers64_3d_ring4_ring4_sw4_dbt") {
            // doubleBinaryTree before the last dimension under localBWAware:
            // ASTRA-sim runs a whole all-reduce in place of that dimension's
            // reduce-scatter and all-gather (its quirk 3); mimic runs them as
            // ring and says so (src/sim/README.md).
            const SimulationResult r = simulate(input_of(k));
            bool warned = false;
            for (const auto& w : r.warnings) warned = warned || w.find("doubleBinaryTree before the last dimension") != std::string::npos;
            EXPECT_TRUE(warned) << k.name;
            EXPECT_TRUE(r.errors.empty()) << k.name;
            continue;
        }
        expect_matches_astra(k);
        ++checked;
    }
    EXPECT_GE(checked, 54);
}

// Ranks that run alike are simulated once; the full simulation of every rank
// gives the same numbers to the ns.
TEST(SimAstraCases, SimulatingOneRankForAllIsExact) {
    const std::string dir = testing::astra_dir();
    if (!std::filesystem::exists(dir + "/cases.json")) GTEST_SKIP() << "ASTRA-sim cases not found under " << dir;
    int symmetric = 0;
    std::vector<AstraCase> cases = load_cases(dir);
    const std::string extra = std::string(MIMIC_SOURCE_DIR) + "/tests/data/astra_extra";
    if (std::filesystem::exists(extra + "/cases.json"))
        for (AstraCase& k : load_cases(extra)) cases.push_back(std::move(k));
    for (const AstraCase& k : cases) {
        if (k.status != "ok") continue;
        const SimulationInput in = input_of(k);
        if (!symmetry_obstacle(in).empty()) continue;
        SCOPED_TRACE(k.name);
        ++symmetric;
        SimulationOptions full;
        full.use_symmetry = false;
        const SimulationResult once = simulate(in), every = simulate(in, full);
        EXPECT_TRUE(once.simulated_once);
        EXPECT_FALSE(every.simulated_once);
        ASSERT_EQ(once.ranks.size(), every.ranks.size());
        for (size_t r = 0; r < once.ranks.size(); ++r) {
            EXPECT_EQ(once.ranks[r].finish_ns, every.ranks[r].finish_ns) << "rank " << r;
            EXPECT_EQ(once.ranks[r].exposed_comm_ns, every.ranks[r].exposed_comm_ns) << "rank " << r;
            EXPECT_EQ(once.ranks[r].comm_ns, every.ranks[r].comm_ns) << "rank " << r;
            EXPECT_EQ(once.ranks[r].overlap_ns, every.ranks[r].overlap_ns) << "rank " << r;
        }
    }
    EXPECT_GE(symmetric, 20);
}

class SimAstraQuirks : public ::testing::Test {
protected:
    void SetUp() override {
        dir_ = testing::astra_dir();
        if (!std::filesystem::exists(dir_ + "/cases.json")) GTEST_SKIP() << "ASTRA-sim cases not found under " << dir_;
        for (AstraCase& k : load_cases(dir_)) cases_[k.name] = std::move(k);
    }
    const AstraCase& at(const std::string& name) { return cases_.at(name); }
    static Tick last_finish(const SimulationResult& r) {
        Tick t = 0;
        for (const auto& x : r.ranks) {
            EXPECT_TRUE(x.finished);
            t = std::max(t, x.finish_ns);
        }
        return t;
    }
    static bool warned(const SimulationResult& r, const std::string& text) {
        for (const auto& w : r.warnings)
            if (w.find(text) != std::string::npos) return true;
        return false;
    }
    std::string dir_;
    std::map<std::string, AstraCase> cases_;
};

// ASTRA-sim ignores --comm-scale and --compute-scale; mimic scales sizes and durations.
TEST_F(SimAstraQuirks, CommAndComputeScaleAreHonoured) {
    const Tick base = last_finish(simulate(input_of(at("mix8_hgx"))));
    EXPECT_EQ(base, 1119759u);
    const SimulationResult comm = simulate(input_of(at("mix8_hgx_commscale2")));
    const SimulationResult compute = simulate(input_of(at("mix8_hgx_computescale2")));
    EXPECT_GT(last_finish(comm), base + base / 10);
    EXPECT_GT(last_finish(compute), base + base / 10);
    // Compute is serial with the collectives here: doubling it adds its whole time, exposure stays.
    EXPECT_EQ(compute.ranks[0].exposed_comm_ns, simulate(input_of(at("mix8_hgx"))).ranks[0].exposed_comm_ns);
}

// ASTRA-sim runs a 1 MiB all-gather as a tree all-reduce under doubleBinaryTree.
TEST_F(SimAstraQuirks, DoubleBinaryTreeAllGatherRunsAsRing) {
    const SimulationResult dbt = simulate(input_of(at("mb_ag4_ring4_dbt")));
    EXPECT_TRUE(warned(dbt, "doubleBinaryTree is an all-reduce algorithm"));
    const SimulationResult ring = simulate(input_of(at("mb_ag4_ring4_dbt"), dir_ + "/configs/system/ring_lifo_s1_c1.json"));
    EXPECT_EQ(last_finish(dbt), last_finish(ring));
    EXPECT_NE(last_finish(dbt), 87069u);  // ASTRA-sim's all-reduce time
}

// One implementation for a 2-D network: ASTRA-sim spans the first dimension only.
TEST_F(SimAstraQuirks, ShortImplementationListCoversEveryDimension) {
    const SimulationResult r = simulate(input_of(at("quirk_1impl_for_2d_net")));
    EXPECT_TRUE(warned(r, "implementation(s) for 2 network dimensions"));
    EXPECT_EQ(last_finish(r), 2021523u);  // ASTRA-sim's own time with ["ring", "ring"]
}

// ASTRA-sim exits with an error on a halvingDoubling all-to-all.
TEST_F(SimAstraQuirks, HalvingDoublingAllToAllRunsAsDirect) {
    const SimulationResult r = simulate(input_of(at("quirk_hd_all_to_all")));
    EXPECT_TRUE(warned(r, "halvingDoubling has no all-to-all"));
    EXPECT_GT(last_finish(r), 0u);
}

// endpoint-delay 0 with collectives issued together trips an assertion in ASTRA-sim.
TEST_F(SimAstraQuirks, ZeroEndpointDelayRuns) {
    const SimulationResult r = simulate(input_of(at("quirk_ed0_concurrent8")));
    EXPECT_TRUE(r.errors.empty());
    // Below the same workload and settings with endpoint-delay 10.
    const SimulationResult ed10 = simulate(input_of(at("quirk_ed0_concurrent8"), dir_ + "/configs/system/ring_lifo_s1_c1.json"));
    EXPECT_LT(last_finish(r), last_finish(ed10));
}

// ASTRA-sim's congestion-aware backend takes 1-D networks only.
TEST_F(SimAstraQuirks, CongestionAwareRunsMultiDimensionalNetworks) {
    const SimulationResult aware = simulate(input_of(at("aware_2d_rejected")));
    const SimulationResult unaware = simulate(input_of(at("mix16_2d_ring4_sw4_ringring")));
    // Store and forward pays each hop's serialization (two through a switch): never faster.
    EXPECT_TRUE(aware.errors.empty());
    EXPECT_GT(last_finish(aware), last_finish(unaware));
}

}  // namespace
}  // namespace mimic::sim

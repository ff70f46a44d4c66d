// Collectives a rank runs at once. ASTRA-sim's workload layer keeps one in
// flight; Gloo's process group runs one per worker thread (two by default),
// which `simulate` and `predict` take for collectives on CPU tensors, and the
// system layer then runs as many streams as its active chunks allow.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "sim/simulator.h"
#include "sim/trace_workload.h"

namespace mimic::sim {
namespace {

// Two independent 1 MiB all-reduces on each of 2 ranks.
SharedGraph two_all_reduces(int rank) {
    RankGraphBuilder b("two_all_reduces", rank);
    for (uint64_t id : {1, 2}) {
        WorkloadNode n;
        n.id = id;
        n.type = ChakraNodeType::CommColl;
        n.comm_type = ChakraCollective::AllReduce;
        n.comm_size = 1 << 20;
        b.add(n, {});
    }
    return std::make_shared<const RankGraph>(b.finish());
}

Tick finish_ns(int in_flight, int active_chunks) {
    SimulationInput input;
    std::vector<std::string> warnings;
    input.network = parse_network_config("topology: [ Switch ]\nnpus_count: [ 2 ]\nbandwidth: [ 1 ]\nlatency: [ 100000 ]\n",
                                         "net", warnings);
    input.system = parse_system_config(
        R"({"scheduling-policy": "FIFO", "collective-optimization": "localBWAware", "endpoint-delay": 1,
            "active-chunks-per-dimension": )" +
            std::to_string(active_chunks) + R"(, "preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
            "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
            "all-to-all-implementation": ["direct"], "local-mem-bw": 100})",
        "sys", warnings);
    input.graphs = {two_all_reduces(0), two_all_reduces(1)};
    input.options.collectives_in_flight = in_flight;
    const SimulationResult r = simulate(input);
    EXPECT_TRUE(r.errors.empty());
    EXPECT_TRUE(r.ranks[0].finished);
    return r.ranks[0].finish_ns;
}

TEST(CollectivesInFlight, TwoAtOnceTakeTheTimeOfOne) {
    const Tick one_at_a_time = finish_ns(1, 2);
    const Tick two_at_once = finish_ns(2, 2);
    // The same collective twice, back to back or side by side (no contention in the analytical network).
    EXPECT_NEAR(static_cast<double>(two_at_once), static_cast<double>(one_at_a_time) / 2, 2.0);
    // ASTRA-sim's own setting is unchanged by the system's active chunks.
    EXPECT_EQ(finish_ns(1, 1), one_at_a_time);
}

TEST(CollectivesInFlight, TheSystemStillRunsAsManyStreamsAsItsActiveChunks) {
    // Issued together, but one active chunk per dimension: one after the other.
    EXPECT_EQ(finish_ns(2, 1), finish_ns(1, 1));
}

TEST(CollectivesInFlight, GlooStepsCollectivesAreOnCpuTensors) {
    // mimic's own 2-rank DDP recording (tests/data/ddp_gloo_misfiled): 4 bucket all-reduces a rank.
    const TraceWorkload w = read_trace_workload({std::string(MIMIC_SOURCE_DIR) + "/tests/data/ddp_gloo_misfiled"});
    ASSERT_EQ(w.graphs.size(), 2u);
    EXPECT_EQ(w.cpu_collectives, 8u);
}

TEST(CollectivesInFlight, GlooCollectivesTakeTwoUnlessTold) {
    TraceWorkload gloo;
    gloo.cpu_collectives = 3;
    SystemConfig fifo;
    fifo.scheduling = SchedulingPolicy::Fifo;
    std::vector<std::string> notes;
    EXPECT_EQ(collectives_in_flight_for(gloo, 0, fifo, notes), 2);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("Gloo's worker threads"), std::string::npos) << notes[0];
    notes.clear();
    EXPECT_EQ(collectives_in_flight_for(gloo, 1, fifo, notes), 1);
    EXPECT_EQ(collectives_in_flight_for(TraceWorkload{}, 0, fifo, notes), 1);
    EXPECT_TRUE(notes.empty());
}

TEST(CollectivesInFlight, LifoSchedulingKeepsOneUnlessTold) {
    // Under LIFO two in flight deadlock a real 2-rank DDP step: a rank whose
    // second bucket was ready before its stream freed starts that one first.
    TraceWorkload gloo;
    gloo.cpu_collectives = 8;
    SystemConfig lifo;
    lifo.source = "sys.json";
    std::vector<std::string> notes;
    EXPECT_EQ(collectives_in_flight_for(gloo, 0, lifo, notes), 1);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("sys.json does not schedule FIFO"), std::string::npos) << notes[0];
    notes.clear();
    EXPECT_EQ(collectives_in_flight_for(gloo, 2, lifo, notes), 2);
    ASSERT_EQ(notes.size(), 1u);
    EXPECT_NE(notes[0].find("never finish"), std::string::npos) << notes[0];
}

}  // namespace
}  // namespace mimic::sim

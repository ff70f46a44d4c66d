// The critical path read off a simulation's spans: back from the last node
// through the dependency that ended as it started, or else the node before
// it on its resource.
#include <gtest/gtest.h>

#include <vector>

#include "sim/critical_path.h"

namespace mimic::sim {
namespace {

WorkloadNode node(uint64_t id, ChakraNodeType type, bool cpu) {
    WorkloadNode n;
    n.id = id;
    n.type = type;
    n.is_cpu_op = cpu;
    return n;
}

std::vector<uint64_t> ids_on_path(const SimulationResult& r, const RankGraph& g) {
    std::vector<uint64_t> ids;
    for (const CriticalStep& s : critical_path(r, g, 0)) ids.push_back(g.nodes[s.node].id);
    return ids;
}

TEST(CriticalPath, FollowsTheDependencyThatEndedLast) {
    // A backward op queues an all-reduce (C) and goes on (B); the optimizer (D)
    // needs both, and the all-reduce ends later: A, C, D.
    RankGraphBuilder b("t", 0);
    b.add(node(1, ChakraNodeType::Comp, true), {});
    b.add(node(2, ChakraNodeType::Comp, true), {1});
    b.add(node(3, ChakraNodeType::CommColl, false), {1});
    b.add(node(4, ChakraNodeType::Comp, true), {2, 3});
    const RankGraph g = b.finish();
    SimulationResult r;
    r.spans = {{0, 0, NodeClass::Cpu, 0, 10}, {0, 1, NodeClass::Cpu, 10, 30}, {0, 2, NodeClass::Comm, 10, 50}, {0, 3, NodeClass::Cpu, 50, 60}};
    EXPECT_EQ(ids_on_path(r, g), (std::vector<uint64_t>{1, 3, 4}));
    // A faster all-reduce leaves the ops on the path.
    r.spans[2].end_ns = 20;
    r.spans[3] = {0, 3, NodeClass::Cpu, 30, 40};
    EXPECT_EQ(ids_on_path(r, g), (std::vector<uint64_t>{1, 2, 4}));
}

TEST(CriticalPath, ANodeWaitingForItsResourceFollowsTheOneBefore) {
    // Two independent CPU ops: the second waited for the CPU, not a dependency.
    RankGraphBuilder b("t", 0);
    b.add(node(1, ChakraNodeType::Comp, true), {});
    b.add(node(2, ChakraNodeType::Comp, true), {});
    const RankGraph g = b.finish();
    SimulationResult r;
    r.spans = {{0, 0, NodeClass::Cpu, 0, 10}, {0, 1, NodeClass::Cpu, 10, 25}};
    EXPECT_EQ(ids_on_path(r, g), (std::vector<uint64_t>{1, 2}));
    SimulationResult none;
    EXPECT_TRUE(critical_path(none, g, 0).empty());
}

}  // namespace
}  // namespace mimic::sim

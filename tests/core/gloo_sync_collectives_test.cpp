// Real 2-rank Gloo steps recorded with PyTorch's own observer and profiler
// (tests/data/gloo_sync_collectives/README.md): a synchronous dist.all_reduce
// keeps its thread waiting for the collective, DDP's bucket all-reduces do
// not. The profile tells the two apart once Gloo's worker labels link.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "io/chakra/chakra_convert.h"
#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"

namespace mimic {
namespace {

std::string fixture(const std::string& name) {
    return std::string(MIMIC_SOURCE_DIR) + "/tests/data/gloo_sync_collectives/" + name;
}

Trace linked(const std::string& run, int rank = 0) {
    const std::string files = run + "_rank" + std::to_string(rank);
    Trace trace = load_trace(fixture(files + ".et.json.gz"));
    KinetoReadOptions options;
    options.progress = false;
    link_profile(trace, read_kineto_trace(fixture(files + ".profile.json.gz"), options));
    return trace;
}

struct CollectiveNodes {
    size_t in_program_order = 0;  // COMM nodes the thread waits on
    size_t queued = 0;            // COMM nodes beside the thread
};

CollectiveNodes collectives(const Trace& trace) {
    CollectiveNodes out;
    for (const ChakraPlanNode& n : plan_chakra_nodes(trace).nodes) {
        if (n.type != ChakraNodeType::CommColl) continue;
        if (n.queued_collective)
            ++out.queued;
        else
            ++out.in_program_order;
    }
    return out;
}

TEST(GlooSyncCollectives, WorkerLabelsLinkOnGloosOwnThreads) {
    for (const std::string run : {"manual", "manual_async", "ddp"}) {
        const Trace trace = linked(run);
        size_t labels = 0;
        for (size_t i = 0; i < trace.nodes.size(); ++i) {
            if (trace.str(trace.nodes[i].name) != "gloo:all_reduce") continue;
            ++labels;
            const NodeTiming& t = trace.timing[i];
            ASSERT_TRUE(t.linked()) << run << " node " << trace.nodes[i].id.value;
            // Gloo starts it once the call (the node before it) has queued it,
            // and it runs for longer than the call took.
            const NodeIndex caller = trace.find(NodeId{trace.nodes[i].id.value - 1});
            if (caller != kNoNode && trace.str(trace.nodes[caller.value].name) == "c10d::allreduce_") {
                const NodeTiming& call = trace.timing[caller.value];
                ASSERT_TRUE(call.linked());
                EXPECT_GE(t.start_us, call.start_us) << run;
                EXPECT_GT(t.duration_us, 0.0) << run;
            }
        }
        EXPECT_EQ(labels, run == "ddp" ? 3u : 9u) << run;
    }
}

TEST(GlooSyncCollectives, ASynchronousAllReduceKeepsItsThreadWaiting) {
    const CollectiveNodes manual = collectives(linked("manual"));
    EXPECT_EQ(manual.in_program_order, 9u);
    EXPECT_EQ(manual.queued, 0u);
}

TEST(GlooSyncCollectives, DdpBucketsRunBesideTheBackward) {
    const CollectiveNodes ddp = collectives(linked("ddp"));
    EXPECT_EQ(ddp.queued, 3u);
    EXPECT_EQ(ddp.in_program_order, 0u);
}

TEST(GlooSyncCollectives, CallsIssuedAsynchronouslyKeepTheirOrderOnBothRanks) {
    // Eight calls one after another, then the waits. The first call's
    // collective is queued (the next call follows before it ends); most of
    // the next six stay with their calls, the id after each being the next
    // call's (the observer filed the ranks' labels differently, so which
    // ones differs by rank); the eighth's next op starts after the waits,
    // and the loss's call is synchronous. Yet both ranks' collectives come
    // in one order, which is how the simulator pairs them.
    std::vector<uint64_t> sizes[2];
    for (int rank = 0; rank < 2; ++rank) {
        const Trace trace = linked("manual_async", rank);
        size_t queued = 0;
        for (const ChakraPlanNode& n : plan_chakra_nodes(trace).nodes) {
            if (n.type != ChakraNodeType::CommColl) continue;
            sizes[rank].push_back(n.comm.size_bytes);
            queued += n.queued_collective;
        }
        EXPECT_GE(queued, 1u) << "rank " << rank;
        EXPECT_LE(queued, 7u) << "rank " << rank;
    }
    ASSERT_EQ(sizes[0].size(), 9u);
    EXPECT_EQ(sizes[0], sizes[1]);
}

TEST(GlooSyncCollectives, TheEtAloneShowsTheWaitWhereTheObserverFiledTheLabels) {
    // A waiting thread has no op open when Gloo starts the work: the label
    // sits at its top level (or under the call) and before the next op.
    const CollectiveNodes manual = collectives(load_trace(fixture("manual_rank0.et.json.gz")));
    EXPECT_EQ(manual.in_program_order, 9u);
    EXPECT_EQ(manual.queued, 0u);
    // DDP calls from inside the autograd engine: never waited on.
    const CollectiveNodes ddp = collectives(load_trace(fixture("ddp_rank0.et.json.gz")));
    EXPECT_EQ(ddp.queued, 3u);
}

}  // namespace
}  // namespace mimic

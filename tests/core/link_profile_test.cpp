#include "link/link_profile.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <map>

#include "io/pytorch_et/et_reader.h"
#include "io/kineto/kineto_reader.h"
#include "support/json_writer.h"
#include "test_support.h"

namespace mimic {
namespace {

Trace read_et(const std::string& relative) {
    EtReadOptions options;
    options.progress = false;
    return read_pytorch_et(testing::trace_path(relative), options);
}

ProfileTrace read_profile(const std::string& path) {
    KinetoReadOptions options;
    options.progress = false;
    return read_kineto_trace(path, options);
}

// Every linked node must sit on a profiler event of its own name, at the
// start, duration and thread the timing says.
void expect_links_agree_with_profile(const Trace& trace, const ProfileTrace& profile) {
    std::multimap<std::pair<int64_t, double>, const HostEvent*> at;
    for (const HostEvent& h : profile.host) at.emplace(std::make_pair(profile.threads[h.thread].tid, h.ts_us), &h);
    size_t checked = 0;
    for (size_t i = 0; i < trace.nodes.size(); ++i) {
        const NodeTiming& t = trace.timing[i];
        if (!t.linked()) continue;
        bool found = false;
        auto range = at.equal_range({static_cast<int64_t>(t.thread), t.start_us});
        for (auto it = range.first; it != range.second && !found; ++it)
            found = it->second->dur_us == t.duration_us && profile.str(it->second->name) == trace.name(trace.nodes[i]);
        EXPECT_TRUE(found) << "node " << trace.nodes[i].id.value << " " << trace.name(trace.nodes[i]);
        EXPECT_LE(t.self_us, t.duration_us);
        EXPECT_GE(t.self_us, 0);
        // A linked child lies inside its linked parent on the same thread.
        NodeIndex p = trace.parent_of(NodeIndex(static_cast<uint32_t>(i)));
        if (p != kNoNode && trace.timing[p.value].linked() && trace.timing[p.value].thread == t.thread) {
            const NodeTiming& pt = trace.timing[p.value];
            EXPECT_GE(t.start_us, pt.start_us);
            EXPECT_LE(t.start_us + t.duration_us, pt.start_us + pt.duration_us + 1.0);
        }
        ++checked;
    }
    EXPECT_GT(checked, 0u);
}

// First start to last end of the linked nodes of each profiler thread.
std::map<uint64_t, double> linked_span_us(const Trace& trace) {
    std::map<uint64_t, std::pair<double, double>> range;
    for (const NodeTiming& t : trace.timing) {
        if (!t.linked()) continue;
        auto [it, fresh] = range.try_emplace(t.thread, t.start_us, t.start_us + t.duration_us);
        it->second.first = std::min(it->second.first, t.start_us);
        it->second.second = std::max(it->second.second, t.start_us + t.duration_us);
    }
    std::map<uint64_t, double> out;
    for (auto& [thread, r] : range) out[thread] = r.second - r.first;
    return out;
}

TEST(LinkProfile, LinearGpuTraceLinksInOrder) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    MIMIC_REQUIRE_TRACE("pytorch/linear_kineto.json.gz");
    Trace trace = read_et("pytorch/linear_et.json.gz");
    ProfileTrace profile = read_profile(testing::trace_path("pytorch/linear_kineto.json.gz"));
    LinkStats s = link_profile(trace, profile);
    ASSERT_EQ(trace.timing.size(), trace.nodes.size());
    EXPECT_EQ(s.linkable, 928u);
    // Measured: all 928 linked; the profile has no "Record function id", so
    // 159 by autograd sequence number and the rest in order between them.
    EXPECT_GE(s.linked, 919u);
    EXPECT_EQ(s.by_record_function_id, 0u);
    EXPECT_GE(s.by_sequence_number, 100u);
    EXPECT_EQ(s.in_order + s.by_sequence_number, s.linked);
    EXPECT_EQ(s.nesting_conflicts, 0u);
    // The profile holds ~40 iterations with the same op names; the ET's is the
    // one whose first aten::linear has "Sequence number" 660 (its seq_id), at
    // ts 1689180448791649, External id 8147: not the first look-alike.
    const NodeTiming& first_linear = trace.timing[trace.find(NodeId(9)).value];
    EXPECT_EQ(trace.name(trace.nodes[trace.find(NodeId(9)).value]), "aten::linear");
    EXPECT_EQ(first_linear.start_us, 1689180448791649.0);
    EXPECT_GE(s.operators_linked, s.operators * 99 / 100);
    // One iteration's device work (measured: 220 kernels, 41 memsets), never
    // the ~40 iterations of the whole profile.
    EXPECT_GE(s.kernels_attached, 200u);
    EXPECT_LE(s.kernels_attached, 400u);
    EXPECT_GE(s.memsets_attached, 30u);
    EXPECT_EQ(s.device_without_launch, 0u);
    EXPECT_EQ(trace.device_events.size(), s.kernels_attached + s.memcpys_attached + s.memsets_attached);
    for (const DeviceEvent& d : trace.device_events) {
        ASSERT_NE(d.launcher, kNoNode);
        EXPECT_TRUE(trace.timing[d.launcher.value].linked());
        EXPECT_GE(d.start_us, trace.timing[d.launcher.value].start_us);  // work starts after its launch
    }
    // ET thread 1 is the main thread, 2 the autograd thread.
    ASSERT_EQ(s.threads.size(), 2u);
    for (const ThreadPairing& t : s.threads) EXPECT_EQ(t.profile_tid, t.et_tid == 1 ? 24248 : 24270);
    // The linked ops of each thread span one iteration (~60 ms), not the 2 s profile.
    for (auto [thread, span] : linked_span_us(trace)) EXPECT_LT(span, 100000.0) << "thread " << thread;
    expect_links_agree_with_profile(trace, profile);
    // Its 40 Optimizer.step / zero_grad labels repeat the linked ones: their
    // ops' durations are medians over the 32 nearest repeats and the linked one.
    EXPECT_EQ(s.profiled_iterations, 33u);
    EXPECT_GE(s.nodes_with_repeats, 100u);
    size_t medians = 0;
    for (const NodeTiming& t : trace.timing) {
        if (t.iterations <= 1) continue;
        ++medians;
        EXPECT_LE(t.iterations, 33u);
        EXPECT_GE(t.median_duration_us, 0.0);  // whole microseconds: 0 for the shortest ops
        EXPECT_EQ(t.typical_duration_us(), t.median_duration_us);
    }
    EXPECT_EQ(medians, s.nodes_with_repeats);
}

TEST(LinkProfile, ResnetGpuTraceLinksInOrder) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    MIMIC_REQUIRE_TRACE("pytorch/resnet_kineto.json.gz");
    Trace trace = read_et("pytorch/resnet_et.json.gz");
    ProfileTrace profile = read_profile(testing::trace_path("pytorch/resnet_kineto.json.gz"));
    LinkStats s = link_profile(trace, profile);
    EXPECT_EQ(s.linkable, 14389u);
    // These two files are not one recording (the ET: 3 steps of a DDP
    // ResNet-50, 159 convolutions; the profile: 30 steps of a ResNet-18, 20 per
    // step), so only the op sequences they share can pair. Measured: 8384
    // linked (58.3%).
    EXPECT_GE(s.linked, s.linkable * 55 / 100);
    EXPECT_EQ(s.by_record_function_id, 0u);
    // 414 of the ET's 1743 (name, seq_id) pairs occur in the profile by
    // coincidence; too few, and out of order: none is taken.
    EXPECT_EQ(s.by_sequence_number, 0u);
    EXPECT_GE(s.kernels_attached, 2000u);
    ASSERT_EQ(s.threads.size(), 2u);
    for (const ThreadPairing& t : s.threads) EXPECT_EQ(t.profile_tid, t.et_tid == 1 ? 23442 : 23656);
    expect_links_agree_with_profile(trace, profile);
}

// A profile made from the ET itself, with "Record function id" on each event
// and nested times, as mimic's recorder writes it.
std::string profile_from_et(const Trace& trace, const std::string& path, NodeId misnamed) {
    JsonWriter w(0);
    w.begin_object().key("traceEvents").begin_array();
    double clock = 1000;
    std::function<void(NodeIndex)> emit = [&](NodeIndex n) {
        const Node& node = trace.nodes[n.value];
        double start = clock;
        clock += 1;
        for (const NodeIndex* c = trace.children_begin(n); c != trace.children_end(n); ++c) emit(*c);
        clock += 1;
        if (node.kind == NodeKind::Root || node.kind == NodeKind::Thread) return;
        w.begin_object().field("ph", "X").field("cat", "cpu_op");
        w.field("name", node.id == misnamed ? std::string("wrong::name") : std::string(trace.name(node)));
        w.field("pid", 1).field("tid", node.tid).field("ts", start).field("dur", clock - start);
        w.key("args").begin_object().field("Record function id", node.rf_id).end_object();
        w.end_object();
    };
    for (NodeIndex n : trace.execution_order())
        if (trace.parent_of(n) == kNoNode) emit(n);
    w.end_array().end_object();
    std::ofstream(path) << w.str();
    return path;
}

TEST(LinkProfile, RecordFunctionIdsLinkWithNameCheck) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    Trace trace = read_et("pytorch/linear_et.json.gz");
    const NodeId misnamed(14);  // aten::addmm
    std::string path = profile_from_et(trace, testing::scratch_dir("link_profile") + "/rf_profile.json", misnamed);
    ProfileTrace profile = read_profile(path);
    LinkStats s = link_profile(trace, profile);
    EXPECT_EQ(s.linkable, 928u);
    EXPECT_EQ(s.by_record_function_id, 927u);
    EXPECT_EQ(s.rf_id_name_mismatches, 1u);
    EXPECT_EQ(s.linked, 927u);  // in-order matching does not pair it either: names differ
    EXPECT_FALSE(trace.timing[trace.find(misnamed).value].linked());
    // Exclusive time: the inclusive time less that of the linked children.
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const NodeTiming& t = trace.timing[i];
        if (!t.linked()) continue;
        double children = 0;
        for (const NodeIndex* c = trace.children_begin(NodeIndex(i)); c != trace.children_end(NodeIndex(i)); ++c)
            if (trace.timing[c->value].linked()) children += trace.timing[c->value].duration_us;
        if (i == trace.find(trace.nodes[trace.find(misnamed).value].parent).value) continue;  // grandchildren count
        EXPECT_EQ(t.self_us, t.duration_us - children) << trace.nodes[i].id.value;
    }
    // The misnamed node's linked children count against its parent, aten::linear.
    NodeIndex linear = trace.find(trace.nodes[trace.find(misnamed).value].parent);
    EXPECT_EQ(trace.name(trace.nodes[linear.value]), "aten::linear");
    EXPECT_LT(trace.timing[linear.value].self_us, trace.timing[linear.value].duration_us);
}

TEST(LinkProfile, AnOpThatCallsItsOwnOverloadLinksTheOuterCall) {
    // tests/data/redispatch_1.13: a step recorded with torch 1.13's own observer and
    // profiler. aten::mean calls aten::mean.dim, aten::eye calls aten::eye.m: the ET
    // holds both calls, nested, and the profile one event for the pair. The event
    // belongs to the outer call, the op the step made; when the inner one took it,
    // the outer op had no time and its duration was counted as host time.
    const std::string dir = std::string(MIMIC_SOURCE_DIR) + "/tests/data/redispatch_1.13/";
    EtReadOptions options;
    options.progress = false;
    Trace trace = read_pytorch_et(dir + "et.json.gz", options);
    ProfileTrace profile = read_profile(dir + "profile.json.gz");
    LinkStats s = link_profile(trace, profile);
    EXPECT_EQ(s.unlinked, 6u);  // one inner call per chain: the profile has no event for it
    size_t chains = 0;
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const std::string_view name = trace.name(trace.nodes[i]);
        NodeIndex top = trace.parent_of(NodeIndex(i));
        if (top == kNoNode || trace.name(trace.nodes[top.value]) != name) continue;
        for (NodeIndex up = trace.parent_of(top); up != kNoNode && trace.name(trace.nodes[up.value]) == name;
             up = trace.parent_of(up))
            top = up;
        ++chains;
        EXPECT_TRUE(trace.timing[top.value].linked()) << "outer " << name << " node " << trace.nodes[top.value].id.value;
    }
    EXPECT_GE(chains, 5u);
    expect_links_agree_with_profile(trace, profile);
}

TEST(LinkProfile, OpsInsideAProfiledOpTheTraceLacksAreMarkedAsItsCalls) {
    // tests/data/observer_failures_1.13: torch 1.13's observer failed on the ops
    // of a TransformerEncoder's nested-tensor fast path and did not write three
    // of them; the profile has them, with the calls the trace attached to their thread inside.
    const std::string dir = std::string(MIMIC_SOURCE_DIR) + "/tests/data/observer_failures_1.13/";
    EtReadOptions options;
    options.progress = false;
    Trace trace = read_pytorch_et(dir + "et.json.gz", options);
    ASSERT_FALSE(trace.warnings.empty());
    EXPECT_NE(trace.warnings[0].message.find("3 not written at all"), std::string::npos) << trace.warnings[0].message;
    ProfileTrace profile = read_profile(dir + "profile.json.gz");
    link_profile(trace, profile);
    ASSERT_FALSE(trace.unrecorded_callers.empty());
    // Each marked op is a top-level op of the trace whose profiled event lies in an
    // unwritten op's event; the layer's forward holds most of them.
    std::map<uint64_t, size_t> per_caller;
    for (const auto& [id, caller] : trace.unrecorded_callers) {
        const NodeIndex n = trace.find(NodeId(id));
        ASSERT_NE(n, kNoNode);
        EXPECT_TRUE(trace.timing[n.value].linked());
        EXPECT_EQ(trace.nodes[trace.parent_of(n).value].kind, NodeKind::Thread) << id;
        ++per_caller[caller];
    }
    std::string names;
    for (const auto& [caller, count] : per_caller) names += std::string(profile.str(profile.host[caller - 1].name)) + " ";
    EXPECT_NE(names.find("aten::_transformer_encoder_layer_fwd"), std::string::npos) << names;
    EXPECT_EQ(names.find("ProfilerStep"), std::string::npos) << names;
}

TEST(LinkProfile, ATraceTheObserverWroteWholeHasNoUnrecordedCalls) {
    const std::string dir = std::string(MIMIC_SOURCE_DIR) + "/tests/data/redispatch_1.13/";
    EtReadOptions options;
    options.progress = false;
    Trace trace = read_pytorch_et(dir + "et.json.gz", options);
    link_profile(trace, read_profile(dir + "profile.json.gz"));
    EXPECT_TRUE(trace.unrecorded_callers.empty());
}

TEST(LinkProfile, AProfileThatMatchesNothingLinksNothing) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    Trace trace = read_et("pytorch/linear_et.json.gz");
    EXPECT_TRUE(trace.timing.empty());  // no profile: the trace reads, with no timing
    const std::string path = testing::scratch_file("link_profile", "unrelated.json", R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "other::op", "pid": 1, "tid": 1, "ts": 10, "dur": 5, "args": {"Record function id": 1}},
      {"ph": "X", "cat": "cpu_op", "name": "other::op2", "pid": 1, "tid": 1, "ts": 11, "dur": 2, "args": {"Record function id": 2}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 12, "dur": 1, "args": {"correlation": 5}},
      {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 20, "dur": 3, "args": {"correlation": 5, "stream": 7}},
      {"ph": "X", "cat": "kernel", "name": "orphan", "pid": 0, "tid": 7, "ts": 30, "dur": 3, "args": {"correlation": 6}}]})");
    ProfileTrace profile = read_profile(path);
    LinkStats s = link_profile(trace, profile);
    EXPECT_EQ(s.linked, 0u);
    EXPECT_EQ(s.by_sequence_number, 0u);
    EXPECT_EQ(s.unlinked, s.linkable);
    EXPECT_EQ(s.rf_id_name_mismatches, 2u);
    ASSERT_EQ(trace.timing.size(), trace.nodes.size());
    for (const NodeTiming& t : trace.timing) EXPECT_FALSE(t.linked());
    EXPECT_TRUE(trace.device_events.empty());
    EXPECT_EQ(s.device_outside_et, 1u);
    EXPECT_EQ(s.device_without_launch, 1u);
}

TEST(LinkProfile, LaunchJoinsItsOpByExternalIdOrEnclosure) {
    MIMIC_REQUIRE_TRACE("pytorch/linear_et.json.gz");
    Trace trace = read_et("pytorch/linear_et.json.gz");
    // aten::linear (rf 1) encloses aten::addmm (rf 5). Launch 1 names addmm by
    // External id; launch 2's External id names no op (old Kineto writes the
    // correlation there), so the innermost enclosing op, addmm, launched it;
    // launch 3 sits in linear only; launch 4 names an op on another thread.
    const std::string path = testing::scratch_file("link_profile", "launches.json", R"({"traceEvents": [
      {"ph": "X", "cat": "cpu_op", "name": "aten::linear", "pid": 1, "tid": 1, "ts": 100, "dur": 100, "args": {"Record function id": 1, "External id": 50}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::addmm", "pid": 1, "tid": 1, "ts": 120, "dur": 50, "args": {"Record function id": 5, "External id": 51}},
      {"ph": "X", "cat": "cpu_op", "name": "aten::other", "pid": 1, "tid": 2, "ts": 100, "dur": 100, "args": {"External id": 52}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 130, "dur": 5, "args": {"correlation": 1, "External id": 51}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 140, "dur": 5, "args": {"correlation": 2, "External id": 2}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 1, "tid": 1, "ts": 180, "dur": 5, "args": {"correlation": 3}},
      {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 1, "tid": 1, "ts": 190, "dur": 5, "args": {"correlation": 4, "External id": 52}},
      {"ph": "X", "cat": "kernel", "name": "k1", "pid": 0, "tid": 7, "ts": 300, "dur": 3, "args": {"correlation": 1, "stream": 7, "device": 0}},
      {"ph": "X", "cat": "kernel", "name": "k2", "pid": 0, "tid": 7, "ts": 310, "dur": 3, "args": {"correlation": 2, "stream": 7, "device": 0, "Process Group Name": "pg0"}},
      {"ph": "X", "cat": "gpu_memset", "name": "m3", "pid": 0, "tid": 7, "ts": 320, "dur": 3, "args": {"correlation": 3, "stream": 7, "device": 0}},
      {"ph": "X", "cat": "kernel", "name": "k4", "pid": 0, "tid": 8, "ts": 330, "dur": 3, "args": {"correlation": 4, "stream": 8, "device": 0}}]})");
    ProfileTrace profile = read_profile(path);
    LinkOptions options;
    options.in_order = false;
    LinkStats s = link_profile(trace, profile, options);
    EXPECT_EQ(s.linked, 2u);
    ASSERT_EQ(trace.device_events.size(), 4u);
    EXPECT_EQ(s.kernels_attached, 3u);
    EXPECT_EQ(s.memsets_attached, 1u);
    auto launcher = [&](size_t i) { return std::string(trace.name(trace.nodes[trace.device_events[i].launcher.value])); };
    EXPECT_EQ(launcher(0), "aten::addmm");
    EXPECT_EQ(launcher(1), "aten::addmm");
    EXPECT_EQ(trace.str(trace.device_events[1].process_group), "pg0");
    EXPECT_EQ(launcher(2), "aten::linear");
    EXPECT_EQ(trace.str(trace.device_events[2].category), "gpu_memset");
    EXPECT_EQ(launcher(3), "aten::linear");  // External id 52 is on thread 2: not this launch's op
    EXPECT_EQ(trace.device_events[0].duration_us, 3.0);
    EXPECT_EQ(trace.device_events[0].stream, 7);
}

}  // namespace
}  // namespace mimic

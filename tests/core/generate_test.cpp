// mimic generate: collective sizes against the formulas for each model and
// parallelism mix, process groups, pipeline messages, files that simulate to
// the end, and bad options.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <map>
#include <set>

#include <google/protobuf/io/coded_stream.h>

#include "analysis/collective_schedule.h"
#include "compose/generate_chakra.h"
#include "compose/generate_et.h"
#include "compose/generate_dlrm.h"
#include "compose/generate_from.h"
#include "compose/generate_options.h"
#include "compose/generate_summary.h"
#include "compose/generate_transformer.h"
#include "compose/generate_workload.h"
#include "et_def.pb.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "model/device_spec.h"
#include "sim/simulator.h"
#include "sim/trace_workload.h"
#include "sim/workload_graph.h"
#include "test_support.h"

namespace mimic::compose {
namespace {

using u64 = uint64_t;
constexpr size_t AR = 0, AG = 1, A2A = 2, RS = 3;  // gen_collective_index order
constexpr size_t kTp = static_cast<size_t>(GenGroup::Tensor), kDp = static_cast<size_t>(GenGroup::Data),
                 kEp = static_cast<size_t>(GenGroup::Expert), kEdp = static_cast<size_t>(GenGroup::ExpertData),
                 kWorld = static_cast<size_t>(GenGroup::World);

const ComputeCost& cost() {
    static const model::DeviceSpec spec = model::read_device_spec(std::string(MIMIC_SOURCE_DIR) + "/data/devices/h100_sxm.json");
    static const ComputeCost c(spec, "c10::BFloat16");
    return c;
}

// One rank of a generated ET, read as the replay reads it (meta.json applied),
// and the calls the replay would issue from it.
Trace generated_rank(const std::string& dir, int64_t rank) {
    const std::string rank_dir = dir + "/rank" + std::to_string(rank);
    Trace trace = load_trace(rank_dir + "/et.json");
    apply_recording_meta(trace, rank_dir + "/meta.json");
    return trace;
}

std::vector<analysis::ScheduledCollective> calls_of(const Trace& trace) {
    return analysis::schedule_collectives(trace, trace.execution_order(), trace.python_collectives);
}

GenerateOptions small(GenModel m) {
    GenerateOptions o;
    o.model = m;
    if (m != GenModel::Dlrm) o.layers = 4, o.hidden = 256, o.heads = 8, o.seq = 64, o.vocab = 1000, o.micro_batch = 2;
    return o;
}

GenWorkload build(GenerateOptions o) {
    resolve_generate_options(o);
    return build_workload(o, cost());
}

GenCommTotals totals(const GenWorkload& w, int64_t rank) { return totals_of(w.program(rank)); }

u64 params_of_stage(const GenerateOptions& o, int64_t stage, GenGroup g) {
    u64 n = 0;
    for (const ParamUnit& u : transformer_stage_params(o, stage)) n += u.elems(g);
    return n;
}

TEST(GenerateLayout, MegatronOrderAndGroups) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 8, o.tp = 2, o.pp = 2;
    resolve_generate_options(o);
    EXPECT_EQ(o.dp, 2);
    const RankLayout l(o);
    const RankCoords c = l.coords(6);  // tp 0, dp 1, stage 1
    EXPECT_EQ(c.tp, 0);
    EXPECT_EQ(c.dp, 1);
    EXPECT_EQ(c.stage, 1);
    EXPECT_EQ(l.group_members(GenGroup::Tensor, 6), (std::vector<int64_t>{6, 7}));
    EXPECT_EQ(l.group_members(GenGroup::Data, 6), (std::vector<int64_t>{4, 6}));
    EXPECT_EQ(l.group_members(GenGroup::Pipeline, 6), (std::vector<int64_t>{2, 6}));
    EXPECT_EQ(l.stage_peer(2, +1), 6);
    // Every listed group's members share its id, and no two groups share one.
    EXPECT_EQ(l.comm_groups_json(),
              "{\"1\":[0,1],\"2\":[2,3],\"3\":[4,5],\"4\":[6,7],\"5\":[0,2],\"6\":[1,3],\"7\":[4,6],\"8\":[5,7],"
              "\"9\":[0,4],\"10\":[1,5],\"11\":[2,6],\"12\":[3,7]}\n");
    for (int64_t r = 0; r < 8; ++r)
        for (GenGroup g : {GenGroup::Tensor, GenGroup::Data, GenGroup::Pipeline})
            for (int64_t m : l.group_members(g, r)) EXPECT_EQ(l.group_id(g, m), l.group_id(g, r));
}

TEST(GenerateLayout, ExpertGroupsWithinDataParallel) {
    GenerateOptions o = small(GenModel::Moe);
    o.ranks = 16, o.tp = 2, o.ep = 4, o.experts = 8;
    resolve_generate_options(o);
    const RankLayout l(o);  // dp 8
    // Rank 5 = tp 1, dp 2: EP group dp 0-3 at tp 1; expert-data group dp 2 and 6.
    EXPECT_EQ(l.group_members(GenGroup::Expert, 5), (std::vector<int64_t>{1, 3, 5, 7}));
    EXPECT_EQ(l.group_members(GenGroup::ExpertData, 5), (std::vector<int64_t>{5, 13}));
    EXPECT_NE(l.group_id(GenGroup::Expert, 5), l.group_id(GenGroup::Expert, 9));
    EXPECT_EQ(l.group_id(GenGroup::Expert, 5), l.group_id(GenGroup::Expert, 7));
    // ep == dp: the expert group is the data-parallel group, one id for both.
    o.ep = 8;
    const RankLayout same(o);
    EXPECT_EQ(same.group_id(GenGroup::Expert, 5), same.group_id(GenGroup::Data, 5));
    // A group of every rank is the world: id 0, not listed.
    GenerateOptions d = small(GenModel::Gpt);
    d.ranks = 4;
    resolve_generate_options(d);
    EXPECT_EQ(RankLayout(d).group_id(GenGroup::Data, 3), 0);
    EXPECT_EQ(RankLayout(d).comm_groups_json(), "{}\n");
}

TEST(GenerateGpt, TensorParallelAllReducesPerLayer) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 4, o.tp = 4, o.micro_batches = 3;
    const GenWorkload w = build(o);
    const u64 act = 2 * 64 * 256 * 2;  // micro_batch x seq x hidden x bf16
    const GenCommTotals t = totals(w, 1);
    // 2 in forward and 2 in backward per layer, and the embedding's, per
    // micro-batch; and the cross-entropy's 3 of one fp32 per token.
    EXPECT_EQ(t.calls[kTp][AR], (4u * 4 + 1 + 3) * 3);
    EXPECT_EQ(t.bytes[kTp][AR], (4u * 4 + 1) * 3 * act + 3 * 3 * (2 * 64 * 4));
    EXPECT_EQ(t.sends + t.recvs, 0u);
    EXPECT_EQ(t.calls[kDp][AR], 0u);  // dp 1: nothing to synchronise
}

TEST(GenerateGpt, DataParallelBucketsHoldEveryParameterOnce) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 8, o.tp = 2, o.bucket_mib = 0.25;
    const GenWorkload w = build(o);
    const GenerateOptions& r = w.options;
    // Independently: per layer 4h^2 + 2hf + 3h + f split over tp, 6h whole;
    // word embedding (padded vocab) over tp, positions whole; final norm.
    const u64 h = 256, f = 1024, t = 2, V = 1024 /* 1000 padded to 128 x tp */;
    const u64 per_layer = (4 * h * h + 2 * h * f + 3 * h + f) / t + 6 * h;
    const u64 params = 4 * per_layer + V * h / t + 64 * h + 2 * h;
    EXPECT_EQ(r.padded_vocab(), 1024);
    EXPECT_EQ(params_of_stage(r, 0, GenGroup::Data), params);
    const GenCommTotals tot = totals(w, 0);
    EXPECT_EQ(tot.bytes[kDp][AR], params * 2);
    // Buckets fill to the cap: all but the last reach it.
    const RankProgram& p = w.program(0);
    std::vector<u64> buckets;
    for (const GenOp& op : p.ops)
        if (op.kind == GenOpKind::Collective && op.group == GenGroup::Data) buckets.push_back(op.bytes);
    ASSERT_GE(buckets.size(), 2u);
    for (size_t i = 0; i + 1 < buckets.size(); ++i) EXPECT_GE(buckets[i], 256u * 1024);
    // The optimizer runs after every bucket.
    EXPECT_EQ(p.ops.back().name, "optimizer");
}

TEST(GenerateGpt, PipelineSendsActivationsAndGradients) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 8, o.pp = 4, o.tp = 2, o.micro_batches = 5;
    const GenWorkload w = build(o);
    const u64 act = 2 * 64 * 256 * 2;
    for (int64_t stage = 0; stage < 4; ++stage) {
        const GenCommTotals t = totals(w, stage * 2);
        const u64 neighbours = (stage > 0) + (stage < 3);
        EXPECT_EQ(t.sends, 5 * neighbours) << stage;
        EXPECT_EQ(t.recvs, 5 * neighbours) << stage;
        EXPECT_EQ(t.send_bytes, 5 * neighbours * act) << stage;
        // One layer per stage: 4 all-reduces per micro-batch, the first
        // stage's embedding one more, the last stage's cross-entropy 3.
        EXPECT_EQ(t.calls[kTp][AR], 5u * (4 + (stage == 0) + 3 * (stage == 3))) << stage;
        // The tied embedding's gradients: summed by the first and last stage.
        const size_t kEmb = static_cast<size_t>(GenGroup::Embedding);
        EXPECT_EQ(t.calls[kEmb][AR], stage == 0 || stage == 3 ? 1u : 0u) << stage;
        EXPECT_EQ(t.bytes[kEmb][AR], stage == 0 || stage == 3 ? 1024u * 256 / 2 * 2 : 0u) << stage;
    }
    EXPECT_EQ(w.layout.group_members(GenGroup::Embedding, 5), (std::vector<int64_t>{1, 7}));
    EXPECT_EQ(w.layout.group_id(GenGroup::Embedding, 1), w.layout.group_id(GenGroup::Embedding, 7));
    // The last stage holds the tied output layer's copy; the first the embedding.
    EXPECT_GT(params_of_stage(w.options, 3, GenGroup::Data), params_of_stage(w.options, 1, GenGroup::Data));
}

TEST(GenerateGpt, ZeroAndFsdpShardGradientsAndParameters) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 4, o.sharding = GenSharding::Zero, o.bucket_mib = 0.5;
    const GenWorkload z = build(o);
    const u64 params = params_of_stage(z.options, 0, GenGroup::Data);
    const GenCommTotals t = totals(z, 0);
    EXPECT_EQ(t.bytes[kDp][RS], params * 2);
    EXPECT_EQ(t.calls[kDp][AR], 0u);
    EXPECT_EQ(t.calls[kDp][AG], t.calls[kDp][RS]);
    EXPECT_GE(t.bytes[kDp][AG] * 4, params * 2);  // each all-gather is one rank's shard
    EXPECT_LE(t.bytes[kDp][AG] * 4, params * 2 + 4 * t.calls[kDp][AG]);

    o.sharding = GenSharding::Fsdp;
    o.micro_batches = 2;
    const GenWorkload f = build(o);
    const GenCommTotals ft = totals(f, 0);
    const u64 layer = transformer_stage_params(f.options, 0)[1].elems(GenGroup::Data);
    // Per layer and micro-batch an all-gather before forward and one before backward.
    EXPECT_EQ(ft.calls[kDp][AG], 4u * 2 * 2 + 1);  // + the embedding/head bucket's
    EXPECT_EQ(ft.bytes[kDp][RS], params * 2);
    u64 layer_ag = 0;
    for (const GenOp& op : f.program(0).ops)
        if (op.kind == GenOpKind::Collective && op.collective == GenCollective::AllGather && op.name.rfind("L0.", 0) == 0) layer_ag += op.bytes;
    EXPECT_EQ(layer_ag, 2 * 2 * (layer * 2 / 4));
}

TEST(GenerateLlama, GroupedQueryAttentionParameters) {
    GenerateOptions o = small(GenModel::Llama);
    o.kv_heads = 2, o.ffn = 512, o.ranks = 2, o.tp = 2;
    const GenWorkload w = build(o);
    const u64 h = 256, hkv = 2 * 32, f = 512, t = 2, V = 1024;
    const u64 per_layer = (2 * h * h + 2 * hkv * h + 3 * h * f) / t + 2 * h;
    EXPECT_EQ(params_of_stage(w.options, 0, GenGroup::Data), 4 * per_layer + V * h / t + h + V * h / t);
    EXPECT_EQ(totals(w, 0).calls[kTp][AR], 4u * 4 + 1 + 3);  // layers, embedding, cross-entropy
}

TEST(GenerateMoe, ExpertAllToAllsOfRoutedTokens) {
    GenerateOptions o = small(GenModel::Moe);
    o.ranks = 16, o.pp = 2, o.ep = 4, o.experts = 8, o.top_k = 2, o.ffn = 512, o.micro_batches = 3;
    const GenWorkload w = build(o);
    const GenCommTotals t = totals(w, 0);
    const u64 routed = 2 * 64 * 2 * 256 * 2;  // micro_batch x seq x top_k x hidden x bf16
    // Dispatch and combine, forward and backward, per layer (2 per stage) and micro-batch.
    EXPECT_EQ(t.calls[kEp][A2A], 4u * 2 * 3);
    EXPECT_EQ(t.bytes[kEp][A2A], 4u * 2 * 3 * routed);
    // Experts reduce over the ranks that hold the same ones (dp / ep = 2), the rest over dp 8.
    const u64 expert_params = 2 * (8 / 4) * 3 * 256 * 512;
    EXPECT_EQ(params_of_stage(w.options, 0, GenGroup::ExpertData), expert_params);
    EXPECT_EQ(t.bytes[kEdp][AR], expert_params * 2);
    EXPECT_EQ(t.bytes[kDp][AR], params_of_stage(w.options, 0, GenGroup::Data) * 2);
    EXPECT_EQ(t.calls[kTp][AR], 0u);
}

TEST(GenerateDlrm, EmbeddingAllToAllsAndMlpAllReduce) {
    GenerateOptions o = small(GenModel::Dlrm);
    o.ranks = 8, o.tables = 12, o.micro_batch = 64, o.emb_dim = 16, o.bottom_mlp = {32, 16}, o.top_mlp = {64, 1};
    o.micro_batches = 2;
    const GenWorkload w = build(o);
    EXPECT_EQ(w.programs.size(), 2u);  // 2 tables on ranks 0-3, 1 on 4-7
    EXPECT_EQ(dlrm_local_tables(w.options, 3), 2);
    EXPECT_EQ(dlrm_local_tables(w.options, 4), 1);
    const GenCommTotals t = totals(w, 5);
    const u64 pooled = 64 * 12 * 16 * 2;  // samples x tables x emb_dim x bf16
    EXPECT_EQ(t.calls[kWorld][A2A], 2u * 2);
    EXPECT_EQ(t.bytes[kWorld][A2A], 2u * 2 * pooled);
    // Bottom 13-32-16, top (16 + 13*12/2 = 94)-64-1, weights and biases.
    const u64 mlp = 13 * 32 + 32 + 32 * 16 + 16 + 94 * 64 + 64 + 64 * 1 + 1;
    EXPECT_EQ(t.bytes[kDp][AR], mlp * 2);
    // Every collective spans all ranks: the files of ranks alike are the same.
    EXPECT_EQ(generated_rank_key(w, 4), generated_rank_key(w, 7));
    EXPECT_NE(generated_rank_key(w, 3), generated_rank_key(w, 4));
}

TEST(GenerateOptions, BadOptionsNameTheOption) {
    auto err = [](GenerateOptions o) { return testing::error_message_of([&] { resolve_generate_options(o); }); };
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 12, o.dp = 2, o.tp = 2, o.pp = 2;
    EXPECT_EQ(err(o).rfind("--ranks: 12 ranks are not --dp 2 x --tp 2 x --pp 2 = 8", 0), 0u) << err(o);
    o = small(GenModel::Gpt), o.ranks = 12, o.tp = 8;
    EXPECT_EQ(err(o).rfind("--ranks:", 0), 0u) << err(o);
    o = small(GenModel::Gpt), o.tp = 3, o.heads = 8;
    EXPECT_EQ(err(o).rfind("--heads: 8 heads do not split over --tp 3", 0), 0u) << err(o);
    o = small(GenModel::Gpt), o.pp = 3;
    EXPECT_EQ(err(o).rfind("--layers: 4 layers do not split into --pp 3", 0), 0u) << err(o);
    o = small(GenModel::Moe), o.ranks = 4, o.ep = 3, o.experts = 6;
    EXPECT_EQ(err(o).rfind("--ep:", 0), 0u) << err(o);
    o = small(GenModel::Gpt), o.ep = 2;
    EXPECT_EQ(err(o).rfind("--ep:", 0), 0u) << err(o);
    o = small(GenModel::Dlrm), o.ranks = 4, o.tp = 2;
    EXPECT_EQ(err(o).rfind("--tp:", 0), 0u) << err(o);
    o = small(GenModel::Gpt), o.dtype = "fp8";
    EXPECT_EQ(err(o).rfind("--dtype:", 0), 0u) << err(o);
    EXPECT_EQ(testing::error_message_of([] { parse_layer_widths("512-x", "--top-mlp"); }).rfind("--top-mlp:", 0), 0u);
    EXPECT_EQ(parse_layer_widths("512-256-1", "--top-mlp"), (std::vector<int64_t>{512, 256, 1}));
}

// Writes the files and simulates them; every rank must finish.
sim::SimulationResult write_and_simulate(const GenWorkload& w, const std::string& name, const std::string& topology = "Switch") {
    const std::string dir = testing::scratch_dir("generate_" + name);
    const std::string prefix = dir + "/w";
    const RankFilesStats files = write_generated_chakra(w, prefix, 2);
    EXPECT_EQ(files.files, w.options.ranks);
    std::vector<std::string> warnings;
    sim::SimulationInput in;
    in.network = sim::parse_network_config("topology: [ " + topology + " ]\nnpus_count: [ " + std::to_string(w.options.ranks) +
                                               " ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n",
                                           "net.yml", warnings);
    in.system = sim::parse_system_config(
        R"({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 1, "preferred-dataset-splits": 4,
            "all-reduce-implementation": ["ring"], "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"],
            "all-to-all-implementation": ["direct"], "collective-optimization": "baseline", "local-mem-bw": 1600})",
        "sys.json", warnings);
    in.graphs = sim::read_workload_prefix(prefix, static_cast<int>(w.options.ranks));
    in.comm_groups = sim::read_comm_groups(comm_groups_path(prefix));
    in.comm_groups_source = comm_groups_path(prefix);
    return sim::simulate(in);
}

TEST(GenerateChakra, FilesCarryGroupsAndPeersAndSimulate) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 8, o.tp = 2, o.pp = 2, o.micro_batches = 4;
    const GenWorkload w = build(o);
    const sim::SimulationResult r = write_and_simulate(w, "gpt");
    EXPECT_TRUE(r.errors.empty()) << (r.errors.empty() ? "" : r.errors[0]);
    ASSERT_EQ(r.ranks.size(), 8u);
    // Rank 5 (tp 1, dp 0, stage 1): its collectives name its TP and DP groups, its messages rank 1.
    const sim::RankGraph g = sim::read_rank_graph(testing::scratch_dir("generate_gpt") + "/w.5.et", 5);
    const RankProgram& p = w.program(5);
    ASSERT_EQ(g.nodes.size(), p.ops.size());
    std::set<int32_t> groups;
    for (size_t i = 0; i < g.nodes.size(); ++i) {
        const sim::WorkloadNode& n = g.nodes[i];
        const GenOp& op = p.ops[i];
        if (op.kind == GenOpKind::Collective) {
            EXPECT_EQ(n.comm_group, w.layout.group_id(op.group, 5));
            EXPECT_EQ(n.comm_size, op.bytes);
            groups.insert(n.comm_group);
        } else if (op.kind == GenOpKind::Send || op.kind == GenOpKind::Recv) {
            EXPECT_EQ(op.kind == GenOpKind::Send ? n.comm_dst : n.comm_src, 1);
            EXPECT_EQ(op.kind == GenOpKind::Send ? n.comm_src : n.comm_dst, 5);
        } else {
            EXPECT_EQ(n.num_ops, op.flops);
            EXPECT_EQ(n.tensor_size, op.bytes);
            EXPECT_GE(n.duration_us, 1u);
        }
    }
    // Two stages: the embedding group is the pipeline group.
    EXPECT_EQ(w.layout.group_id(GenGroup::Embedding, 5), w.layout.group_id(GenGroup::Pipeline, 5));
    EXPECT_EQ(groups, (std::set<int32_t>{static_cast<int32_t>(w.layout.group_id(GenGroup::Tensor, 5)),
                                         static_cast<int32_t>(w.layout.group_id(GenGroup::Data, 5)),
                                         static_cast<int32_t>(w.layout.group_id(GenGroup::Pipeline, 5))}));
    EXPECT_EQ(groups.size(), 3u);
}

TEST(GenerateChakra, EveryMixSimulatesToTheEnd) {
    struct Case {
        const char* name;
        GenerateOptions o;
    };
    std::vector<Case> cases;
    auto add = [&](const char* name, GenModel m, auto&& set) {
        GenerateOptions o = small(m);
        set(o);
        cases.push_back({name, o});
    };
    add("gpipe", GenModel::Gpt, [](GenerateOptions& o) { o.ranks = 8, o.pp = 4, o.tp = 2, o.schedule = GenSchedule::GPipe; });
    add("1f1b_deep", GenModel::Gpt, [](GenerateOptions& o) { o.ranks = 8, o.pp = 4, o.micro_batches = 7; });
    add("zero", GenModel::Llama, [](GenerateOptions& o) { o.ranks = 8, o.pp = 2, o.tp = 2, o.sharding = GenSharding::Zero; });
    add("fsdp", GenModel::Gpt, [](GenerateOptions& o) { o.ranks = 8, o.pp = 2, o.sharding = GenSharding::Fsdp; });
    add("moe", GenModel::Moe, [](GenerateOptions& o) { o.ranks = 16, o.tp = 2, o.pp = 2, o.ep = 2, o.experts = 4, o.ffn = 256; });
    add("dlrm", GenModel::Dlrm, [](GenerateOptions& o) { o.ranks = 8, o.tables = 10, o.micro_batch = 32; });
    for (const Case& c : cases) {
        const GenWorkload w = build(c.o);
        const sim::SimulationResult r = write_and_simulate(w, c.name);
        EXPECT_TRUE(r.errors.empty()) << c.name << ": " << (r.errors.empty() ? "" : r.errors[0]);
        for (const auto& rank : r.ranks) EXPECT_GT(rank.finish_ns, 0u) << c.name;
    }
}

TEST(GenerateChakra, RanksAlikeAreEncodedOnce) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 32;  // pure data parallelism: every rank the same file
    const GenWorkload w = build(o);
    const std::string prefix = testing::scratch_dir("generate_dp") + "/w";
    const RankFilesStats s = write_generated_chakra(w, prefix, 2);
    EXPECT_EQ(s.encodings, 1);
    EXPECT_EQ(s.files, 32);
    EXPECT_EQ(std::filesystem::file_size(prefix + ".31.et"), s.file_bytes[0]);
    EXPECT_EQ(rank_ranges({0, 1, 2, 5, 7, 8}), "0-2,5,7-8");
}

TEST(GenerateFrom, ExpandsARecordedTraceAsSimulateRanksReadsIt) {
    MIMIC_REQUIRE_TRACE("pytorch/resnet_et.json.gz");
    const std::string et = testing::trace_path("pytorch/resnet_et.json.gz");
    const std::string profile = testing::trace_path("pytorch/resnet_kineto.json.gz");
    const std::string prefix = testing::scratch_dir("generate_from") + "/w";
    const FromTraceResult r = expand_trace(et, profile, 6, prefix, 2);
    EXPECT_EQ(r.files.files, 6);
    EXPECT_EQ(r.files.encodings, 1);
    // The files hold the graph `simulate TRACE --ranks 6` builds in memory.
    std::vector<std::string> notes;
    const sim::TraceWorkload direct = sim::read_trace_workload({et}, profile);
    const auto replicated = sim::replicate_ranks(direct.graphs[0], 6, notes);
    for (int rank : {0, 5}) {
        const sim::RankGraph g = sim::read_rank_graph(prefix + "." + std::to_string(rank) + ".et", rank);
        EXPECT_TRUE(g.same_graph(*replicated[0])) << rank;
    }
    EXPECT_NE(testing::error_message_of([&] { expand_trace(et, profile, 1 << 25, prefix, 2); }).find("--ranks"), std::string::npos);
}

TEST(GenerateEt, TensorAndDataParallelCallsAsTheReplayReadsThem) {
    GenerateOptions o;
    o.model = GenModel::Gpt;
    o.ranks = 4, o.tp = 2, o.layers = 2, o.hidden = 32, o.heads = 4, o.seq = 8, o.vocab = 64, o.micro_batch = 2;
    o.micro_batches = 2, o.dtype = "fp32", o.bucket_mib = 0.01;
    resolve_generate_options(o);
    const std::string dir = testing::scratch_dir("generate_et");
    std::filesystem::remove_all(dir);
    write_generated_et(o, dir);
    const RankLayout layout(o);
    for (int64_t rank : {0, 3}) {
        const Trace trace = generated_rank(dir, rank);
        EXPECT_EQ(trace.rank, rank);
        EXPECT_EQ(trace.world_size, 4);
        const auto calls = calls_of(trace);
        const uint64_t act = 8 * 2 * 32 * 4;  // seq x micro_batch x hidden x fp32
        uint64_t tp_calls = 0, tp_bytes = 0, dp_bytes = 0;
        for (const auto& c : calls) {
            EXPECT_EQ(c.type, CollectiveType::AllReduce);
            if (c.pg_name == std::to_string(layout.group_id(GenGroup::Tensor, rank))) {
                ++tp_calls, tp_bytes += c.input_bytes;
                EXPECT_TRUE(c.waits_at_once);
            } else {
                EXPECT_EQ(c.pg_name, std::to_string(layout.group_id(GenGroup::Data, rank)));
                EXPECT_FALSE(c.waits_at_once);  // DDP's buckets overlap backward
                dp_bytes += c.input_bytes;
            }
        }
        // Per micro-batch: the embedding's, and 2 forward + 2 backward per layer.
        EXPECT_EQ(tp_calls, 2u * (1 + 4 * 2));
        EXPECT_EQ(tp_bytes, tp_calls * act);
        // Every parameter's gradient once: this rank's shard (vocabulary 64 padded to 256).
        const uint64_t h = 32, hl = 16, fl = 64, per_layer = 3 * (h * hl + hl) + hl * h + h + 4 * h + h * fl + fl + fl * h + h;
        EXPECT_EQ(dp_bytes, (256 / 2 * h + 8 * h + 2 * per_layer + 2 * h) * 4);
    }
}

TEST(GenerateEt, DlrmShardedTablesExchangeTheirPooledVectors) {
    GenerateOptions o = small(GenModel::Dlrm);
    o.ranks = 3, o.micro_batch = 8, o.emb_dim = 4, o.bottom_mlp = {16, 4}, o.top_mlp = {8, 1}, o.dtype = "fp32";
    o.table_rows = {100, 50, 300, 20}, o.table_pooling = {3, 1, 2, 5}, o.table_ranks = {2, 0, 0, 1};
    resolve_generate_options(o);
    EXPECT_EQ(o.tables, 4);
    const std::string dir = testing::scratch_dir("generate_et_dlrm");
    std::filesystem::remove_all(dir);
    write_generated_et(o, dir);
    const int64_t B = 8, D = 4, W = 3;
    const std::vector<int64_t> held = {2, 1, 1};  // tables per rank
    for (int64_t rank : {0, 2}) {
        const Trace trace = generated_rank(dir, rank);
        EXPECT_EQ(trace.world_size, 3);
        const int64_t L = held[static_cast<size_t>(rank)];
        // One embedding_bag per table this rank holds, over every rank's samples.
        auto shape = [&](uint32_t value) {
            const TensorMeta& t = trace.tensors[trace.values[value].payload.index];
            std::vector<int64_t> dims;
            for (uint32_t d = 0; d < t.rank; ++d) dims.push_back(trace.dims[t.dims_begin + d]);
            return dims;
        };
        std::vector<std::vector<int64_t>> weights, index_shapes, grads;
        for (NodeIndex n : trace.execution_order()) {
            const Node& node = trace.nodes[n.value];
            const std::string name(trace.name(node));
            if (name == "aten::embedding_bag") {
                weights.push_back(shape(node.inputs.begin));
                index_shapes.push_back(shape(node.inputs.begin + 1));
            }
            if (name == "aten::_embedding_bag_backward")
                grads.push_back(shape(node.outputs.begin));
        }
        const std::vector<std::vector<int64_t>> want_w = rank == 0 ? std::vector<std::vector<int64_t>>{{50, D}, {300, D}}
                                                                   : std::vector<std::vector<int64_t>>{{100, D}};
        const std::vector<std::vector<int64_t>> want_idx = rank == 0 ? std::vector<std::vector<int64_t>>{{B * W * 1}, {B * W * 2}}
                                                                     : std::vector<std::vector<int64_t>>{{B * W * 3}};
        EXPECT_EQ(weights, want_w);
        EXPECT_EQ(index_shapes, want_idx);
        EXPECT_EQ(grads, want_w);  // dense gradients, one per table
        // Forward and backward exchanges with this rank's splits, then the MLPs' all-reduce.
        const auto calls = calls_of(trace);
        ASSERT_EQ(calls.size(), 3u);
        const std::vector<int64_t> mine(3, B * L * D), theirs = {B * 2 * D, B * 1 * D, B * 1 * D};
        EXPECT_EQ(calls[0].type, CollectiveType::AllToAll);
        EXPECT_EQ(calls[0].input_splits, mine);
        EXPECT_EQ(calls[0].output_splits, theirs);
        EXPECT_EQ(calls[1].type, CollectiveType::AllToAll);
        EXPECT_EQ(calls[1].input_splits, theirs);
        EXPECT_EQ(calls[1].output_splits, mine);
        EXPECT_EQ(calls[2].type, CollectiveType::AllReduce);
        // Bottom 13-16-4, top (4 + 5*4/2 = 14)-8-1, weights and biases, fp32.
        EXPECT_EQ(calls[2].input_bytes, static_cast<uint64_t>((13 * 16 + 16 + 16 * 4 + 4 + 14 * 8 + 8 + 8 + 1) * 4));
    }
}

TEST(GenerateEt, DlrmNeedsATableOnEveryRank) {
    GenerateOptions o = small(GenModel::Dlrm);
    o.ranks = 2, o.micro_batch = 8, o.emb_dim = 4, o.bottom_mlp = {4}, o.top_mlp = {1}, o.table_ranks = {0, 0, 0};
    resolve_generate_options(o);
    const std::string dir = testing::scratch_dir("generate_et_dlrm_bad");
    EXPECT_NE(testing::error_message_of([&] { write_generated_et(o, dir); }).find("--shard-tables: rank 1 holds no table"), std::string::npos);
}

TEST(GenerateDlrm, TablesOfTheirOwnSizesWhereTheShardingPutsThem) {
    GenerateOptions o = small(GenModel::Dlrm);
    o.ranks = 4, o.micro_batch = 64, o.emb_dim = 16, o.bottom_mlp = {32, 16}, o.top_mlp = {64, 1};
    o.table_rows = {1000, 2000, 1000, 500, 1000}, o.table_pooling = {4, 1, 4, 8, 4}, o.table_ranks = {0, 1, 2, 3, 3};
    const GenWorkload w = build(o);
    // Ranks 0 and 2 hold equal tables and share a program; 1 and 3 each have their own.
    EXPECT_EQ(w.programs.size(), 3u);
    EXPECT_EQ(w.program_of_rank[0], w.program_of_rank[2]);
    EXPECT_EQ(dlrm_local_tables(w.options, 3), 2);
    const std::vector<DlrmTable> t3 = dlrm_rank_tables(w.options, 3);
    ASSERT_EQ(t3.size(), 2u);
    EXPECT_EQ(t3[0].rows, 500);
    EXPECT_EQ(t3[1].pooling, 4);
    auto bad = [](GenerateOptions x) { return testing::error_message_of([&] { resolve_generate_options(x); }); };
    GenerateOptions rows = o;
    rows.tables = 5, rows.table_rows = {1, 2};
    EXPECT_NE(bad(rows).find("--table-rows: has 2 entries for 5 tables"), std::string::npos);
    GenerateOptions rank = o;
    rank.table_ranks = {0, 1, 2, 3, 4};
    EXPECT_NE(bad(rank).find("--shard-tables: rank 4 is not one of the 4 ranks"), std::string::npos);
    GenerateOptions gpt = small(GenModel::Gpt);
    gpt.table_pooling = {1};
    EXPECT_NE(bad(gpt).find("--table-pooling: is a dlrm option"), std::string::npos);
}

TEST(GenerateEt, PipelineStagesSendInPairGroups) {
    GenerateOptions o;
    o.model = GenModel::Gpt;
    o.ranks = 3, o.pp = 3, o.layers = 3, o.hidden = 32, o.heads = 4, o.seq = 8, o.vocab = 64, o.micro_batch = 2;
    o.micro_batches = 2, o.dtype = "fp32", o.schedule = GenSchedule::GPipe;
    resolve_generate_options(o);
    const std::string dir = testing::scratch_dir("generate_et_pp");
    std::filesystem::remove_all(dir);
    write_generated_et(o, dir);
    const uint64_t act = 8 * 2 * 32 * 4;
    std::vector<std::vector<std::string>> seen(3);
    for (int64_t rank = 0; rank < 3; ++rank) {
        const Trace trace = generated_rank(dir, rank);
        for (const auto& c : calls_of(trace)) {
            if (c.kind == CommKind::Send || c.kind == CommKind::Recv) {
                EXPECT_EQ(c.input_bytes, act);
            }
            seen[static_cast<size_t>(rank)].push_back(analysis::call_name(c) + "@" + c.pg_name + "/" + std::to_string(c.root));
        }
    }
    // GPipe: every forward's send, then every backward's; each stage's
    // neighbours in a group of the pair, the lower rank group rank 0.
    EXPECT_EQ(seen[0], (std::vector<std::string>{"send@p2p_0_1/1", "send@p2p_0_1/1", "recv@p2p_0_1/1", "recv@p2p_0_1/1",
                                                 "all_reduce@emb_0_2/0"}));
    EXPECT_EQ(seen[1], (std::vector<std::string>{"recv@p2p_0_1/0", "send@p2p_1_2/1", "recv@p2p_0_1/0", "send@p2p_1_2/1",
                                                 "recv@p2p_1_2/1", "send@p2p_0_1/0", "recv@p2p_1_2/1", "send@p2p_0_1/0"}));
    EXPECT_EQ(seen[2].back(), "all_reduce@emb_0_2/0");
    EXPECT_EQ(seen[2].size(), 5u);
}

TEST(GenerateEt, OneFOneBStagesAlternateAndSendWithoutWaiting) {
    GenerateOptions o;
    o.model = GenModel::Gpt;
    o.ranks = 2, o.pp = 2, o.layers = 2, o.hidden = 32, o.heads = 4, o.seq = 8, o.vocab = 64, o.micro_batch = 2;
    o.micro_batches = 3, o.dtype = "fp32", o.schedule = GenSchedule::OneFOneB;
    resolve_generate_options(o);
    const std::string dir = testing::scratch_dir("generate_et_1f1b");
    std::filesystem::remove_all(dir);
    write_generated_et(o, dir);
    std::vector<std::vector<std::string>> seen(2);
    for (int64_t rank = 0; rank < 2; ++rank) {
        const Trace trace = generated_rank(dir, rank);
        for (const auto& c : calls_of(trace)) {
            // isends: the replay must not wait for a send before going on.
            if (c.kind == CommKind::Send) {
                EXPECT_FALSE(c.waits_at_once);
            }
            if (c.kind == CommKind::Recv) {
                EXPECT_TRUE(c.waits_at_once);
            }
            seen[static_cast<size_t>(rank)].push_back(analysis::call_name(c));
        }
    }
    // Stage 0 runs one forward ahead, then alternates, then drains; the
    // last stage alternates from the start. Each ends with the tied
    // embedding's all-reduce.
    EXPECT_EQ(seen[0], (std::vector<std::string>{"send", "send", "recv", "send", "recv", "recv", "all_reduce"}));
    EXPECT_EQ(seen[1], (std::vector<std::string>{"recv", "send", "recv", "send", "recv", "send", "all_reduce"}));
}

// What ASTRA-sim's feeder reads: protobuf's own parser takes every record,
// and the attributes have the value types it asks for.
TEST(GenerateChakra, ProtobufParsesTheFilesWithChakraTypes) {
    GenerateOptions o = small(GenModel::Gpt);
    o.ranks = 4, o.tp = 2, o.pp = 2, o.micro_batches = 2;
    const GenWorkload w = build(o);
    const std::string prefix = testing::scratch_dir("generate_pb") + "/w";
    write_generated_chakra(w, prefix, 1);
    std::ifstream in(prefix + ".3.et", std::ios::binary);
    std::stringstream bytes;
    bytes << in.rdbuf();
    const std::string text = bytes.str();
    google::protobuf::io::CodedInputStream stream(reinterpret_cast<const uint8_t*>(text.data()), static_cast<int>(text.size()));
    uint32_t length = 0;
    std::string record;
    ASSERT_TRUE(stream.ReadVarint32(&length) && stream.ReadString(&record, static_cast<int>(length)));
    ChakraProtoMsg::GlobalMetadata meta;
    ASSERT_TRUE(meta.ParseFromString(record));
    EXPECT_EQ(meta.version(), "0.0.4");
    size_t nodes = 0, sends = 0, colls = 0;
    while (stream.ReadVarint32(&length)) {
        ASSERT_TRUE(stream.ReadString(&record, static_cast<int>(length)));
        ChakraProtoMsg::Node n;
        ASSERT_TRUE(n.ParseFromString(record)) << nodes;
        EXPECT_EQ(n.id(), nodes);
        std::map<std::string, const ChakraProtoMsg::AttributeProto*> attrs;
        for (const auto& a : n.attr()) attrs[a.name()] = &a;
        ASSERT_TRUE(attrs.count("is_cpu_op"));
        EXPECT_TRUE(attrs["is_cpu_op"]->has_bool_val());
        if (n.type() == ChakraProtoMsg::COMP_NODE) {
            EXPECT_TRUE(attrs.at("num_ops")->has_int64_val());
            EXPECT_TRUE(attrs.at("tensor_size")->has_uint64_val());
            EXPECT_GT(n.duration_micros(), 0u);
        } else if (n.type() == ChakraProtoMsg::COMM_COLL_NODE) {
            ++colls;
            EXPECT_TRUE(attrs.at("comm_type")->has_int64_val());
            EXPECT_TRUE(attrs.at("comm_size")->has_int64_val());
            EXPECT_TRUE(attrs.at("pg_name")->has_string_val());  // rank 3's groups are not the world
        } else {
            ++sends;
            EXPECT_EQ(attrs.at("comm_src")->int32_val(), n.type() == ChakraProtoMsg::COMM_SEND_NODE ? 3 : 1);
            EXPECT_EQ(attrs.at("comm_dst")->int32_val(), n.type() == ChakraProtoMsg::COMM_SEND_NODE ? 1 : 3);
            EXPECT_TRUE(attrs.at("comm_tag")->has_int32_val());
        }
        for (uint64_t d : n.data_deps()) EXPECT_LT(d, n.id());
        ++nodes;
    }
    EXPECT_EQ(nodes, w.program(3).ops.size());
    EXPECT_EQ(sends, 4u);  // 2 micro-batches: activations in, gradients out
    EXPECT_GT(colls, 0u);
}

}  // namespace
}  // namespace mimic::compose

#include "compose/generate_summary.h"

#include <algorithm>
#include <cstdio>

#include "compose/generate_chakra.h"
#include "compose/generate_dlrm.h"
#include "compose/generate_transformer.h"
#include "support/json_writer.h"

namespace mimic::compose {
namespace {

const char* sharding_name(GenSharding s) {
    switch (s) {
        case GenSharding::None: return "ddp";
        case GenSharding::Zero: return "zero";
        case GenSharding::Fsdp: return "fsdp";
    }
    return "?";
}

std::vector<std::vector<int64_t>> ranks_by_program(const GenWorkload& w) {
    std::vector<std::vector<int64_t>> out(w.programs.size());
    for (size_t r = 0; r < w.program_of_rank.size(); ++r) out[w.program_of_rank[r]].push_back(static_cast<int64_t>(r));
    return out;
}

// Parameters one rank of this kind holds (before any ZeRO sharding).
uint64_t params_of(const GenWorkload& w, int64_t rank) {
    uint64_t n = 0;
    const GenerateOptions& o = w.options;
    if (o.transformer()) {
        for (const ParamUnit& u : transformer_stage_params(o, w.layout.coords(rank).stage))
            for (const ParamTensor& t : u.tensors) n += t.elems;
        return n;
    }
    for (const ParamUnit& u : dlrm_dense_params(o))
        for (const ParamTensor& t : u.tensors) n += t.elems;
    for (const DlrmTable& t : dlrm_rank_tables(o, rank)) n += static_cast<uint64_t>(t.rows * o.emb_dim);
    return n;
}

std::string human_bytes(double b) {
    const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
    int u = 0;
    while (b >= 1024 && u < 4) b /= 1024, ++u;
    char buf[32];
    std::snprintf(buf, sizeof buf, u ? "%.1f %s" : "%.0f %s", b, units[u]);
    return buf;
}

}  // namespace

std::string rank_ranges(const std::vector<int64_t>& ranks) {
    std::string s;
    for (size_t i = 0; i < ranks.size();) {
        size_t j = i;
        while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
        if (!s.empty()) s += ",";
        s += std::to_string(ranks[i]);
        if (j > i) s += "-" + std::to_string(ranks[j]);
        i = j + 1;
    }
    return s;
}

std::string generate_summary_json(const GenWorkload& w, const RankFilesStats& files, const std::string& prefix,
                                  const std::string& device) {
    const GenerateOptions& o = w.options;
    JsonWriter j;
    j.begin_object();
    j.field("model", gen_model_name(o.model));
    j.field("ranks", static_cast<long long>(o.ranks));
    j.field("dp", static_cast<long long>(o.dp)).field("tp", static_cast<long long>(o.tp));
    j.field("pp", static_cast<long long>(o.pp)).field("ep", static_cast<long long>(o.ep));
    j.field("sharding", sharding_name(o.sharding));
    j.field("schedule", o.schedule == GenSchedule::GPipe ? "gpipe" : "1f1b");
    j.field("dtype", o.dtype).field("dtype_bytes", static_cast<long long>(o.dtype_bytes()));
    j.field("device", device);
    j.key("sizes").begin_object();
    auto size = [&](const char* name, int64_t v) {
        if (v) j.field(name, static_cast<long long>(v));
    };
    size("layers", o.layers), size("hidden", o.hidden), size("heads", o.heads), size("kv_heads", o.kv_heads), size("seq", o.seq);
    size("micro_batch", o.micro_batch), size("micro_batches", o.micro_batches), size("vocab", o.vocab);
    if (o.transformer()) size("padded_vocab", o.padded_vocab());
    size("ffn", o.ffn), size("experts", o.experts), size("top_k", o.top_k), size("tables", o.tables), size("rows", o.rows);
    size("emb_dim", o.emb_dim), size("dense_features", o.dense_features), size("pooling", o.pooling);
    // Each table's rows, pooling and rank (--table-rows, --table-pooling, --shard-tables or their defaults).
    for (auto [name, list] : {std::pair{"table_rows", &o.table_rows}, {"table_pooling", &o.table_pooling}, {"table_ranks", &o.table_ranks}}) {
        if (list->empty()) continue;
        j.key(name).begin_array();
        for (int64_t v : *list) j.value(static_cast<long long>(v));
        j.end_array();
    }
    j.field("bucket_bytes", static_cast<long long>(o.bucket_mib * 1024 * 1024));
    j.end_object();
    j.field("file_pattern", prefix + ".<rank>.et");
    j.field("comm_groups", comm_groups_path(prefix));
    j.field("files", static_cast<long long>(files.files));
    j.field("distinct_encodings", static_cast<long long>(files.encodings));
    j.field("total_bytes", static_cast<unsigned long long>(files.bytes));
    j.field("write_seconds", files.seconds);
    j.key("rank_kinds").begin_array();
    const auto by_program = ranks_by_program(w);
    for (size_t k = 0; k < w.programs.size(); ++k) {
        const std::vector<int64_t>& ranks = by_program[k];
        if (ranks.empty()) continue;
        const GenCommTotals t = totals_of(w.programs[k]);
        uint64_t lo = UINT64_MAX, hi = 0;
        for (int64_t r : ranks) lo = std::min(lo, files.file_bytes[static_cast<size_t>(r)]), hi = std::max(hi, files.file_bytes[static_cast<size_t>(r)]);
        j.begin_object();
        j.field("ranks", rank_ranges(ranks));
        j.field("rank_count", static_cast<long long>(ranks.size()));
        if (o.transformer()) j.field("stage", static_cast<long long>(w.layout.coords(ranks[0]).stage));
        else j.field("local_tables", static_cast<long long>(dlrm_local_tables(o, ranks[0])));
        j.field("params", static_cast<unsigned long long>(params_of(w, ranks[0])));
        j.field("nodes", static_cast<unsigned long long>(t.nodes));
        j.field("file_bytes_min", static_cast<unsigned long long>(lo)).field("file_bytes_max", static_cast<unsigned long long>(hi));
        j.field("compute_flops", static_cast<unsigned long long>(t.flops));
        j.field("compute_us", static_cast<unsigned long long>(t.compute_us));
        j.key("collectives").begin_object();
        for (size_t g = 0; g < kGenGroupKinds; ++g) {
            bool any = false;
            for (size_t c = 0; c < kGenCollectiveKinds; ++c) any = any || t.calls[g][c];
            if (!any) continue;
            j.key(gen_group_name(static_cast<GenGroup>(g))).begin_object();
            for (GenCollective c : {GenCollective::AllReduce, GenCollective::AllGather, GenCollective::AllToAll, GenCollective::ReduceScatter}) {
                const size_t ci = gen_collective_index(c);
                if (!t.calls[g][ci]) continue;
                j.field(std::string(gen_collective_name(c)) + "_bytes", static_cast<unsigned long long>(t.bytes[g][ci]));
                j.field(std::string(gen_collective_name(c)) + "_calls", static_cast<unsigned long long>(t.calls[g][ci]));
            }
            j.end_object();
        }
        j.end_object();
        j.field("send_bytes", static_cast<unsigned long long>(t.send_bytes)).field("sends", static_cast<unsigned long long>(t.sends));
        j.field("recv_bytes", static_cast<unsigned long long>(t.recv_bytes)).field("recvs", static_cast<unsigned long long>(t.recvs));
        j.end_object();
    }
    j.end_array();
    j.end_object();
    return j.str() + "\n";
}

std::string generate_summary_table(const GenWorkload& w, const RankFilesStats& files, const std::string& prefix) {
    const GenerateOptions& o = w.options;
    std::string s;
    char line[512];
    std::snprintf(line, sizeof line, "%s on %lld ranks (dp %lld x tp %lld x pp %lld%s): %lld files %s.<rank>.et, %s, %lld distinct\n",
                  gen_model_name(o.model), static_cast<long long>(o.ranks), static_cast<long long>(o.dp), static_cast<long long>(o.tp),
                  static_cast<long long>(o.pp), o.ep > 1 ? (", ep " + std::to_string(o.ep)).c_str() : "",
                  static_cast<long long>(files.files), prefix.c_str(), human_bytes(static_cast<double>(files.bytes)).c_str(),
                  static_cast<long long>(files.encodings));
    s += line;
    s += "ranks             nodes  compute_ms  per-rank communication\n";
    const auto by_program = ranks_by_program(w);
    for (size_t k = 0; k < w.programs.size(); ++k) {
        if (by_program[k].empty()) continue;
        const GenCommTotals t = totals_of(w.programs[k]);
        std::string comm;
        for (size_t g = 0; g < kGenGroupKinds; ++g)
            for (GenCollective c : {GenCollective::AllReduce, GenCollective::AllGather, GenCollective::AllToAll, GenCollective::ReduceScatter}) {
                const size_t ci = gen_collective_index(c);
                if (!t.calls[g][ci]) continue;
                comm += std::string(comm.empty() ? "" : ", ") + gen_group_name(static_cast<GenGroup>(g)) + " " + gen_collective_name(c) + " " +
                        human_bytes(static_cast<double>(t.bytes[g][ci])) + " (" + std::to_string(t.calls[g][ci]) + ")";
            }
        if (t.sends) comm += std::string(comm.empty() ? "" : ", ") + "send " + human_bytes(static_cast<double>(t.send_bytes)) + " (" + std::to_string(t.sends) + ")";
        if (t.recvs) comm += std::string(comm.empty() ? "" : ", ") + "recv " + human_bytes(static_cast<double>(t.recv_bytes)) + " (" + std::to_string(t.recvs) + ")";
        std::string ranks = rank_ranges(by_program[k]);
        if (ranks.size() > 16) ranks = std::to_string(by_program[k].size()) + " ranks";
        std::snprintf(line, sizeof line, "%-16s %6llu %11.3f  %s\n", ranks.c_str(), static_cast<unsigned long long>(t.nodes),
                      static_cast<double>(t.compute_us) / 1e3, comm.empty() ? "none" : comm.c_str());
        s += line;
    }
    return s;
}

}  // namespace mimic::compose

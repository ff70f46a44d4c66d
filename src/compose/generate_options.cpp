#include "compose/generate_options.h"

#include <string>

#include "support/error.h"

namespace mimic::compose {
namespace {

[[noreturn]] void bad(const char* option, const std::string& what) { fail({option, -1, -1, ""}, what); }

std::string num(int64_t v) { return std::to_string(v); }

void fill(int64_t& v, int64_t dflt) {
    if (v == 0) v = dflt;
}

void positive(int64_t v, const char* option) {
    if (v < 1) bad(option, "must be at least 1, got " + num(v));
}

// Defaults: GPT-3 1.3B, Llama 2 7B, Mixtral 8x7B and the MLPerf DLRM on
// Criteo (26 tables) are the models people quote these workloads by.
void defaults(GenerateOptions& o) {
    switch (o.model) {
        case GenModel::Gpt:
            fill(o.layers, 24), fill(o.hidden, 2048), fill(o.heads, 16), fill(o.seq, 2048), fill(o.vocab, 50257);
            fill(o.ffn, 4 * o.hidden);
            break;
        case GenModel::Llama:
            fill(o.layers, 32), fill(o.hidden, 4096), fill(o.heads, 32), fill(o.seq, 4096), fill(o.vocab, 32000);
            fill(o.ffn, 11008);
            break;
        case GenModel::Moe:
            fill(o.layers, 32), fill(o.hidden, 4096), fill(o.heads, 32), fill(o.kv_heads, 8), fill(o.seq, 4096);
            fill(o.vocab, 32000), fill(o.ffn, 14336), fill(o.experts, 8), fill(o.top_k, 2);
            break;
        case GenModel::Dlrm:
            fill(o.tables, 26), fill(o.rows, 1000000), fill(o.emb_dim, 128), fill(o.dense_features, 13), fill(o.pooling, 1);
            fill(o.micro_batch, 2048);
            if (o.bottom_mlp.empty()) o.bottom_mlp = {512, 256, o.emb_dim};
            if (o.top_mlp.empty()) o.top_mlp = {1024, 1024, 512, 256, 1};
            break;
    }
    if (o.transformer()) {
        fill(o.kv_heads, o.heads);
        fill(o.micro_batch, 1);
    }
    // A pipeline needs several micro-batches in flight to fill its stages.
    fill(o.micro_batches, o.pp > 1 ? 2 * o.pp : 1);
}

void check_parallelism(GenerateOptions& o) {
    positive(o.tp, "--tp");
    positive(o.pp, "--pp");
    positive(o.ep, "--ep");
    if (o.ranks < 0) bad("--ranks", "must be at least 1, got " + num(o.ranks));
    if (o.dp < 0) bad("--dp", "must be at least 1, got " + num(o.dp));
    const int64_t model_parallel = o.tp * o.pp;
    if (o.ranks == 0) o.ranks = (o.dp ? o.dp : 1) * model_parallel;
    if (o.dp == 0) {
        if (o.ranks % model_parallel != 0)
            bad("--ranks", num(o.ranks) + " ranks do not split into groups of --tp " + num(o.tp) + " x --pp " + num(o.pp) + " = " +
                               num(model_parallel));
        o.dp = o.ranks / model_parallel;
    }
    if (o.ranks != o.dp * model_parallel)
        bad("--ranks", num(o.ranks) + " ranks are not --dp " + num(o.dp) + " x --tp " + num(o.tp) + " x --pp " + num(o.pp) + " = " +
                           num(o.dp * model_parallel));
    if (o.ranks > (int64_t(1) << 24)) bad("--ranks", "at most 16,777,216 ranks, got " + num(o.ranks));
}

void check_transformer(const GenerateOptions& o) {
    for (auto [v, name] : {std::pair{o.layers, "--layers"}, {o.hidden, "--hidden"}, {o.heads, "--heads"}, {o.kv_heads, "--kv-heads"},
                           {o.seq, "--seq"}, {o.micro_batch, "--micro-batch"}, {o.micro_batches, "--micro-batches"},
                           {o.vocab, "--vocab"}, {o.ffn, "--ffn"}})
        positive(v, name);
    for (auto [l, name] : {std::pair{&o.table_rows, "--table-rows"}, {&o.table_pooling, "--table-pooling"}, {&o.table_ranks, "--shard-tables"}})
        if (!l->empty()) bad(name, "is a dlrm option");
    if (o.hidden % o.heads != 0) bad("--hidden", num(o.hidden) + " does not split into --heads " + num(o.heads) + " heads");
    if (o.heads % o.kv_heads != 0) bad("--kv-heads", num(o.kv_heads) + " key/value heads do not divide --heads " + num(o.heads));
    if (o.heads % o.tp != 0) bad("--heads", num(o.heads) + " heads do not split over --tp " + num(o.tp));
    if (o.kv_heads % o.tp != 0) bad("--kv-heads", num(o.kv_heads) + " key/value heads do not split over --tp " + num(o.tp));
    if (o.ffn % o.tp != 0) bad("--ffn", num(o.ffn) + " does not split over --tp " + num(o.tp));
    if (o.layers % o.pp != 0) bad("--layers", num(o.layers) + " layers do not split into --pp " + num(o.pp) + " equal stages");
    if (o.model == GenModel::Moe) {
        positive(o.experts, "--experts");
        positive(o.top_k, "--top-k");
        if (o.top_k > o.experts) bad("--top-k", num(o.top_k) + " exceeds the " + num(o.experts) + " experts");
        if (o.experts % o.ep != 0) bad("--experts", num(o.experts) + " experts do not split over --ep " + num(o.ep));
        if (o.dp % o.ep != 0) bad("--ep", "expert parallelism runs within data parallelism: --ep " + num(o.ep) + " does not divide --dp " + num(o.dp));
    } else {
        if (o.ep != 1) bad("--ep", "expert parallelism needs the moe model");
        if (o.experts != 0 || o.top_k != 0) bad(o.experts ? "--experts" : "--top-k", "only the moe model has experts");
    }
}

// Per-table lists: a given list sets --tables when that was not given, and
// must have one entry per table; an empty one takes the uniform value.
void per_table(std::vector<int64_t>& list, int64_t tables, int64_t uniform, const char* option) {
    if (list.empty()) {
        list.assign(static_cast<size_t>(tables), uniform);
        return;
    }
    if (static_cast<int64_t>(list.size()) != tables)
        bad(option, "has " + num(static_cast<int64_t>(list.size())) + " entries for " + num(tables) + " tables");
}

void resolve_tables(GenerateOptions& o) {
    // The first list given fixes the table count when --tables was not given.
    for (const std::vector<int64_t>* l : {&o.table_rows, &o.table_pooling, &o.table_ranks})
        if (o.tables == 0 && !l->empty()) o.tables = static_cast<int64_t>(l->size());
}

void check_tables(GenerateOptions& o) {
    per_table(o.table_rows, o.tables, o.rows, "--table-rows");
    per_table(o.table_pooling, o.tables, o.pooling, "--table-pooling");
    for (int64_t v : o.table_rows) positive(v, "--table-rows");
    for (int64_t v : o.table_pooling) positive(v, "--table-pooling");
    if (o.table_ranks.empty()) {
        for (int64_t t = 0; t < o.tables; ++t) o.table_ranks.push_back(t % o.ranks);
    } else {
        per_table(o.table_ranks, o.tables, 0, "--shard-tables");
        for (int64_t r : o.table_ranks)
            if (r < 0 || r >= o.ranks) bad("--shard-tables", "rank " + num(r) + " is not one of the " + num(o.ranks) + " ranks");
    }
}

void check_dlrm(GenerateOptions& o) {
    // DLRM shards its tables over every rank and runs its MLPs data-parallel
    // over every rank: there is no tensor or pipeline dimension to choose.
    if (o.tp != 1) bad("--tp", "dlrm shards its embedding tables over all ranks; tensor parallelism does not apply");
    if (o.pp != 1) bad("--pp", "dlrm has no pipeline stages");
    if (o.ep != 1) bad("--ep", "expert parallelism needs the moe model");
    if (o.sharding == GenSharding::Fsdp) bad("--fsdp", "dlrm's MLPs are small; use --zero to shard their optimizer state");
    for (auto [v, name] : {std::pair{o.tables, "--tables"}, {o.rows, "--rows"}, {o.emb_dim, "--emb-dim"},
                           {o.dense_features, "--dense-features"}, {o.pooling, "--pooling"}, {o.micro_batch, "--micro-batch"},
                           {o.micro_batches, "--micro-batches"}})
        positive(v, name);
    for (int64_t w : o.bottom_mlp) positive(w, "--bottom-mlp");
    for (int64_t w : o.top_mlp) positive(w, "--top-mlp");
    if (o.bottom_mlp.empty() || o.bottom_mlp.back() != o.emb_dim)
        bad("--bottom-mlp", "its last width must equal --emb-dim " + num(o.emb_dim) + " (the dense features join the embeddings)");
    if (o.top_mlp.empty()) bad("--top-mlp", "needs at least one layer");
    check_tables(o);
    for (auto [v, name] : {std::pair{o.layers, "--layers"}, {o.hidden, "--hidden"}, {o.heads, "--heads"}, {o.seq, "--seq"},
                           {o.vocab, "--vocab"}, {o.ffn, "--ffn"}, {o.experts, "--experts"}, {o.top_k, "--top-k"}})
        if (v != 0) bad(name, "is a transformer size; dlrm takes --tables, --rows, --emb-dim, --bottom-mlp, --top-mlp");
}

}  // namespace

std::string GenerateOptions::dtype_trace_name() const {
    if (dtype == "bf16") return "c10::BFloat16";
    if (dtype == "fp16") return "c10::Half";
    return "float";
}

int64_t GenerateOptions::padded_vocab() const {
    const int64_t multiple = 128 * tp;
    return (vocab + multiple - 1) / multiple * multiple;
}

GenModel parse_gen_model(const std::string& name) {
    if (name == "gpt") return GenModel::Gpt;
    if (name == "llama") return GenModel::Llama;
    if (name == "moe") return GenModel::Moe;
    if (name == "dlrm") return GenModel::Dlrm;
    bad("model", "expected gpt, llama, moe or dlrm, got '" + name + "'");
}

const char* gen_model_name(GenModel m) {
    switch (m) {
        case GenModel::Gpt: return "gpt";
        case GenModel::Llama: return "llama";
        case GenModel::Moe: return "moe";
        case GenModel::Dlrm: return "dlrm";
    }
    return "?";
}

std::vector<int64_t> parse_layer_widths(const std::string& text, const char* option) {
    std::vector<int64_t> widths;
    size_t start = 0;
    while (start <= text.size()) {
        const size_t dash = text.find('-', start);
        const std::string part = text.substr(start, dash == std::string::npos ? std::string::npos : dash - start);
        size_t used = 0;
        int64_t v = 0;
        try {
            v = std::stoll(part, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (part.empty() || used != part.size() || v < 1)
            bad(option, "expected widths like 512-256-64, got '" + text + "'");
        widths.push_back(v);
        if (dash == std::string::npos) break;
        start = dash + 1;
    }
    return widths;
}

void resolve_generate_options(GenerateOptions& o) {
    if (o.dtype != "bf16" && o.dtype != "fp16" && o.dtype != "fp32") bad("--dtype", "expected bf16, fp16 or fp32, got '" + o.dtype + "'");
    if (!(o.bucket_mib > 0)) bad("--bucket-mib", "must be positive");
    if (o.model == GenModel::Dlrm) {
        check_parallelism(o);
        resolve_tables(o);
        defaults(o);
        check_dlrm(o);
        return;
    }
    check_parallelism(o);
    defaults(o);
    check_transformer(o);
}

}  // namespace mimic::compose

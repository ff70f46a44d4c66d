#include "compose/generate_dlrm.h"

#include <string>

#include "compose/generate_chain.h"

namespace mimic::compose {
namespace {

using u64 = uint64_t;

// The widths an MLP's layers map between: `in`, then each layer's output.
std::vector<u64> widths(u64 in, const std::vector<int64_t>& layers) {
    std::vector<u64> w{in};
    for (int64_t l : layers) w.push_back(static_cast<u64>(l));
    return w;
}

struct Work {
    u64 flops, bytes;
    int kernels;
};

// A dense MLP over B samples: one GEMM, bias and activation per layer.
Work mlp_work(const std::vector<u64>& w, u64 B, u64 d) {
    Work x{0, 0, 0};
    for (size_t i = 1; i < w.size(); ++i) {
        x.flops += 2 * B * w[i - 1] * w[i];
        x.bytes += (w[i - 1] * w[i] + w[i] + B * (w[i - 1] + 2 * w[i])) * d;
        x.kernels += 2;
    }
    return x;
}

ParamUnit mlp_unit(const std::string& name, const std::vector<u64>& w) {
    ParamUnit u{name, {}, false};
    for (size_t i = 1; i < w.size(); ++i) {
        u.tensors.push_back({w[i - 1] * w[i], GenGroup::Data});  // weight
        u.tensors.push_back({w[i], GenGroup::Data});             // bias
    }
    return u;
}

struct DlrmShape {
    u64 B, ranks, tables, D, d;
    std::vector<u64> bottom, top;
    u64 features() const { return tables + 1; }  // the tables' vectors and the bottom MLP's
};

DlrmShape shape_of(const GenerateOptions& o) {
    DlrmShape x;
    x.B = static_cast<u64>(o.micro_batch);
    x.ranks = static_cast<u64>(o.ranks);
    x.tables = static_cast<u64>(o.tables);
    x.D = static_cast<u64>(o.emb_dim);
    x.d = static_cast<u64>(o.dtype_bytes());
    x.bottom = widths(static_cast<u64>(o.dense_features), o.bottom_mlp);
    const u64 F = x.features();
    x.top = widths(x.D + F * (F - 1) / 2, o.top_mlp);  // the dense vector and the pairwise dot products
    return x;
}

}  // namespace

std::vector<DlrmTable> dlrm_rank_tables(const GenerateOptions& o, int64_t rank) {
    std::vector<DlrmTable> mine;
    for (size_t t = 0; t < o.table_ranks.size(); ++t)
        if (o.table_ranks[t] == rank) mine.push_back({static_cast<int64_t>(t), o.table_rows[t], o.table_pooling[t]});
    return mine;
}

int64_t dlrm_local_tables(const GenerateOptions& o, int64_t rank) {
    int64_t n = 0;
    for (int64_t r : o.table_ranks) n += r == rank ? 1 : 0;
    return n;
}

std::vector<ParamUnit> dlrm_dense_params(const GenerateOptions& o) {
    const DlrmShape x = shape_of(o);
    return {mlp_unit("bottom_mlp", x.bottom), mlp_unit("top_mlp", x.top)};
}

RankProgram build_dlrm_program(const GenerateOptions& o, const RankLayout& layout, const ComputeCost& cost, const std::vector<DlrmTable>& tables) {
    const DlrmShape x = shape_of(o);
    RankProgram program;
    ProgramChain chain(program, cost);
    GradSync sync(o, layout);
    const std::vector<ParamUnit> units = dlrm_dense_params(o);

    const Work bottom = mlp_work(x.bottom, x.B, x.d);
    const Work top = mlp_work(x.top, x.B, x.d);
    // This rank's tables, looked up for the samples of every rank.
    u64 lookups = 0;
    for (const DlrmTable& t : tables) lookups += x.B * x.ranks * static_cast<u64>(t.pooling);
    const u64 local = tables.size();
    const Work lookup{lookups * x.D, (lookups * x.D + x.B * x.ranks * local * x.D) * x.d + 8 * lookups, 2};
    const u64 F = x.features();
    const Work interact{2 * x.B * F * F * x.D, (x.B * F * x.D + x.B * F * F) * x.d, 3};
    const u64 exchange = x.B * x.tables * x.D * x.d;  // pooled vectors of this rank's samples, every table

    for (int64_t m = 0; m < o.micro_batches; ++m) {
        const std::string mb = " mb" + std::to_string(m);
        const bool final = m == o.micro_batches - 1;
        chain.compute("bottom_mlp.fwd" + mb, bottom.flops, bottom.bytes, bottom.kernels);
        if (local) chain.compute("embedding.lookup" + mb, lookup.flops, lookup.bytes, lookup.kernels);
        if (x.ranks > 1) chain.blocking("embedding.a2a" + mb, GenCollective::AllToAll, GenGroup::World, exchange);
        chain.compute("interaction.fwd" + mb, interact.flops, interact.bytes, interact.kernels);
        chain.compute("top_mlp.fwd" + mb, top.flops + 5 * x.B, top.bytes, top.kernels + 1);

        chain.compute("top_mlp.bwd" + mb, 2 * top.flops, 2 * top.bytes, 2 * top.kernels);
        if (final) sync.gradients_ready(chain, units[1]);
        chain.compute("interaction.bwd" + mb, 2 * interact.flops, 2 * interact.bytes, 2 * interact.kernels);
        if (x.ranks > 1) chain.blocking("embedding.a2a.bwd" + mb, GenCollective::AllToAll, GenGroup::World, exchange);
        // Sparse update: each looked-up row's gradient is added to the row.
        if (local) chain.compute("embedding.update" + mb, 2 * lookup.flops, 2 * lookup.bytes, 2 * lookup.kernels);
        chain.compute("bottom_mlp.bwd" + mb, 2 * bottom.flops, 2 * bottom.bytes, 2 * bottom.kernels);
        if (final) sync.gradients_ready(chain, units[0]);
    }
    sync.finish(chain, units);
    return program;
}

}  // namespace mimic::compose

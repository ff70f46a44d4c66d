#include "compose/generate_transformer.h"

#include <algorithm>
#include <string>

#include "compose/generate_chain.h"

namespace mimic::compose {
namespace {

using u64 = uint64_t;

// One rank's share of the model's sizes.
struct Shape {
    u64 b, s, h, t, heads, hkv, f, vocab, experts, local_experts, top_k, d;
    u64 tokens() const { return b * s; }
    u64 act_bytes() const { return tokens() * h * d; }  // one micro-batch's activations
};

Shape shape_of(const GenerateOptions& o) {
    Shape x;
    x.b = static_cast<u64>(o.micro_batch);
    x.s = static_cast<u64>(o.seq);
    x.h = static_cast<u64>(o.hidden);
    x.t = static_cast<u64>(o.tp);
    x.heads = static_cast<u64>(o.heads);
    x.hkv = static_cast<u64>(o.kv_heads * o.head_dim());
    x.f = static_cast<u64>(o.ffn);
    x.vocab = static_cast<u64>(o.padded_vocab());
    x.experts = static_cast<u64>(o.experts);
    x.local_experts = o.experts ? static_cast<u64>(o.experts / o.ep) : 0;
    x.top_k = static_cast<u64>(o.top_k);
    x.d = static_cast<u64>(o.dtype_bytes());
    return x;
}

void add(ParamUnit& u, u64 elems, GenGroup g = GenGroup::Data) { u.tensors.push_back({elems, g}); }

ParamUnit layer_params(const GenerateOptions& o, const Shape& x, int64_t layer) {
    ParamUnit u;
    u.name = "L" + std::to_string(layer);
    u.layer = true;
    const u64 h = x.h, t = x.t;
    if (o.model == GenModel::Gpt) {
        add(u, h), add(u, h);                                   // layer norm
        add(u, (h + 2 * x.hkv) * h / t), add(u, (h + 2 * x.hkv) / t);  // QKV, column-parallel
        add(u, h * h / t), add(u, h);                           // output projection, row-parallel (bias whole)
        add(u, h), add(u, h);                                   // layer norm
        add(u, x.f * h / t), add(u, x.f / t);                   // fc1, column-parallel
        add(u, h * x.f / t), add(u, h);                         // fc2, row-parallel
        return u;
    }
    add(u, h);                                                   // RMS norm
    add(u, h * h / t), add(u, x.hkv * h / t), add(u, x.hkv * h / t), add(u, h * h / t);  // q, k, v, o
    add(u, h);                                                   // RMS norm
    if (o.model == GenModel::Llama) {
        add(u, x.f * h / t), add(u, x.f * h / t), add(u, h * x.f / t);  // gate, up, down
        return u;
    }
    add(u, x.experts * h);  // router, on every rank
    for (u64 e = 0; e < x.local_experts; ++e)
        add(u, x.f * h, GenGroup::ExpertData), add(u, x.f * h, GenGroup::ExpertData), add(u, h * x.f, GenGroup::ExpertData);
    return u;
}

class StageBuilder {
public:
    StageBuilder(const GenerateOptions& o, const RankLayout& layout, const ComputeCost& cost, int64_t stage)
        : o_(o), layout_(layout), x_(shape_of(o)), stage_(stage), first_(stage == 0), last_(stage == o.pp - 1), chain_(program_, cost),
          sync_(o, layout), units_(transformer_stage_params(o, stage)) {}

    RankProgram build() {
        const int64_t m_count = o_.micro_batches;
        if (o_.schedule == GenSchedule::GPipe) {
            for (int64_t m = 0; m < m_count; ++m) forward(m);
            for (int64_t m = 0; m < m_count; ++m) backward(m);
        } else {
            // 1F1B: the stages before the last run ahead by the forwards
            // that fill the pipeline, then alternate, then drain.
            const int64_t warmup = std::min<int64_t>(o_.pp - 1 - stage_, m_count);
            for (int64_t m = 0; m < warmup; ++m) forward(m);
            for (int64_t i = 0; i < m_count - warmup; ++i) {
                forward(warmup + i);
                backward(i);
            }
            for (int64_t i = m_count - warmup; i < m_count; ++i) backward(i);
        }
        sync_.flush(chain_);
        // Megatron then sums the gradients of the two copies of a tied
        // embedding, on the first and the last stage, before the optimizer.
        if (layout_.group_size(GenGroup::Embedding) > 1 && (first_ || last_))
            chain_.blocking("embed.grad.emb.ar", GenCollective::AllReduce, GenGroup::Embedding, x_.vocab * x_.h / x_.t * x_.d);
        sync_.optimizer(chain_, units_);
        return std::move(program_);
    }

private:
    static std::string mb(int64_t m) { return " mb" + std::to_string(m); }
    const ParamUnit& unit_of_layer(int64_t local) const { return units_[static_cast<size_t>(local + (first_ ? 1 : 0))]; }
    int64_t global_layer(int64_t local) const { return stage_ * o_.layers_per_stage() + local; }
    bool moe() const { return o_.model == GenModel::Moe; }

    void tp_all_reduce(const std::string& name) {
        if (x_.t > 1) chain_.blocking(name, GenCollective::AllReduce, GenGroup::Tensor, x_.act_bytes());
    }
    void expert_all_to_all(const std::string& name) {
        if (o_.ep > 1) chain_.blocking(name, GenCollective::AllToAll, GenGroup::Expert, x_.tokens() * x_.top_k * x_.h * x_.d);
    }

    // FLOPs and bytes of one block's forward; backward takes twice both.
    struct Work {
        u64 flops, bytes;
        int kernels;
    };
    Work attention() const {
        const u64 T = x_.tokens(), h = x_.h, t = x_.t, qkv = h + 2 * x_.hkv;
        const u64 scores = x_.b * (x_.heads / t) * x_.s * x_.s;  // per rank: its heads' s x s scores
        const u64 flops = 2 * T * h * qkv / t + 4 * x_.b * x_.s * x_.s * h / t + 2 * T * h * h / t;
        const u64 elems = (qkv * h + h * h) / t + 2 * T * h + 2 * T * qkv / t + 2 * T * h / t + 3 * scores;
        return {flops, elems * x_.d, 8};
    }
    Work mlp() const {
        const u64 T = x_.tokens(), h = x_.h, f = x_.f / x_.t;
        if (o_.model == GenModel::Gpt) return {4 * T * h * f, (2 * h * f + 2 * T * h + 3 * T * f) * x_.d, 4};
        return {6 * T * h * f, (3 * h * f + 2 * T * h + 4 * T * f) * x_.d, 5};
    }
    Work router() const {
        const u64 T = x_.tokens();
        return {2 * T * x_.h * x_.experts, (x_.experts * x_.h + T * x_.h + T * x_.experts) * x_.d, 3};
    }
    Work experts() const {
        // Balanced routing: every rank of the expert group receives as many
        // routed tokens as it sends, tokens x top_k.
        const u64 routed = x_.tokens() * x_.top_k, h = x_.h, f = x_.f;
        return {6 * routed * h * f, (x_.local_experts * 3 * h * f + 2 * routed * h + 4 * routed * f) * x_.d,
                static_cast<int>(3 * x_.local_experts + 2)};
    }
    Work embedding() const {
        const u64 T = x_.tokens();
        return {T * x_.h, 2 * T * x_.h * x_.d + 8 * T, 2};
    }
    Work head() const {
        const u64 T = x_.tokens(), v = x_.vocab / x_.t;
        return {2 * T * x_.h * v + 5 * T * v, (v * x_.h + T * x_.h + 3 * T * v) * x_.d, 6};
    }
    void step(const std::string& name, const Work& w, bool backward) {
        const u64 k = backward ? 2 : 1;
        chain_.compute(name, k * w.flops, k * w.bytes, static_cast<int>(k) * w.kernels);
    }

    void forward(int64_t m) {
        if (!first_) chain_.recv("act.recv" + mb(m), -1, static_cast<int32_t>(2 * m), x_.act_bytes());
        if (first_) {
            step("embed.fwd" + mb(m), embedding(), false);
            tp_all_reduce("embed.tp.ar" + mb(m));
        }
        for (int64_t l = 0; l < o_.layers_per_stage(); ++l) {
            const std::string L = "L" + std::to_string(global_layer(l));
            sync_.gather_layer(chain_, unit_of_layer(l), "fwd" + mb(m));
            step(L + ".attn.fwd" + mb(m), attention(), false);
            tp_all_reduce(L + ".attn.tp.ar" + mb(m));
            if (moe()) {
                step(L + ".router.fwd" + mb(m), router(), false);
                expert_all_to_all(L + ".dispatch.a2a" + mb(m));
                step(L + ".experts.fwd" + mb(m), experts(), false);
                expert_all_to_all(L + ".combine.a2a" + mb(m));
            } else {
                step(L + ".mlp.fwd" + mb(m), mlp(), false);
                tp_all_reduce(L + ".mlp.tp.ar" + mb(m));
            }
        }
        if (last_) {
            step("head.fwd" + mb(m), head(), false);
            // Vocabulary-parallel cross-entropy: the maximum logit, the
            // target's logit and the sum of exponentials of every token are
            // all-reduced over the tensor-parallel group (fp32).
            for (const char* what : {"max", "target", "sum_exp"})
                if (x_.t > 1)
                    chain_.blocking(std::string("head.ce.") + what + ".tp.ar" + mb(m), GenCollective::AllReduce, GenGroup::Tensor,
                                    x_.tokens() * 4);
        } else {
            chain_.send("act.send" + mb(m), +1, static_cast<int32_t>(2 * m), x_.act_bytes());
        }
    }

    void backward(int64_t m) {
        const bool final = m == o_.micro_batches - 1;  // the last backward of the iteration in both schedules
        if (!last_) chain_.recv("grad.recv" + mb(m), +1, static_cast<int32_t>(2 * m + 1), x_.act_bytes());
        if (last_) {
            step("head.bwd" + mb(m), head(), true);
            if (final) sync_.gradients_ready(chain_, units_.back());
        }
        for (int64_t l = o_.layers_per_stage() - 1; l >= 0; --l) {
            const std::string L = "L" + std::to_string(global_layer(l));
            sync_.gather_layer(chain_, unit_of_layer(l), "bwd" + mb(m));
            if (moe()) {
                expert_all_to_all(L + ".combine.a2a.bwd" + mb(m));
                step(L + ".experts.bwd" + mb(m), experts(), true);
                expert_all_to_all(L + ".dispatch.a2a.bwd" + mb(m));
                step(L + ".router.bwd" + mb(m), router(), true);
            } else {
                step(L + ".mlp.bwd" + mb(m), mlp(), true);
                tp_all_reduce(L + ".mlp.tp.ar.bwd" + mb(m));
            }
            step(L + ".attn.bwd" + mb(m), attention(), true);
            tp_all_reduce(L + ".attn.tp.ar.bwd" + mb(m));
            if (final) sync_.gradients_ready(chain_, unit_of_layer(l));
        }
        if (first_) {
            step("embed.bwd" + mb(m), embedding(), true);
            if (final) sync_.gradients_ready(chain_, units_.front());
        } else {
            chain_.send("grad.send" + mb(m), -1, static_cast<int32_t>(2 * m + 1), x_.act_bytes());
        }
    }

    const GenerateOptions& o_;
    const RankLayout& layout_;
    const Shape x_;
    const int64_t stage_;
    const bool first_, last_;
    RankProgram program_;
    ProgramChain chain_;
    GradSync sync_;
    const std::vector<ParamUnit> units_;
};

}  // namespace

std::vector<ParamUnit> transformer_stage_params(const GenerateOptions& o, int64_t stage) {
    const Shape x = shape_of(o);
    std::vector<ParamUnit> units;
    if (stage == 0) {
        ParamUnit e{"embed", {}, false};
        add(e, x.vocab * x.h / x.t);  // vocabulary-parallel word embedding
        if (o.model == GenModel::Gpt) add(e, x.s * x.h);  // learned positions, whole on every rank
        units.push_back(std::move(e));
    }
    for (int64_t l = 0; l < o.layers_per_stage(); ++l) units.push_back(layer_params(o, x, stage * o.layers_per_stage() + l));
    if (stage == o.pp - 1) {
        ParamUnit head{"head", {}, false};
        if (o.model == GenModel::Gpt) {
            add(head, x.h), add(head, x.h);  // final layer norm
            // GPT ties the output layer to the word embedding; a last stage
            // other than the first keeps its own copy.
            if (o.pp > 1) add(head, x.vocab * x.h / x.t);
        } else {
            add(head, x.h);                    // final RMS norm
            add(head, x.vocab * x.h / x.t);    // output layer, untied
        }
        units.push_back(std::move(head));
    }
    return units;
}

std::vector<RankProgram> build_transformer_programs(const GenerateOptions& o, const RankLayout& layout, const ComputeCost& cost) {
    std::vector<RankProgram> programs;
    for (int64_t s = 0; s < o.pp; ++s) programs.push_back(StageBuilder(o, layout, cost, s).build());
    return programs;
}

}  // namespace mimic::compose

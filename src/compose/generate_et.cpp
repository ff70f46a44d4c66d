#include "compose/generate_et.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>
#include <tuple>
#include <utility>

#include "compose/aten_schemas.h"
#include "compose/generate_dlrm.h"
#include "compose/generate_et_builder.h"
#include "compose/generate_et_dlrm.h"
#include "compose/generate_et_ops.h"
#include "compose/generate_layout.h"
#include "support/error.h"
#include "support/json_writer.h"
#include "support/output.h"

namespace mimic::compose {
namespace {

using Shape = std::vector<int64_t>;

// The process groups of a rank's ET by name: the default "0", the tensor-
// and data-parallel groups (named by their communicator-group ids), and for
// a pipeline one group per pair of neighbouring stages and one per
// embedding pair (first and last stage), so that the replay, which meets
// each call's group before timing it, pairs a send with its receive.
struct EtGroups {
    std::map<std::string, std::vector<int64_t>> all;
    std::string name(const std::vector<int64_t>& members, const std::string& kind, int64_t world) {
        if (static_cast<int64_t>(members.size()) == world) return "0";
        std::string n = kind;
        for (int64_t m : members) n += "_" + std::to_string(m);
        all[n] = members;
        return n;
    }
};

// The groups of every rank, the same list on each (as every rank calls new_group for each).
EtGroups et_groups(const GenerateOptions& o, const RankLayout& layout) {
    EtGroups g;
    for (int64_t r = 0; r < o.ranks; ++r) {
        for (GenGroup k : {GenGroup::Tensor, GenGroup::Data})
            if (layout.group_size(k) > 1 && layout.group_id(k, r) != 0) g.all[std::to_string(layout.group_id(k, r))] = layout.group_members(k, r);
        if (layout.coords(r).stage + 1 < o.pp) g.name({r, layout.stage_peer(r, +1)}, "p2p", o.ranks);
        if (o.pp > 1 && layout.coords(r).stage == 0) g.name(layout.group_members(GenGroup::Embedding, r), "emb", o.ranks);
    }
    return g;
}

// Forward and backward of a GPT (Megatron layout: sequence-first tokens,
// tensor-parallel attention heads and MLP width, vocabulary-parallel
// embedding tied to the output layer), op by op as PyTorch's autograd runs
// them, for one rank.
class GptEt : public EtOpWriter {
    using Param = EtParam;

public:
    GptEt(const GenerateOptions& o, const RankLayout& layout, int64_t rank)
        : EtOpWriter(o, 1000 + rank), o_(o), rank_(rank), stage_(layout.coords(rank).stage), first_(stage_ == 0), last_(stage_ == o.pp - 1),
          s_(o.seq), bt_(o.micro_batch), h_(o.hidden), np_(o.heads / o.tp), hn_(o.head_dim()), hl_(o.hidden / o.tp), fl_(o.ffn / o.tp), vl_(o.padded_vocab() / o.tp), N_(o.seq * o.micro_batch) {
        const int64_t tp_id = layout.group_id(GenGroup::Tensor, rank), dp_id = layout.group_id(GenGroup::Data, rank);
        tp_group_ = o.tp > 1 ? std::to_string(tp_id) : "";
        dp_group_ = o.dp > 1 ? std::to_string(dp_id) : "";
        EtGroups names;
        if (!first_) prev_ = {layout.stage_peer(rank, -1), names.name({layout.stage_peer(rank, -1), rank}, "p2p", o.ranks)};
        if (!last_) next_ = {layout.stage_peer(rank, +1), names.name({rank, layout.stage_peer(rank, +1)}, "p2p", o.ranks)};
        if (o.pp > 1 && (first_ || last_)) emb_group_ = names.name(layout.group_members(GenGroup::Embedding, rank), "emb", o.ranks);
    }

    std::string build(std::vector<PyCall>& calls) {
        calls_ = &calls;
        make_params();
        if (o_.pp == 1) {
            // Gradient accumulation: each micro-batch's backward right after its forward.
            for (int64_t m = 0; m < o_.micro_batches; ++m) backward(forward(m), m);
        } else if (o_.schedule == GenSchedule::GPipe) {
            // GPipe: every forward, then every backward.
            std::vector<Activations> acts;
            for (int64_t m = 0; m < o_.micro_batches; ++m) acts.push_back(forward(m));
            for (int64_t m = 0; m < o_.micro_batches; ++m) backward(acts[static_cast<size_t>(m)], m);
        } else {
            // 1F1B, as the Chakra generator orders it: the stages before the
            // last run ahead by the forwards that fill the pipeline, then
            // alternate one forward and one backward, then drain.
            const int64_t m_count = o_.micro_batches;
            const int64_t warmup = std::min<int64_t>(o_.pp - 1 - stage_, m_count);
            std::vector<Activations> acts;
            for (int64_t m = 0; m < warmup; ++m) acts.push_back(forward(m));
            for (int64_t i = 0; i < m_count - warmup; ++i) {
                acts.push_back(forward(warmup + i));
                backward(acts[static_cast<size_t>(i)], i);
            }
            for (int64_t i = m_count - warmup; i < m_count; ++i) backward(acts[static_cast<size_t>(i)], i);
        }
        sum_tied_embedding();
        optimizer();
        return b_.finish();
    }

private:
    struct Layer {
        Param ln1w, ln1b, wq, bq, wk, bk, wv, bv, wo, bo, ln2w, ln2b, w1, b1, w2, b2;
    };
    struct LayerActs {
        EtTensor x, y1, mean1, rstd1, qt, kt, vt, probs, ctx2, x1, y2, mean2, rstd2, h1, g;
    };
    struct Activations {
        std::vector<LayerActs> layers;
        EtTensor xl, yf, meanf, rstdf, lsm, loss, total_weight;
    };


    // This stage's parameters: the embedding on the first, its layers, the
    // final norm and (a pipeline's) copy of the tied output layer on the last.
    void make_params() {
        if (first_) emb_ = P({vl_, h_}), pos_ = P({s_, 1, h_});
        if (last_ && !first_) head_ = P({vl_, h_});
        for (int64_t l = 0; l < o_.layers_per_stage(); ++l) {
            Layer L;
            L.ln1w = P({h_}), L.ln1b = P({h_});
            L.wq = P({h_, hl_}), L.bq = P({hl_}), L.wk = P({h_, hl_}), L.bk = P({hl_}), L.wv = P({h_, hl_}), L.bv = P({hl_});
            L.wo = P({hl_, h_}), L.bo = P({h_});
            L.ln2w = P({h_}), L.ln2b = P({h_});
            L.w1 = P({h_, fl_}), L.b1 = P({fl_}), L.w2 = P({fl_, h_}), L.b2 = P({h_});
            layers_.push_back(L);
        }
        if (last_) lnfw_ = P({h_}), lnfb_ = P({h_});
        ids_ = b_.tensor({N_}, "long int", 8);
        targets_ = b_.tensor({N_}, "long int", 8);
    }
    Param& output_layer() { return first_ ? emb_ : head_; }

    static std::vector<Param*> params_of(Layer& L) {
        return {&L.ln1w, &L.ln1b, &L.wq, &L.bq, &L.wk, &L.bk, &L.wv, &L.bv, &L.wo, &L.bo, &L.ln2w, &L.ln2b, &L.w1, &L.b1, &L.w2, &L.b2};
    }
    // Registration order, as model.parameters() lists them.
    std::vector<Param*> params() {
        std::vector<Param*> out;
        if (first_) out = {&emb_, &pos_};
        for (Layer& L : layers_)
            for (Param* p : params_of(L)) out.push_back(p);
        if (last_) {
            out.push_back(&lnfw_);
            out.push_back(&lnfb_);
            if (!first_) out.push_back(&head_);
        }
        return out;
    }
    void mark_final(const std::vector<Param*>& ps) {
        for (Param* p : ps) p->final = true;
    }

    struct Norm {
        EtTensor y, mean, rstd;
    };
    Norm layer_norm(const EtTensor& x, const Param& w, const Param& bias) {
        Norm n{T(x.shape), T({x.shape[0], 1}), T({x.shape[0], 1})};
        n.mean.dtype = n.rstd.dtype = dtype_;
        b_.op("aten::native_layer_norm", schema::native_layer_norm,
              {v(x), EtBuilder::v_ints({h_}), v(w.value), v(bias.value), EtBuilder::v_double(1e-5)}, {v(n.y), v(n.mean), v(n.rstd)});
        return n;
    }
    // Returns the input's gradient; accumulates the weight's and bias's.
    EtTensor layer_norm_backward(const EtTensor& g, const EtTensor& x, const Norm& n, Param& w, Param& bias) {
        const EtTensor gx = T(x.shape), gw = T({h_}), gb = T({h_});
        b_.op("aten::native_layer_norm_backward", schema::native_layer_norm_backward,
              {v(g), v(x), EtBuilder::v_ints({h_}), v(n.mean), v(n.rstd), v(w.value), v(bias.value), EtBuilder::v_bools({true, true, true})},
              {v(gx), v(gw), v(gb)});
        accumulate(w, gw);
        accumulate(bias, gb);
        return gx;
    }
    void tp_all_reduce(const EtTensor& x) {
        if (o_.tp > 1) all_reduce(x, tp_group_, false);
    }
    // Pipeline messages, one group per neighbouring pair (group ranks 0 and 1 by global rank).
    struct Peer {
        int64_t rank = -1;
        std::string group;
    };
    void p2p(bool send, const EtTensor& x, const Peer& peer, int64_t tag) {
        // In a pair's group the lower global rank is group rank 0.
        const int64_t group_rank = peer.group == "0" ? peer.rank : (peer.rank < rank_ ? 0 : 1);
        b_.op(send ? "c10d::send" : "c10d::recv_", send ? schema::send : schema::recv,
              {EtBuilder::v_tensors({x}), EtBuilder::v_object(), EtBuilder::v_int(group_rank), EtBuilder::v_int(tag)}, {EtBuilder::v_object()});
        // Sends are isends, as pipeline schedules post them
        // (batch_isend_irecv): a stage goes on computing while its message
        // waits for the peer's receive, so neighbours that send to each other
        // at once (1F1B's steady state) do not wait on each other.
        calls_->push_back({send ? "send" : "recv", peer.group, send, {}, {}});
    }

    // --- the model
    Activations forward(int64_t m) {
        Activations a;
        EtTensor x;
        if (first_) {
            EtTensor e = T({N_, h_});
            b_.op("aten::embedding", schema::embedding,
                  {v(emb_.value), v(ids_), EtBuilder::v_int(-1), EtBuilder::v_bool(false), EtBuilder::v_bool(false)}, {v(e)});
            tp_all_reduce(e);
            x = view(add(view(e, {s_, bt_, h_}), pos_.value), {N_, h_});
        } else {
            x = T({N_, h_});
            p2p(false, x, prev_, 2 * m);
        }
        for (Layer& L : layers_) {
            LayerActs A;
            A.x = x;
            const Norm n1 = layer_norm(x, L.ln1w, L.ln1b);
            A.y1 = n1.y, A.mean1 = n1.mean, A.rstd1 = n1.rstd;
            auto heads = [&](const Param& w, const Param& bias) { return transpose(view(addmm(bias.value, A.y1, w.value), {s_, bt_ * np_, hn_}), 0, 1); };
            A.qt = heads(L.wq, L.bq), A.kt = heads(L.wk, L.bk), A.vt = heads(L.wv, L.bv);
            const EtTensor scores = bmm(A.qt, transpose(A.kt, 1, 2));
            const EtTensor scaled = scale(scores, 1.0 / std::sqrt(static_cast<double>(hn_)));
            A.probs = T(scaled.shape);
            b_.op("aten::softmax", schema::softmax, {v(scaled), EtBuilder::v_int(-1), EtBuilder::v_none()}, {v(A.probs)});
            const EtTensor ctx = bmm(A.probs, A.vt);
            A.ctx2 = view(contiguous(transpose(ctx, 0, 1)), {N_, hl_});
            const EtTensor o = mm(A.ctx2, L.wo.value);
            tp_all_reduce(o);
            A.x1 = add(x, add_bias(o, L.bo.value));
            const Norm n2 = layer_norm(A.x1, L.ln2w, L.ln2b);
            A.y2 = n2.y, A.mean2 = n2.mean, A.rstd2 = n2.rstd;
            A.h1 = addmm(L.b1.value, A.y2, L.w1.value);
            A.g = T(A.h1.shape);
            b_.op("aten::gelu", schema::gelu, {v(A.h1), EtBuilder::v_string("none")}, {v(A.g)});
            const EtTensor h2 = mm(A.g, L.w2.value);
            tp_all_reduce(h2);
            x = add(A.x1, add_bias(h2, L.b2.value));
            a.layers.push_back(A);
        }
        a.xl = x;
        if (!last_) {
            p2p(true, x, next_, 2 * m);
            return a;
        }
        const Norm nf = layer_norm(x, lnfw_, lnfb_);
        a.yf = nf.y, a.meanf = nf.mean, a.rstdf = nf.rstd;
        const EtTensor logits = mm(a.yf, t(output_layer().value));
        a.lsm = T(logits.shape);
        b_.op("aten::_log_softmax", schema::log_softmax, {v(logits), EtBuilder::v_int(1), EtBuilder::v_bool(false)}, {v(a.lsm)});
        a.loss = T({}), a.total_weight = T({});
        b_.op("aten::nll_loss_forward", schema::nll_loss,
              {v(a.lsm), v(targets_), EtBuilder::v_none(), EtBuilder::v_int(1), EtBuilder::v_int(-100)}, {v(a.loss), v(a.total_weight)});
        return a;
    }

    void backward(const Activations& a, int64_t m) {
        const bool final_mb = m == o_.micro_batches - 1;  // gradients are complete after it
        EtTensor gx, g_emb_head;
        if (last_) {
            std::tie(gx, g_emb_head) = head_backward(a);
            if (final_mb) mark_final({&lnfw_, &lnfb_});
            if (!first_) {
                accumulate(head_, g_emb_head);
                if (final_mb) mark_final({&head_});
            }
        } else {
            gx = T({N_, h_});
            p2p(false, gx, next_, 2 * m + 1);
        }
        gx = layers_backward(a, gx, final_mb);
        if (!first_) {
            p2p(true, gx, prev_, 2 * m + 1);
            return;
        }
        embedding_backward(gx, g_emb_head, final_mb);
    }

    // Loss to the last layer's output; also the output layer's gradient.
    std::pair<EtTensor, EtTensor> head_backward(const Activations& a) {
        const EtTensor one = T({});
        b_.op("aten::ones_like", schema::ones_like,
              {v(a.loss), EtBuilder::v_none(), EtBuilder::v_none(), EtBuilder::v_none(), EtBuilder::v_none(), EtBuilder::v_none()}, {v(one)});
        const EtTensor g_lsm = T(a.lsm.shape);
        b_.op("aten::nll_loss_backward", schema::nll_loss_backward,
              {v(one), v(a.lsm), v(targets_), EtBuilder::v_none(), EtBuilder::v_int(1), EtBuilder::v_int(-100), v(a.total_weight)}, {v(g_lsm)});
        const EtTensor g_logits = T(a.lsm.shape);
        b_.op("aten::_log_softmax_backward_data", schema::log_softmax_backward,
              {v(g_lsm), v(a.lsm), EtBuilder::v_int(1), EtBuilder::v_int(scalar_type_)}, {v(g_logits)});
        const EtTensor g_yf = mm(g_logits, output_layer().value);
        const EtTensor g_emb_head = mm(t(g_logits), a.yf);
        return {layer_norm_backward(g_yf, a.xl, {a.yf, a.meanf, a.rstdf}, lnfw_, lnfb_), g_emb_head};
    }

    EtTensor layers_backward(const Activations& a, EtTensor gx, bool final_mb) {
        for (size_t li = layers_.size(); li-- > 0;) {
            Layer& L = layers_[li];
            const LayerActs& A = a.layers[li];
            // MLP
            accumulate(L.b2, sum0(gx));
            accumulate(L.w2, mm(t(A.g), gx));
            const EtTensor g_g = mm(gx, t(L.w2.value));
            const EtTensor g_h1 = T(A.h1.shape);
            b_.op("aten::gelu_backward", schema::gelu_backward, {v(g_g), v(A.h1), EtBuilder::v_string("none")}, {v(g_h1)});
            accumulate(L.w1, mm(t(A.y2), g_h1));
            accumulate(L.b1, sum0(g_h1));
            const EtTensor g_y2 = mm(g_h1, t(L.w1.value));
            tp_all_reduce(g_y2);
            const EtTensor g_x1 = add(gx, layer_norm_backward(g_y2, A.x1, {A.y2, A.mean2, A.rstd2}, L.ln2w, L.ln2b));
            // attention
            accumulate(L.bo, sum0(g_x1));
            accumulate(L.wo, mm(t(A.ctx2), g_x1));
            const EtTensor g_ctx = transpose(view(mm(g_x1, t(L.wo.value)), {s_, bt_ * np_, hn_}), 0, 1);
            const EtTensor g_probs = bmm(g_ctx, transpose(A.vt, 1, 2));
            const EtTensor g_vt = bmm(transpose(A.probs, 1, 2), g_ctx);
            const EtTensor g_scaled = T(g_probs.shape);
            b_.op("aten::_softmax_backward_data", schema::softmax_backward,
                  {v(g_probs), v(A.probs), EtBuilder::v_int(-1), EtBuilder::v_int(scalar_type_)}, {v(g_scaled)});
            const EtTensor g_scores = scale(g_scaled, 1.0 / std::sqrt(static_cast<double>(hn_)));
            const EtTensor g_qt = bmm(g_scores, A.kt);
            const EtTensor g_kt = bmm(transpose(g_scores, 1, 2), A.qt);
            const EtTensor y1t = t(A.y1);
            auto projection_backward = [&](const EtTensor& g_heads, Param& w, Param& bias) {
                const EtTensor g2 = view(contiguous(transpose(g_heads, 0, 1)), {N_, hl_});
                accumulate(w, mm(y1t, g2));
                accumulate(bias, sum0(g2));
                return mm(g2, t(w.value));
            };
            const EtTensor g_yq = projection_backward(g_qt, L.wq, L.bq);
            const EtTensor g_yk = projection_backward(g_kt, L.wk, L.bk);
            const EtTensor g_yv = projection_backward(g_vt, L.wv, L.bv);
            const EtTensor g_y1 = add(add(g_yq, g_yk), g_yv);
            tp_all_reduce(g_y1);
            gx = add(g_x1, layer_norm_backward(g_y1, A.x, {A.y1, A.mean1, A.rstd1}, L.ln1w, L.ln1b));
            if (final_mb) {
                mark_final(params_of(L));
                sync_ready();
            }
        }
        return gx;
    }

    // Positions (broadcast over the batch) and the word embedding, tied to the
    // output layer when one rank holds both.
    void embedding_backward(const EtTensor& gx, const EtTensor& g_emb_head, bool final_mb) {
        const EtTensor g_pos = T({s_, 1, h_});
        b_.op("aten::sum", schema::sum, {v(view(gx, {s_, bt_, h_})), EtBuilder::v_ints({1}), EtBuilder::v_bool(true), EtBuilder::v_none()},
              {v(g_pos)});
        accumulate(pos_, g_pos);
        const EtTensor g_emb = T({vl_, h_});
        b_.op("aten::embedding_dense_backward", schema::embedding_backward,
              {v(gx), v(ids_), EtBuilder::v_int(vl_), EtBuilder::v_int(-1), EtBuilder::v_bool(false)}, {v(g_emb)});
        accumulate(emb_, g_emb);
        if (last_) accumulate(emb_, g_emb_head);
        if (final_mb) mark_final({&emb_, &pos_});
    }

    // After the last backward: the buckets left, then (a pipeline's) sum of
    // the tied embedding's two copies over the embedding group, as Megatron.
    void sum_tied_embedding() {
        sync_ready();
        flush_bucket();
        if (!emb_group_.empty()) all_reduce(output_layer().grad, emb_group_, false);
    }

    // DDP: gradients in buckets of --bucket-mib, last-registered first, each
    // flattened into one buffer (as the reducer copies them into its bucket
    // view) and all-reduced asynchronously over the data-parallel group.
    void sync_ready() {
        if (o_.dp == 1) return;
        // Parameters in reverse registration order, up to the first whose gradient is not final.
        const std::vector<Param*> order = params();
        while (next_param_ < order.size()) {
            Param* p = order[order.size() - 1 - next_param_];
            if (!p->final) break;
            bucket_.push_back(view(p->grad, {p->grad.numel()}));
            bucket_bytes_ += static_cast<uint64_t>(p->grad.numel() * item_);
            ++next_param_;
            if (bucket_bytes_ >= static_cast<uint64_t>(o_.bucket_mib * 1024 * 1024)) flush_bucket();
        }
    }
    void flush_bucket() {
        if (bucket_.empty()) return;
        int64_t n = 0;
        for (const EtTensor& g : bucket_) n += g.numel();
        const EtTensor flat = T({n});
        b_.op("aten::cat", schema::cat, {EtBuilder::v_tensors(bucket_), EtBuilder::v_int(0)}, {v(flat)});
        all_reduce(flat, dp_group_, true);
        bucket_.clear();
        bucket_bytes_ = 0;
    }

    // SGD: one in-place update per parameter.
    void optimizer() {
        for (Param* p : params())
            b_.op("aten::add_", schema::add_, {v(p->value), v(p->grad), EtBuilder::v_double(-0.01)}, {v(p->value)});
    }

    const GenerateOptions& o_;
    const int64_t rank_, stage_;
    const bool first_, last_;
    Peer prev_, next_;
    std::string emb_group_;  // first and last stage of a pipeline
    const int64_t s_, bt_, h_, np_, hn_, hl_, fl_, vl_, N_;
    std::string tp_group_, dp_group_;
    Param emb_, pos_, lnfw_, lnfb_, head_;
    EtTensor ids_, targets_;
    std::vector<Layer> layers_;
    size_t next_param_ = 0;
    std::vector<EtTensor> bucket_;
    uint64_t bucket_bytes_ = 0;
};

// meta.json as mimic's recorder writes it: the rank, the world, every
// process group (et_groups) and the Python-level calls with their group.
std::string meta_json(const GenerateOptions& o, const EtGroups& groups, int64_t rank, const std::vector<PyCall>& calls) {
    JsonWriter j;
    j.begin_object();
    j.field("rank", static_cast<long long>(rank)).field("world_size", static_cast<long long>(o.ranks)).field("backend", "gloo");
    j.field("workload", std::string("mimic generate ") + gen_model_name(o.model));
    j.key("process_groups").begin_array();
    j.begin_object().field("pg_name", "0").field("backend", "gloo").field("created_by", "init_process_group");
    j.field("group_size", static_cast<long long>(o.ranks)).key("ranks").begin_array();
    for (int64_t r = 0; r < o.ranks; ++r) j.value(static_cast<long long>(r));
    j.end_array().end_object();
    for (const auto& [name, members] : groups.all) {
        j.begin_object().field("pg_name", name).field("backend", "gloo").field("created_by", "new_group");
        j.field("group_size", static_cast<long long>(members.size())).key("ranks").begin_array();
        for (int64_t m : members) j.value(static_cast<long long>(m));
        j.end_array().end_object();
    }
    j.end_array();
    j.key("python_collectives").begin_array();
    for (const PyCall& c : calls) {
        j.begin_object().field("op", c.op).field("pg_name", c.pg_name).field("async_op", c.async_op);
        if (!c.input_splits.empty()) {
            j.key("input_split_sizes").begin_array();
            for (int64_t n : c.input_splits) j.value(static_cast<long long>(n));
            j.end_array().key("output_split_sizes").begin_array();
            for (int64_t n : c.output_splits) j.value(static_cast<long long>(n));
            j.end_array();
        }
        j.end_object();
    }
    j.end_array();
    j.end_object();
    return j.str() + "\n";
}

}  // namespace

EtGenerateResult write_generated_et(const GenerateOptions& o, const std::string& prefix) {
    if (o.model != GenModel::Gpt && o.model != GenModel::Dlrm) fail({"--format", -1, -1, ""}, "et is generated for gpt and dlrm; other models as Chakra");
    if (o.model == GenModel::Dlrm)
        for (int64_t r = 0; r < o.ranks; ++r)
            if (dlrm_local_tables(o, r) == 0)
                fail({"--shard-tables", -1, -1, ""}, "rank " + std::to_string(r) + " holds no table; --format et needs every rank to hold one");
    if (o.sharding != GenSharding::None) fail({o.sharding == GenSharding::Zero ? "--zero" : "--fsdp", -1, -1, ""}, "--format et synchronises gradients as DDP only");
    if (o.ranks > 64) fail({"--ranks", -1, -1, ""}, "--format et is for replays on one machine: at most 64 ranks");
    const RankLayout layout(o);
    const EtGroups groups = et_groups(o, layout);
    EtGenerateResult result;
    size_t ops = 0, calls = 0;
    JsonWriter j;
    j.begin_object().field("model", gen_model_name(o.model)).field("format", "et").field("ranks", static_cast<long long>(o.ranks));
    j.field("directory", prefix).key("files").begin_array();
    for (int64_t r = 0; r < o.ranks; ++r) {
        std::vector<PyCall> py;
        std::string doc;
        if (o.model == GenModel::Dlrm) {
            doc = build_dlrm_et(o, r, py, ops);
        } else {
            GptEt et(o, layout, r);
            doc = et.build(py);
            ops = et.ops();
        }
        const std::string dir = prefix + "/rank" + std::to_string(r);
        std::error_code ec;
        std::filesystem::create_directories(dir, ec);
        if (ec) fail({dir, -1, -1, ""}, "cannot create the directory: " + ec.message());
        write_output(dir + "/et.json", doc);
        write_output(dir + "/meta.json", meta_json(o, groups, r, py));
        calls = py.size();
        j.value(dir + "/et.json");
    }
    j.end_array();
    j.field("ops_per_rank", static_cast<unsigned long long>(ops)).field("collectives_per_rank", static_cast<unsigned long long>(calls));
    j.end_object();
    result.json = j.str() + "\n";
    char line[512];
    std::snprintf(line, sizeof line, "%s on %lld ranks (dp %lld x tp %lld x pp %lld) as PyTorch ETs: %s/rank<r>/et.json, %zu ops and %zu communication calls on the last rank\n",
                  gen_model_name(o.model), static_cast<long long>(o.ranks), static_cast<long long>(o.dp), static_cast<long long>(o.tp), static_cast<long long>(o.pp),
                  prefix.c_str(), ops, calls);
    result.table = line;
    return result;
}

}  // namespace mimic::compose

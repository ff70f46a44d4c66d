#include "compose/generate_et_dlrm.h"

#include <utility>

#include "compose/aten_schemas.h"
#include "compose/generate_dlrm.h"

namespace mimic::compose {
namespace {

using Shape = std::vector<int64_t>;

struct Table {
    DlrmTable spec;
    EtParam weight;
    EtTensor indices, offsets;
    EtTensor pooled, offset2bag, bag_size, max_indices;  // embedding_bag's outputs
};

// One Linear layer as [in, out] weight (addmm(bias, x, w)), its input and,
// with a ReLU after it, the ReLU's output.
struct Layer {
    EtParam w, b;
    EtTensor in, out;
    bool relu = true;
};

class DlrmEt : public EtOpWriter {
public:
    DlrmEt(const GenerateOptions& o, int64_t rank)
        : EtOpWriter(o, 1000 + rank), o_(o), rank_(rank), B_(o.micro_batch), W_(o.ranks), D_(o.emb_dim),
          T_(o.tables), F_(o.tables + 1), P_(F_ * (F_ - 1) / 2) {
        for (int64_t r = 0; r < W_; ++r) per_rank_.push_back(dlrm_local_tables(o, r));
    }

    std::string build(std::vector<PyCall>& calls) {
        calls_ = &calls;
        make_params();
        forward();
        backward();
        sync_dense_gradients();
        optimizer();
        return b_.finish();
    }

private:
    EtTensor longs(Shape s) { return b_.tensor(std::move(s), "long int", 8); }

    void make_params() {
        for (const DlrmTable& t : dlrm_rank_tables(o_, rank_)) {
            Table tb;
            tb.spec = t;
            tb.weight = P({t.rows, D_});
            tb.indices = longs({B_ * W_ * t.pooling});
            tb.offsets = longs({B_ * W_});
            tables_.push_back(tb);
        }
        auto mlp = [&](int64_t in, const std::vector<int64_t>& widths, bool last_relu) {
            std::vector<Layer> layers;
            for (size_t i = 0; i < widths.size(); ++i) {
                Layer l;
                l.w = P({i ? widths[i - 1] : in, widths[i]});
                l.b = P({widths[i]});
                l.relu = i + 1 < widths.size() || last_relu;
                layers.push_back(l);
            }
            return layers;
        };
        bottom_ = mlp(o_.dense_features, o_.bottom_mlp, true);  // its output joins the embeddings
        top_ = mlp(D_ + P_, o_.top_mlp, false);                  // the last layer gives the logit
        dense_ = T({B_, o_.dense_features});
        labels_ = T({B_});
    }

    EtTensor mlp_forward(std::vector<Layer>& layers, EtTensor x) {
        for (Layer& l : layers) {
            l.in = x;
            x = addmm(l.b.value, x, l.w.value);
            if (l.relu) {
                const EtTensor y = T(x.shape);
                b_.op("aten::relu", schema::relu, {v(x)}, {v(y)});
                x = y;
            }
            l.out = x;
        }
        return x;
    }

    // Returns the gradient of the MLP's input (none for the dense features, `need_input` false).
    EtTensor mlp_backward(std::vector<Layer>& layers, EtTensor g, bool need_input) {
        for (size_t i = layers.size(); i-- > 0;) {
            Layer& l = layers[i];
            if (l.relu) {
                const EtTensor gh = T(g.shape);
                b_.op("aten::threshold_backward", schema::threshold_backward, {v(g), v(l.out), EtBuilder::v_int(0)}, {v(gh)});
                g = gh;
            }
            accumulate(l.w, mm(t(l.in), g));
            accumulate(l.b, sum0(g));
            if (i > 0 || need_input) g = mm(g, t(l.w.value));
        }
        return g;
    }

    // The pooled vectors of this rank's tables for every rank's samples go
    // out; every table's vectors for this rank's samples come back.
    EtTensor all_to_all(const EtTensor& send, int64_t received_elems, std::vector<int64_t> in_splits, std::vector<int64_t> out_splits) {
        const EtTensor recv = T({received_elems});
        b_.op("aten::new_empty", schema::new_empty,
              {v(send), EtBuilder::v_ints({received_elems}), EtBuilder::v_int(scalar_type_), EtBuilder::v_int(0), EtBuilder::v_string("cpu"),
               EtBuilder::v_bool(false)},
              {v(recv)});
        // all_to_all_single bypasses the dispatcher in torch 1.13: the ET
        // shows only Gloo's label with the input; the splits are in meta.json.
        b_.op("gloo:all_to_all", "", {v(send)}, {});
        calls_->push_back({"all_to_all_single", "0", false, std::move(in_splits), std::move(out_splits)});
        return recv;
    }

    void forward() {
        const int64_t L = static_cast<int64_t>(tables_.size());
        std::vector<EtTensor> pooled;
        for (Table& tb : tables_) {
            tb.pooled = T({B_ * W_, D_});
            tb.offset2bag = longs({0});
            tb.bag_size = longs({B_ * W_});
            tb.max_indices = longs({B_ * W_});
            b_.op("aten::embedding_bag", schema::embedding_bag,
                  {v(tb.weight.value), v(tb.indices), v(tb.offsets), EtBuilder::v_bool(false), EtBuilder::v_int(0), EtBuilder::v_bool(false),
                   EtBuilder::v_none(), EtBuilder::v_bool(false), EtBuilder::v_none()},
                  {v(tb.pooled), v(tb.offset2bag), v(tb.bag_size), v(tb.max_indices)});
            pooled.push_back(tb.pooled);
        }
        const EtTensor stacked = T({B_ * W_, L, D_});
        b_.op("aten::stack", schema::stack, {EtBuilder::v_tensors(pooled), EtBuilder::v_int(1)}, {v(stacked)});
        // Rank-major: rank r's samples are rows r*B..(r+1)*B of every table.
        const EtTensor send = view(stacked, {B_ * W_ * L * D_});
        std::vector<int64_t> in_splits(static_cast<size_t>(W_), B_ * L * D_), out_splits;
        for (int64_t n : per_rank_) out_splits.push_back(B_ * n * D_);
        recv_ = all_to_all(send, B_ * T_ * D_, in_splits, out_splits);
        a2a_in_splits_ = in_splits, a2a_out_splits_ = out_splits;

        std::vector<EtTensor> parts, shaped;
        int64_t offset = 0;
        for (int64_t n : out_splits) {
            parts.push_back(b_.alias(recv_, {n}, offset));
            offset += n;
        }
        b_.op("aten::split_with_sizes", schema::split_with_sizes, {v(recv_), EtBuilder::v_ints(out_splits), EtBuilder::v_int(0)},
              {EtBuilder::v_tensors(parts)});
        for (size_t r = 0; r < parts.size(); ++r) shaped.push_back(view(parts[r], {B_, per_rank_[r], D_}));
        const EtTensor gathered = T({B_, T_, D_});
        b_.op("aten::cat", schema::cat, {EtBuilder::v_tensors(shaped), EtBuilder::v_int(1)}, {v(gathered)});

        bottom_out_ = mlp_forward(bottom_, dense_);
        // Interaction: every pair of the F = tables + 1 vectors, dotted.
        const EtTensor z0 = view(bottom_out_, {B_, 1, D_});
        Z_ = T({B_, F_, D_});
        b_.op("aten::cat", schema::cat, {EtBuilder::v_tensors({z0, gathered}), EtBuilder::v_int(1)}, {v(Z_)});
        Zt_ = transpose(Z_, 1, 2);
        const EtTensor zz = bmm(Z_, Zt_);
        const EtTensor tri = longs({2, P_});
        b_.op("aten::tril_indices", schema::tril_indices,
              {EtBuilder::v_int(F_), EtBuilder::v_int(F_), EtBuilder::v_int(-1), EtBuilder::v_int(4), EtBuilder::v_none(), EtBuilder::v_string("cpu"),
               EtBuilder::v_bool(false)},
              {v(tri)});
        li_ = b_.alias(tri, {P_}), lj_ = b_.alias(tri, {P_}, P_);
        b_.op("aten::unbind", schema::unbind, {v(tri), EtBuilder::v_int(0)}, {EtBuilder::v_tensors({li_, lj_})});
        const EtTensor pairs = T({B_, P_});
        b_.op("aten::index", schema::index, {v(zz), EtBuilder::v_optional_tensors(1, {li_, lj_})}, {v(pairs)});
        const EtTensor top_in = T({B_, D_ + P_});
        b_.op("aten::cat", schema::cat, {EtBuilder::v_tensors({bottom_out_, pairs}), EtBuilder::v_int(1)}, {v(top_in)});
        logit_ = view(mlp_forward(top_, top_in), {B_});
        loss_ = T({});
        b_.op("aten::binary_cross_entropy_with_logits", schema::bce_with_logits,
              {v(logit_), v(labels_), EtBuilder::v_none(), EtBuilder::v_none(), EtBuilder::v_int(1)}, {v(loss_)});
    }

    void backward() {
        // BCE with logits, mean: (sigmoid(x) - y) * grad / B, as autograd computes it in place.
        const EtTensor one = T({});
        b_.op("aten::ones_like", schema::ones_like,
              {v(loss_), EtBuilder::v_none(), EtBuilder::v_none(), EtBuilder::v_none(), EtBuilder::v_none(), EtBuilder::v_none()}, {v(one)});
        const EtTensor g = T({B_});
        b_.op("aten::sigmoid", schema::sigmoid, {v(logit_)}, {v(g)});
        b_.op("aten::sub_", schema::sub_, {v(g), v(labels_), EtBuilder::v_int(1)}, {v(g)});
        b_.op("aten::mul_", schema::mul_, {v(g), v(one)}, {v(g)});
        b_.op("aten::div_", schema::div_scalar_, {v(g), EtBuilder::v_int(B_)}, {v(g)});
        const EtTensor g_top_in = mlp_backward(top_, view(g, {B_, 1}), true);

        // The top MLP's input: the bottom MLP's output and the pairs.
        const EtTensor g_dense = narrow(g_top_in, 1, 0, D_);
        const EtTensor g_pairs = narrow(g_top_in, 1, D_, P_);
        const EtTensor g_zz = T({B_, F_, F_});
        b_.op("aten::new_zeros", schema::new_zeros,
              {v(g_pairs), EtBuilder::v_ints(g_zz.shape), EtBuilder::v_int(scalar_type_), EtBuilder::v_int(0), EtBuilder::v_string("cpu"),
               EtBuilder::v_none()},
              {v(g_zz)});
        b_.op("aten::_index_put_impl_", schema::index_put_impl_,
              {v(g_zz), EtBuilder::v_optional_tensors(1, {li_, lj_}), v(g_pairs), EtBuilder::v_bool(true), EtBuilder::v_bool(true)}, {v(g_zz)});
        // zz = Z Zt: both factors are Z.
        const EtTensor g_z1 = bmm(g_zz, transpose(Zt_, 1, 2));
        const EtTensor g_zt = bmm(transpose(Z_, 1, 2), g_zz);
        const EtTensor g_z = add(g_z1, transpose(g_zt, 1, 2));
        const EtTensor g_z0 = view(narrow(g_z, 1, 0, 1), {B_, D_});
        const EtTensor g_gathered = narrow(g_z, 1, 1, T_);

        // Autograd reaches the bottom MLP (later in the forward) before the exchange.
        mlp_backward(bottom_, add(g_dense, g_z0), false);

        // The exchange backwards: each source rank's tables, flattened in rank order, sent back.
        std::vector<EtTensor> flat;
        int64_t first = 0;
        for (int64_t n : per_rank_) {
            flat.push_back(view(contiguous(narrow(g_gathered, 1, first, n)), {B_ * n * D_}));
            first += n;
        }
        const EtTensor g_recv = T({B_ * T_ * D_});
        b_.op("aten::cat", schema::cat, {EtBuilder::v_tensors(flat), EtBuilder::v_int(0)}, {v(g_recv)});
        const int64_t L = static_cast<int64_t>(tables_.size());
        const EtTensor g_send = all_to_all(g_recv, B_ * W_ * L * D_, a2a_out_splits_, a2a_in_splits_);
        const EtTensor g_stacked = view(g_send, {B_ * W_, L, D_});
        std::vector<EtTensor> g_pooled;
        for (int64_t k = 0; k < L; ++k) g_pooled.push_back(b_.alias(g_stacked, {B_ * W_, D_}, k * D_));
        b_.op("aten::unbind", schema::unbind, {v(g_stacked), EtBuilder::v_int(1)}, {EtBuilder::v_tensors(g_pooled)});
        for (size_t k = 0; k < tables_.size(); ++k) {
            Table& tb = tables_[k];
            const EtTensor gw = T({tb.spec.rows, D_});
            b_.op("aten::_embedding_bag_backward", schema::embedding_bag_backward,
                  {v(g_pooled[k]), v(tb.indices), v(tb.offsets), v(tb.offset2bag), v(tb.bag_size), v(tb.max_indices),
                   EtBuilder::v_int(tb.spec.rows), EtBuilder::v_bool(false), EtBuilder::v_int(0), EtBuilder::v_bool(false), EtBuilder::v_none(),
                   EtBuilder::v_int(-1)},
                  {v(gw)});
            accumulate(tb.weight, gw);
        }
    }

    EtTensor narrow(const EtTensor& x, int64_t dim, int64_t start, int64_t length) {
        Shape s = x.shape;
        s[static_cast<size_t>(dim)] = length;
        int64_t stride = 1;
        for (size_t d = static_cast<size_t>(dim) + 1; d < x.shape.size(); ++d) stride *= x.shape[d];
        const EtTensor out = b_.alias(x, s, start * stride);
        b_.op("aten::narrow", schema::narrow, {v(x), EtBuilder::v_int(dim), EtBuilder::v_int(start), EtBuilder::v_int(length)}, {v(out)});
        return out;
    }

    std::vector<EtParam*> dense_params() {
        std::vector<EtParam*> out;
        for (std::vector<Layer>* mlp : {&bottom_, &top_})
            for (Layer& l : *mlp) out.push_back(&l.w), out.push_back(&l.b);
        return out;
    }

    // The MLPs' gradients, flattened, all-reduced over every rank, averaged and copied back.
    void sync_dense_gradients() {
        if (W_ == 1) return;
        std::vector<EtTensor> grads;
        for (EtParam* p : dense_params()) grads.push_back(view(p->grad, {p->grad.numel()}));
        int64_t n = 0;
        for (const EtTensor& g : grads) n += g.numel();
        const EtTensor flat = T({n});
        b_.op("aten::cat", schema::cat, {EtBuilder::v_tensors(grads), EtBuilder::v_int(0)}, {v(flat)});
        all_reduce(flat, "0", false);
        b_.op("aten::div_", schema::div_scalar_, {v(flat), EtBuilder::v_int(W_)}, {v(flat)});
        int64_t start = 0;
        for (EtParam* p : dense_params()) {
            const int64_t k = p->grad.numel();
            const EtTensor piece = b_.alias(flat, {k}, start);
            b_.op("aten::slice", schema::slice,
                  {v(flat), EtBuilder::v_int(0), EtBuilder::v_int(start), EtBuilder::v_int(start + k), EtBuilder::v_int(1)}, {v(piece)});
            const EtTensor shaped = view(piece, p->grad.shape);
            b_.op("aten::copy_", schema::copy_, {v(p->grad), v(shaped), EtBuilder::v_bool(false)}, {v(p->grad)});
            start += k;
        }
    }

    // SGD on every parameter, the tables' dense gradients included.
    void optimizer() {
        std::vector<EtParam*> all = dense_params();
        for (Table& tb : tables_) all.push_back(&tb.weight);
        for (EtParam* p : all) b_.op("aten::add_", schema::add_, {v(p->value), v(p->grad), EtBuilder::v_double(-0.01)}, {v(p->value)});
    }

    const GenerateOptions& o_;
    const int64_t rank_, B_, W_, D_, T_, F_, P_;
    std::vector<int64_t> per_rank_;  // tables each rank holds: the layout pooled vectors arrive in
    std::vector<Table> tables_;
    std::vector<Layer> bottom_, top_;
    EtTensor dense_, labels_, recv_, bottom_out_, Z_, Zt_, li_, lj_, logit_, loss_;
    std::vector<int64_t> a2a_in_splits_, a2a_out_splits_;
};

}  // namespace

std::string build_dlrm_et(const GenerateOptions& o, int64_t rank, std::vector<PyCall>& calls, size_t& ops) {
    DlrmEt et(o, rank);
    std::string doc = et.build(calls);
    ops = et.ops();
    return doc;
}

}  // namespace mimic::compose

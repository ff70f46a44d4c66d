#include "compose/calibration_sweep.h"

#include <fstream>
#include <vector>

#include "compose/aten_schemas.h"
#include "compose/generate_et_builder.h"
#include "model/op_family.h"
#include "support/error.h"

namespace mimic::compose {
namespace {



constexpr double kMaxFlops = 1.2e9;  // about 25 ms at this class of machine's single-core GEMM rate

class Sweep {
public:
    explicit Sweep(bool quick) : quick_(quick) {}

    SweepStats build(const std::string& path) {
        gemm();
        conv();
        embedding();
        norms();
        softmax_and_losses();
        elementwise_and_reductions();
        optimizer_and_copies();
        std::ofstream out(path, std::ios::binary);
        if (!out) fail({path, -1, -1, ""}, "cannot write the calibration sweep");
        out << b_.finish();
        if (!out.flush()) fail({path, -1, -1, ""}, "cannot write the calibration sweep");
        return stats_;
    }

private:
    EtTensor f(std::vector<int64_t> shape) { return b_.tensor(std::move(shape), "float", 4); }
    EtTensor l(std::vector<int64_t> shape) { return b_.tensor(std::move(shape), "long int", 8); }

    void call(const std::string& name, const char* schema, const std::vector<EtValue>& in, const std::vector<EtValue>& out) {
        b_.op(name, schema, in, out);
        ++stats_.ops;
        ++stats_.ops_per_family[model::family_name(model::family_of(name))];
    }

    // Sizes from a grid: the quick sweep keeps every other point, ends included.
    std::vector<int64_t> grid(std::vector<int64_t> full) const {
        if (!quick_ || full.size() <= 2) return full;
        std::vector<int64_t> out;
        for (size_t i = 0; i < full.size(); i += 2) out.push_back(full[i]);
        if (out.back() != full.back()) out.push_back(full.back());
        return out;
    }

    void gemm() {
        for (int64_t m : grid({16, 64, 256, 1024}))
            for (int64_t k : grid({32, 128, 512, 2048}))
                for (int64_t n : grid({32, 128, 512, 2048})) {
                    if (2.0 * m * k * n > kMaxFlops) continue;
                    call("aten::linear", schema::linear, {EtBuilder::v(f({m, k})), EtBuilder::v(f({n, k})), EtBuilder::v(f({n}))},
                         {EtBuilder::v(f({m, n}))});
                    call("aten::mm", schema::mm, {EtBuilder::v(f({m, k})), EtBuilder::v(f({k, n}))}, {EtBuilder::v(f({m, n}))});
                }
        for (int64_t batch : grid({4, 16, 64}))
            for (int64_t m : grid({32, 128, 512}))
                for (int64_t k : grid({16, 64, 256})) {
                    if (2.0 * batch * m * k * m > kMaxFlops) continue;
                    call("aten::bmm", schema::bmm, {EtBuilder::v(f({batch, m, k})), EtBuilder::v(f({batch, k, m}))},
                         {EtBuilder::v(f({batch, m, m}))});
                }
    }

    void conv() {
        for (int64_t n : grid({4, 16}))
            for (int64_t c : grid({3, 16, 64}))
                for (int64_t co : grid({16, 64}))
                    for (int64_t hw : grid({8, 16, 32}))
                        for (int64_t k : {1, 3}) {
                            const double flops = 2.0 * n * c * co * k * k * hw * hw;
                            if (3 * flops > kMaxFlops) continue;  // backward does twice the forward's work
                            const int64_t pad = k / 2;
                            const EtTensor x = f({n, c, hw, hw}), w = f({co, c, k, k}), y = f({n, co, hw, hw});
                            call("aten::conv2d", schema::conv2d,
                                 {EtBuilder::v(x), EtBuilder::v(w), EtBuilder::v(f({co})), EtBuilder::v_ints({1, 1}),
                                  EtBuilder::v_ints({pad, pad}), EtBuilder::v_ints({1, 1}), EtBuilder::v_int(1)},
                                 {EtBuilder::v(y)});
                            call("aten::convolution_backward", schema::conv_backward,
                                 {EtBuilder::v(f({n, co, hw, hw})), EtBuilder::v(f({n, c, hw, hw})), EtBuilder::v(f({co, c, k, k})),
                                  EtBuilder::v_ints({co}), EtBuilder::v_ints({1, 1}), EtBuilder::v_ints({pad, pad}),
                                  EtBuilder::v_ints({1, 1}), EtBuilder::v_bool(false), EtBuilder::v_ints({0, 0}), EtBuilder::v_int(1),
                                  EtBuilder::v_bools({c != 3, true, true})},
                                 {EtBuilder::v(f({n, c, hw, hw})), EtBuilder::v(f({co, c, k, k})), EtBuilder::v(f({co}))});
                        }
    }

    void embedding() {
        for (int64_t rows : grid({1000, 100000}))
            for (int64_t dim : grid({16, 64, 256}))
                for (int64_t lookups : grid({256, 4096, 32768})) {
                    call("aten::embedding", schema::embedding,
                         {EtBuilder::v(f({rows, dim})), EtBuilder::v(l({lookups})), EtBuilder::v_int(-1), EtBuilder::v_bool(false),
                          EtBuilder::v_bool(false)},
                         {EtBuilder::v(f({lookups, dim}))});
                    const int64_t bags = lookups / 16;
                    call("aten::embedding_bag", schema::embedding_bag,
                         {EtBuilder::v(f({rows, dim})), EtBuilder::v(l({lookups})), EtBuilder::v(l({bags})), EtBuilder::v_bool(false),
                          EtBuilder::v_int(0), EtBuilder::v_bool(false), EtBuilder::v_none(), EtBuilder::v_bool(false),
                          EtBuilder::v_none()},
                         {EtBuilder::v(f({bags, dim})), EtBuilder::v(l({lookups})), EtBuilder::v(l({bags})), EtBuilder::v(l({bags}))});
                }
    }

    void norms() {
        for (int64_t rows : grid({64, 512, 4096}))
            for (int64_t dim : grid({64, 256, 1024})) {
                call("aten::layer_norm", schema::layer_norm,
                     {EtBuilder::v(f({rows, dim})), EtBuilder::v_ints({dim}), EtBuilder::v(f({dim})), EtBuilder::v(f({dim})),
                      EtBuilder::v_double(1e-5), EtBuilder::v_bool(true)},
                     {EtBuilder::v(f({rows, dim}))});
                call("aten::native_layer_norm_backward", schema::native_layer_norm_backward,
                     {EtBuilder::v(f({rows, dim})), EtBuilder::v(f({rows, dim})), EtBuilder::v_ints({dim}), EtBuilder::v(f({rows, 1})),
                      EtBuilder::v(f({rows, 1})), EtBuilder::v(f({dim})), EtBuilder::v(f({dim})), EtBuilder::v_bools({true, true, true})},
                     {EtBuilder::v(f({rows, dim})), EtBuilder::v(f({dim})), EtBuilder::v(f({dim}))});
            }
        for (int64_t n : grid({4, 16, 64}))
            for (int64_t c : grid({16, 64}))
                for (int64_t hw : grid({8, 32})) {
                    call("aten::batch_norm", schema::batch_norm,
                         {EtBuilder::v(f({n, c, hw, hw})), EtBuilder::v(f({c})), EtBuilder::v(f({c})), EtBuilder::v(f({c})),
                          EtBuilder::v(f({c})), EtBuilder::v_bool(true), EtBuilder::v_double(0.1), EtBuilder::v_double(1e-5),
                          EtBuilder::v_bool(true)},
                         {EtBuilder::v(f({n, c, hw, hw}))});
                }
    }

    void softmax_and_losses() {
        for (int64_t rows : grid({64, 512, 4096}))
            for (int64_t dim : grid({16, 128, 1024})) {
                call("aten::softmax", schema::softmax, {EtBuilder::v(f({rows, dim})), EtBuilder::v_int(-1), EtBuilder::v_none()},
                     {EtBuilder::v(f({rows, dim}))});
                call("aten::_softmax_backward_data", schema::softmax_backward,
                     {EtBuilder::v(f({rows, dim})), EtBuilder::v(f({rows, dim})), EtBuilder::v_int(-1), EtBuilder::v_int(6)},
                     {EtBuilder::v(f({rows, dim}))});
                call("aten::cross_entropy_loss", schema::cross_entropy,
                     {EtBuilder::v(f({rows, dim})), EtBuilder::v(l({rows})), EtBuilder::v_none(), EtBuilder::v_int(1),
                      EtBuilder::v_int(-100), EtBuilder::v_double(0.0)},
                     {EtBuilder::v(f({}))});
            }
    }

    std::vector<int64_t> sizes() const { return grid({1 << 8, 1 << 12, 1 << 15, 1 << 18, 1 << 21, 1 << 23}); }

    void elementwise_and_reductions() {
        for (int64_t n : sizes()) {
            const std::vector<int64_t> shape = {n / 256 > 0 ? n / 256 : 1, 256};
            call("aten::relu", schema::relu, {EtBuilder::v(f(shape))}, {EtBuilder::v(f(shape))});
            call("aten::sigmoid", schema::sigmoid, {EtBuilder::v(f(shape))}, {EtBuilder::v(f(shape))});
            call("aten::gelu", schema::gelu, {EtBuilder::v(f(shape)), EtBuilder::v_string("none")}, {EtBuilder::v(f(shape))});
            call("aten::add", schema::add, {EtBuilder::v(f(shape)), EtBuilder::v(f(shape)), EtBuilder::v_int(1)},
                 {EtBuilder::v(f(shape))});
            call("aten::mul", schema::mul, {EtBuilder::v(f(shape)), EtBuilder::v(f(shape))}, {EtBuilder::v(f(shape))});
            call("aten::threshold_backward", schema::threshold_backward,
                 {EtBuilder::v(f(shape)), EtBuilder::v(f(shape)), EtBuilder::v_int(0)}, {EtBuilder::v(f(shape))});
            call("aten::sum", schema::sum, {EtBuilder::v(f(shape)), EtBuilder::v_ints({0}), EtBuilder::v_bool(false), EtBuilder::v_none()},
                 {EtBuilder::v(f({256}))});
        }
    }

    void optimizer_and_copies() {
        for (int64_t n : sizes()) {
            const std::vector<int64_t> shape = {n / 256 > 0 ? n / 256 : 1, 256};
            const EtTensor p = f(shape);
            call("aten::add_", schema::add_, {EtBuilder::v(p), EtBuilder::v(f(shape)), EtBuilder::v_int(1)}, {EtBuilder::v(p)});
            const EtTensor q = f(shape);
            call("aten::addcdiv_", schema::addcdiv_, {EtBuilder::v(q), EtBuilder::v(f(shape)), EtBuilder::v(f(shape)), EtBuilder::v_double(-1e-3)},
                 {EtBuilder::v(q)});
            const EtTensor r = f(shape);
            call("aten::addcmul_", schema::addcmul_, {EtBuilder::v(r), EtBuilder::v(f(shape)), EtBuilder::v(f(shape)), EtBuilder::v_double(1e-3)},
                 {EtBuilder::v(r)});
            call("aten::sqrt", schema::sqrt, {EtBuilder::v(f(shape))}, {EtBuilder::v(f(shape))});
            const EtTensor z = f(shape);
            call("aten::zero_", schema::zero_, {EtBuilder::v(z)}, {EtBuilder::v(z)});
            const EtTensor c = f(shape);
            call("aten::copy_", schema::copy_, {EtBuilder::v(c), EtBuilder::v(f(shape)), EtBuilder::v_bool(false)}, {EtBuilder::v(c)});
            const std::vector<int64_t> half = {shape[0], 128};
            call("aten::cat", schema::cat, {EtBuilder::v_tensors({f(half), f(half)}), EtBuilder::v_int(1)}, {EtBuilder::v(f(shape))});
        }
    }

    bool quick_;
    EtBuilder b_{0};
    SweepStats stats_;
};

}  // namespace

SweepStats write_calibration_sweep(const std::string& path, bool quick) { return Sweep(quick).build(path); }

}  // namespace mimic::compose

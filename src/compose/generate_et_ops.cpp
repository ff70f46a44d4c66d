#include "compose/generate_et_ops.h"

#include <algorithm>
#include <utility>

#include "compose/aten_schemas.h"

namespace mimic::compose {

EtOpWriter::EtOpWriter(const GenerateOptions& o, int64_t pid) : b_(pid) {
    dtype_ = o.dtype == "fp32" ? "float" : o.dtype == "bf16" ? "c10::BFloat16" : "c10::Half";
    scalar_type_ = o.dtype == "fp32" ? 6 : o.dtype == "bf16" ? 15 : 5;
    item_ = static_cast<int>(o.dtype_bytes());
}

EtTensor EtOpWriter::view(const EtTensor& x, std::vector<int64_t> s) {
    const EtTensor out = b_.alias(x, std::move(s));
    b_.op("aten::view", schema::view, {v(x), EtBuilder::v_ints(out.shape)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::transpose(const EtTensor& x, int64_t d0, int64_t d1) {
    std::vector<int64_t> s = x.shape;
    std::swap(s[static_cast<size_t>(d0)], s[static_cast<size_t>(d1)]);
    const EtTensor out = b_.alias(x, s);
    b_.op("aten::transpose", schema::transpose, {v(x), EtBuilder::v_int(d0), EtBuilder::v_int(d1)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::t(const EtTensor& x) {
    const EtTensor out = b_.alias(x, {x.shape[1], x.shape[0]});
    b_.op("aten::t", schema::t, {v(x)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::contiguous(const EtTensor& x) {
    const EtTensor out = T(x.shape);
    b_.op("aten::contiguous", schema::contiguous, {v(x), EtBuilder::v_int(0)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::mm(const EtTensor& a, const EtTensor& w) {
    const EtTensor out = T({a.shape[0], w.shape[1]});
    b_.op("aten::mm", schema::mm, {v(a), v(w)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::addmm(const EtTensor& bias, const EtTensor& a, const EtTensor& w) {
    const EtTensor out = T({a.shape[0], w.shape[1]});
    b_.op("aten::addmm", schema::addmm, {v(bias), v(a), v(w), EtBuilder::v_int(1), EtBuilder::v_int(1)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::bmm(const EtTensor& a, const EtTensor& c) {
    const EtTensor out = T({a.shape[0], a.shape[1], c.shape[2]});
    b_.op("aten::bmm", schema::bmm, {v(a), v(c)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::add(const EtTensor& a, const EtTensor& c) {
    std::vector<int64_t> s = a.shape;
    for (size_t i = 0; i < s.size(); ++i) s[i] = std::max(s[i], c.shape[i]);  // broadcast (same rank here)
    const EtTensor out = T(s);
    b_.op("aten::add", schema::add, {v(a), v(c), EtBuilder::v_int(1)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::add_bias(const EtTensor& a, const EtTensor& bias) {
    const EtTensor out = T(a.shape);
    b_.op("aten::add", schema::add, {v(a), v(bias), EtBuilder::v_int(1)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::scale(const EtTensor& x, double by) {
    const EtTensor out = T(x.shape);
    b_.op("aten::mul", schema::mul_scalar, {v(x), EtBuilder::v_double(by)}, {v(out)});
    return out;
}

EtTensor EtOpWriter::sum0(const EtTensor& x) {
    const EtTensor out = T({x.shape[1]});
    b_.op("aten::sum", schema::sum, {v(x), EtBuilder::v_ints({0}), EtBuilder::v_bool(false), EtBuilder::v_none()}, {v(out)});
    return out;
}

void EtOpWriter::accumulate(EtParam& p, const EtTensor& g) {
    if (p.grad.id == 0) {
        p.grad = g;
        return;
    }
    b_.op("aten::add_", schema::add_, {v(p.grad), v(g), EtBuilder::v_int(1)}, {v(p.grad)});
}

void EtOpWriter::all_reduce(const EtTensor& x, const std::string& group, bool async_op) {
    b_.op("c10d::allreduce_", schema::allreduce,
          {EtBuilder::v_tensors({x}), EtBuilder::v_object(), EtBuilder::v_object(), EtBuilder::v_int(-1)},
          {EtBuilder::v_tensors({x}), EtBuilder::v_object()});
    calls_->push_back({"all_reduce", group.empty() ? "0" : group, async_op, {}, {}});
}

}  // namespace mimic::compose

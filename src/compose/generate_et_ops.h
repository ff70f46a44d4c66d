// The ATen ops and collectives that the models of `generate --format et`
// share, each written as torch 1.13's observer records it: one call to an
// op with its schema, its inputs and its outputs (new tensors, or views of
// their base's storage). A model class derives from EtOpWriter and adds
// what is its own.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compose/generate_et_builder.h"
#include "compose/generate_options.h"

namespace mimic::compose {

struct EtParam {
    EtTensor value, grad;
    bool final = false;  // its gradient is complete (the last micro-batch's backward passed it)
};

// One Python-level collective call, for meta.json (group, whether the
// caller waited, an all_to_all_single's splits in elements), as mimic's
// recorder writes them.
struct PyCall {
    std::string op = "all_reduce";
    std::string pg_name;
    bool async_op = false;
    std::vector<int64_t> input_splits, output_splits;
};

class EtOpWriter {
public:
    EtOpWriter(const GenerateOptions& o, int64_t pid);
    size_t ops() const { return b_.ops(); }

protected:
    EtTensor T(std::vector<int64_t> s) { return b_.tensor(std::move(s), dtype_, item_); }
    EtParam P(std::vector<int64_t> s) { return {T(std::move(s)), {}}; }
    static EtValue v(const EtTensor& t) { return EtBuilder::v(t); }

    EtTensor view(const EtTensor& x, std::vector<int64_t> s);
    EtTensor transpose(const EtTensor& x, int64_t d0, int64_t d1);
    EtTensor t(const EtTensor& x);
    EtTensor contiguous(const EtTensor& x);
    EtTensor mm(const EtTensor& a, const EtTensor& w);
    EtTensor addmm(const EtTensor& bias, const EtTensor& a, const EtTensor& w);
    EtTensor bmm(const EtTensor& a, const EtTensor& c);
    EtTensor add(const EtTensor& a, const EtTensor& c);
    EtTensor add_bias(const EtTensor& a, const EtTensor& bias);
    EtTensor scale(const EtTensor& x, double by);
    EtTensor sum0(const EtTensor& x);
    // The first micro-batch's gradient is the parameter's; later ones add into it.
    void accumulate(EtParam& p, const EtTensor& g);
    void all_reduce(const EtTensor& x, const std::string& group, bool async_op);

    EtBuilder b_;
    std::string dtype_;   // as the ET spells it
    int scalar_type_ = 6;  // c10::ScalarType of dtype_
    int item_ = 4;
    std::vector<PyCall>* calls_ = nullptr;
};

}  // namespace mimic::compose

// Writes the nodes of a PyTorch execution trace as torch 1.13's observer
// does (schema 1.0.1, flat nodes): one id counter shared by nodes, tensors
// and storages; each tensor value [tensor_id, storage_id, offset, numel,
// itemsize, device]; a view is a new tensor id over its base's storage.
// Ops go under one ProfilerStep#0 label on one thread, in call order, so a
// replay takes them as one iteration of top-level operators.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace mimic::compose {

struct EtTensor {
    int64_t id = 0, storage = 0;
    int64_t offset = 0;  // in elements, into the storage
    std::vector<int64_t> shape;
    std::string dtype;  // as the ET spells it: "float", "long int", "c10::BFloat16"
    int itemsize = 4;
    int64_t numel() const;
};

// One argument or result: its value, shape and type texts as the ET writes them.
struct EtValue {
    std::string value, shape, type;
};

class EtBuilder {
public:
    explicit EtBuilder(int64_t pid);

    EtTensor tensor(std::vector<int64_t> shape, const std::string& dtype, int itemsize);
    // A view of `base` with another shape (same storage), `offset` elements past base's start.
    EtTensor alias(const EtTensor& base, std::vector<int64_t> shape, int64_t offset = 0);

    static EtValue v(const EtTensor& t);
    static EtValue v_int(int64_t i);
    static EtValue v_double(double d);
    static EtValue v_bool(bool b);
    static EtValue v_none();
    static EtValue v_string(const std::string& s);
    static EtValue v_object();
    static EtValue v_ints(const std::vector<int64_t>& list);
    static EtValue v_bools(const std::vector<bool>& list);
    static EtValue v_tensors(const std::vector<EtTensor>& list);
    // A Tensor?[] whose first entries are None (advanced indexing's x[:, i, j]).
    static EtValue v_optional_tensors(size_t leading_none, const std::vector<EtTensor>& list);

    // An operator call under the iteration label.
    void op(const std::string& name, const std::string& schema, const std::vector<EtValue>& inputs,
            const std::vector<EtValue>& outputs);
    size_t ops() const { return ops_; }

    // The whole ET document.
    std::string finish();

private:
    int64_t next_id() { return next_++; }
    std::string nodes_;
    int64_t next_ = 4;  // 1 the process, 2 the thread, 3 the iteration label
    int64_t rf_id_ = 1;
    int64_t pid_;
    size_t ops_ = 0;
};

}  // namespace mimic::compose

// Builds small execution traces in memory for replay tests: a root, a thread
// and operator nodes with tensors of chosen shapes, dtypes and storages, so a
// test can give the replayer exactly the input it is about (valid-value
// rules, bad shapes, strides, dtypes) without a recording.
#pragma once

#include <string>
#include <vector>

#include "trace/trace.h"

namespace mimic::testing {

class TestTrace {
public:
    TestTrace() {
        add_node("[pytorch|profiler|execution_trace|process]", "", 1, 1, NodeKind::Root);
        add_node("[pytorch|profiler|execution_trace|thread]", "", 2, 1, NodeKind::Thread);
    }

    Value tensor(std::vector<int64_t> shape, const std::string& dtype, uint64_t storage_id, uint64_t offset = 0,
                 std::vector<int64_t> strides = {}, uint32_t itemsize = 0) {
        TensorMeta m;
        m.tensor_id = next_id_++;
        m.storage_id = storage_id;
        m.offset = offset;
        uint64_t n = 1;
        for (int64_t s : shape) n *= uint64_t(s);
        m.numel = n;
        m.itemsize = itemsize;
        m.dtype = t.strings.intern(dtype);
        m.device = t.strings.intern("cuda:0");
        m.dims_begin = uint32_t(t.dims.size());
        m.rank = uint16_t(shape.size());
        t.dims.insert(t.dims.end(), shape.begin(), shape.end());
        if (!strides.empty()) {
            m.has_strides = true;
            t.dims.insert(t.dims.end(), strides.begin(), strides.end());
        }
        t.tensors.push_back(m);
        Value v;
        v.kind = ValueKind::Tensor;
        v.type = t.strings.intern("Tensor(" + dtype + ")");
        v.payload.index = uint32_t(t.tensors.size() - 1);
        return v;
    }
    // The same tensor (id, storage, layout) again, as a later op sees it.
    Value same(const Value& v) { return v; }
    static Value integer(int64_t i) {
        Value v;
        v.kind = ValueKind::Int;
        v.payload.i = i;
        return v;
    }
    static Value real(double d) {
        Value v;
        v.kind = ValueKind::Double;
        v.payload.d = d;
        return v;
    }
    static Value boolean(bool b) {
        Value v;
        v.kind = ValueKind::Bool;
        v.payload.b = b;
        return v;
    }
    static Value none() { return Value{}; }
    // What the observer writes for a custom class object: "<Object>".
    static Value object() {
        Value v;
        v.kind = ValueKind::Object;
        return v;
    }
    Value ints(const std::vector<int64_t>& xs) {
        std::vector<Value> items;
        for (int64_t x : xs) items.push_back(integer(x));
        return list(items);
    }
    Value list(const std::vector<Value>& items) {
        Value v;
        v.kind = ValueKind::List;
        v.payload.range = {uint32_t(t.values.size()), uint32_t(items.size())};
        t.values.insert(t.values.end(), items.begin(), items.end());
        return v;
    }

    // An operator under the thread node, or under operator `parent` (an op it
    // called); returns its node id.
    uint64_t op(const std::string& name, const std::string& schema, const std::vector<Value>& inputs,
                const std::vector<Value>& outputs, uint64_t parent = 2) {
        const uint64_t id = next_id_++;
        Node& n = add_node(name, schema, id, parent, NodeKind::Operator);
        n.inputs = {uint32_t(t.values.size()), uint32_t(inputs.size())};
        t.values.insert(t.values.end(), inputs.begin(), inputs.end());
        n.outputs = {uint32_t(t.values.size()), uint32_t(outputs.size())};
        t.values.insert(t.values.end(), outputs.begin(), outputs.end());
        return id;
    }

    // A label (a record_function or autograd wrapper, no schema) under `parent`.
    uint64_t label(const std::string& name, int32_t scope, int64_t seq_id = -1, uint64_t parent = 2) {
        const uint64_t id = next_id_++;
        Node& n = add_node(name, "", id, parent, NodeKind::Unknown);
        n.scope = scope;
        n.seq_id = seq_id;
        return id;
    }

    Trace finish() {
        t.source_path = "test-trace";
        t.finalize();
        return std::move(t);
    }

    Trace t;

private:
    Node& add_node(const std::string& name, const std::string& schema, uint64_t id, uint64_t parent, NodeKind kind) {
        Node n;
        n.id = NodeId(id);
        n.parent = NodeId(parent);
        n.name = t.strings.intern(name);
        n.op_schema = t.strings.intern(schema);
        n.kind = kind;
        t.nodes.push_back(n);
        return t.nodes.back();
    }
    uint64_t next_id_ = 1000;
};

}  // namespace mimic::testing

#include "compose/generate_et_builder.h"

#include <cstdio>

#include "support/json_writer.h"

namespace mimic::compose {
namespace {

std::string ints_text(const std::vector<int64_t>& v) {
    std::string s = "[";
    for (size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + std::to_string(v[i]);
    return s + "]";
}

std::string join(const std::vector<EtValue>& vs, std::string EtValue::*field) {
    std::string s = "[";
    for (size_t i = 0; i < vs.size(); ++i) s += (i ? ", " : "") + vs[i].*field;
    return s + "]";
}

// The fields every 1.0.1 node has, in the observer's order.
std::string node_text(const std::string& name, int64_t id, int64_t rf_id, int64_t parent, int scope, const std::string& schema,
                      const std::string& inputs, const std::string& input_shapes, const std::string& input_types,
                      const std::string& outputs, const std::string& output_shapes, const std::string& output_types) {
    return "{\"name\": " + json_quote(name) + ", \"id\": " + std::to_string(id) + ", \"rf_id\": " + std::to_string(rf_id) +
           ", \"parent\": " + std::to_string(parent) + ", \"fw_parent\": 0, \"seq_id\": -1, \"scope\": " + std::to_string(scope) +
           ", \"tid\": 1, \"fw_tid\": 0, \"op_schema\": " + json_quote(schema) + ", \"inputs\": " + inputs +
           ", \"input_shapes\": " + input_shapes + ", \"input_types\": " + input_types + ", \"outputs\": " + outputs +
           ", \"output_shapes\": " + output_shapes + ", \"output_types\": " + output_types + "}";
}

}  // namespace

int64_t EtTensor::numel() const {
    int64_t n = 1;
    for (int64_t d : shape) n *= d;
    return n;
}

EtBuilder::EtBuilder(int64_t pid) : pid_(pid) {}

EtTensor EtBuilder::tensor(std::vector<int64_t> shape, const std::string& dtype, int itemsize) {
    EtTensor t;
    t.id = next_id();
    t.storage = next_id();
    t.shape = std::move(shape);
    t.dtype = dtype;
    t.itemsize = itemsize;
    return t;
}

EtTensor EtBuilder::alias(const EtTensor& base, std::vector<int64_t> shape, int64_t offset) {
    EtTensor t = base;
    t.id = next_id();
    t.shape = std::move(shape);
    t.offset = base.offset + offset;
    return t;
}

EtValue EtBuilder::v(const EtTensor& t) {
    return {"[" + std::to_string(t.id) + ", " + std::to_string(t.storage) + ", " + std::to_string(t.offset) + ", " + std::to_string(t.numel()) + ", " +
                std::to_string(t.itemsize) + ", \"cpu\"]",
            ints_text(t.shape), "\"Tensor(" + t.dtype + ")\""};
}
EtValue EtBuilder::v_int(int64_t i) { return {std::to_string(i), "[]", "\"Int\""}; }
EtValue EtBuilder::v_double(double d) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", d);
    std::string s = buf;
    if (s.find_first_of(".eE") == std::string::npos) s += ".0";
    return {s, "[]", "\"Double\""};
}
EtValue EtBuilder::v_bool(bool b) { return {b ? "true" : "false", "[]", "\"Bool\""}; }
EtValue EtBuilder::v_none() { return {"\"<None>\"", "[]", "\"None\""}; }
EtValue EtBuilder::v_string(const std::string& s) { return {json_quote(s), "[]", "\"String\""}; }
EtValue EtBuilder::v_object() { return {"\"<Object>\"", "[]", "\"Object\""}; }

EtValue EtBuilder::v_ints(const std::vector<int64_t>& list) {
    EtValue out{ints_text(list), "[", "\"GenericList["};
    for (size_t i = 0; i < list.size(); ++i) {
        out.shape += i ? ", []" : "[]";
        out.type += i ? ",Int" : "Int";
    }
    out.shape += "]";
    out.type += "]\"";
    return out;
}

EtValue EtBuilder::v_bools(const std::vector<bool>& list) {
    EtValue out{"[", "[", "\"GenericList["};
    for (size_t i = 0; i < list.size(); ++i) {
        out.value += std::string(i ? ", " : "") + (list[i] ? "true" : "false");
        out.shape += i ? ", []" : "[]";
        out.type += i ? ",Bool" : "Bool";
    }
    out.value += "]";
    out.shape += "]";
    out.type += "]\"";
    return out;
}

EtValue EtBuilder::v_tensors(const std::vector<EtTensor>& list) { return v_optional_tensors(0, list); }

EtValue EtBuilder::v_optional_tensors(size_t leading_none, const std::vector<EtTensor>& list) {
    EtValue out{"[", "[", "\"GenericList["};
    for (size_t i = 0; i < leading_none + list.size(); ++i) {
        const EtValue one = i < leading_none ? v_none() : v(list[i - leading_none]);
        out.value += (i ? ", " : "") + one.value;
        out.shape += (i ? ", " : "") + one.shape;
        out.type += (i ? "," : "") + one.type.substr(1, one.type.size() - 2);
    }
    out.value += "]";
    out.shape += "]";
    out.type += "]\"";
    return out;
}

void EtBuilder::op(const std::string& name, const std::string& schema, const std::vector<EtValue>& inputs,
                   const std::vector<EtValue>& outputs) {
    // The observer writes a node when its op ends; an op's tensors were
    // numbered before it, so its id comes after theirs.
    const int64_t id = next_id();
    if (ops_++) nodes_ += ",\n";
    nodes_ += node_text(name, id, rf_id_++, 3, 0, schema, join(inputs, &EtValue::value), join(inputs, &EtValue::shape),
                        join(inputs, &EtValue::type), join(outputs, &EtValue::value), join(outputs, &EtValue::shape),
                        join(outputs, &EtValue::type));
}

std::string EtBuilder::finish() {
    std::string doc = "{\"schema\": \"1.0.1\", \"pid\": " + std::to_string(pid_) +
                      ", \"time\": \"2026-01-01 00:00:00\", \"start_ts\": 0, \"nodes\": [\n";
    doc += nodes_;
    if (ops_) doc += ",\n";
    doc += node_text("ProfilerStep#0", 3, 0, 2, 7, "", "[]", "[]", "[]", "[]", "[]", "[]") + ",\n";
    doc += node_text("[pytorch|profiler|execution_graph|thread]", 2, 0, 1, 7, "", "[]", "[]", "[]", "[]", "[]", "[]") + ",\n";
    doc += node_text("[pytorch|profiler|execution_graph|process]", 1, 0, 1, 7, "", "[]", "[]", "[]", "[]", "[]", "[]");
    doc += "\n], \"finish_ts\": 0}\n";  // no clock ran: the replay has no original time to compare with
    return doc;
}

}  // namespace mimic::compose

// A PyTorch execution trace held as its JSON, with one way to reach a node's
// fields whatever the schema wrote: 1.0.1 keeps `parent`, `op_schema` and the
// flat `inputs`/`input_shapes`/`input_types` lists on the node; 1.0.2 and
// later nest `inputs: {values, shapes, types, strides}`, move the parent to
// `ctrl_deps` (1.0.3+) and the scalars into `attrs: [{name, type, value}]`.
// The rewriting commands edit through this view and write the document back
// in the layout it came in, so the output keeps its schema version.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "compose/json_tree.h"

namespace mimic::compose {

// The lists describing a node's inputs or outputs, aligned by position.
// Absent members are null pointers (strides before 1.1.0).
struct EtValues {
    JsonValue* values = nullptr;
    JsonValue* shapes = nullptr;
    JsonValue* types = nullptr;
    JsonValue* strides = nullptr;
};

class EtDocument {
public:
    // Reads and checks an ET: a JSON object with a `schema` string and a
    // `nodes` array of objects with integer ids. Throws mimic::Error naming the
    // file (and node) otherwise.
    static EtDocument read(const std::string& path);
    static EtDocument from_json(JsonValue root, const std::string& path);
    void write(const std::string& path) const;

    const std::string& path() const { return path_; }
    // What reading said and mended (ops the observer failed to record:
    // io/pytorch_et/failed_records.h), for the command to print.
    const std::vector<std::string>& warnings() const { return warnings_; }
    const std::string& schema() const { return schema_; }
    JsonValue& root() { return root_; }
    const JsonValue& root() const { return root_; }
    std::vector<JsonValue>& nodes() { return root_["nodes"].items(); }
    const std::vector<JsonValue>& nodes() const { return root_.find("nodes")->items(); }

    static int64_t id(const JsonValue& node);
    static std::string_view name(const JsonValue& node);
    // The parent id (`parent` or `ctrl_deps`); 0 when the node has none.
    int64_t parent(const JsonValue& node) const;
    void set_parent(JsonValue& node, int64_t parent_id) const;

    // A scalar field by its 1.0.1 name (op_schema, rf_id, tid, ...), found on
    // the node or in its attrs list; null when absent.
    static JsonValue* field(JsonValue& node, std::string_view key);
    static const JsonValue* field(const JsonValue& node, std::string_view key);
    // An operator (a node with a schema), not a label.
    static bool is_operator(const JsonValue& node);
    // Autograd's sequence number; -1 when the node has none.
    static int64_t seq_id(const JsonValue& node);

    EtValues inputs(JsonValue& node) const { return io(node, true); }
    EtValues outputs(JsonValue& node) const { return io(node, false); }

private:
    EtValues io(JsonValue& node, bool inputs) const;

    std::string path_;
    std::string schema_;
    std::string parent_key_;  // "parent" or "ctrl_deps"
    bool nested_io_ = false;  // inputs: {values, shapes, types}
    JsonValue root_;
    std::vector<std::string> warnings_;
    void mend_failed_records();
};

// An ET tensor value is [tensor_id, storage_id, offset, numel, itemsize,
// device] (older traces: [id, storage, offset, numel, itemsize]).
bool is_tensor_value(const JsonValue& v);

// One tensor among a node's values: its value [id, storage, offset, numel,
// itemsize, device], and its recorded shape and strides (null when absent).
struct EtTensor {
    JsonValue& value;
    JsonValue* shape;
    JsonValue* strides;
};

// Calls fn for every tensor among one side's values, lists and tuples
// walked, guided by the type strings (an integer list of five looks like a
// tensor), or by the value's form when the trace has no types.
void visit_tensors(const EtValues& side, const std::function<void(const EtTensor& tensor)>& fn);
// The same for one top-level value only: argument `argument` of the op.
void visit_argument_tensors(const EtValues& side, size_t argument, const std::function<void(const EtTensor& tensor)>& fn);

// Whether argument `argument` is a tensor: by its type string where the trace
// has types (an integer list of five, a 5-D shape, has the form of a tensor
// value), else by the value's form.
bool is_tensor_argument(const EtValues& side, size_t argument);

// True when a node name is a thread or process root the observer writes.
bool is_root_label(std::string_view name);

}  // namespace mimic::compose

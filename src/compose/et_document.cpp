#include "compose/et_document.h"

#include <algorithm>

#include "io/pytorch_et/failed_records.h"
#include "io/trace_loader.h"
#include "support/error.h"
#include "trace/value_types.h"

namespace mimic::compose {

EtDocument EtDocument::from_json(JsonValue root, const std::string& path) {
    EtDocument doc;
    doc.path_ = path;
    if (!root.is_object()) fail({path, -1, -1, ""}, "not an execution trace: the document is not a JSON object");
    const JsonValue* schema = root.find("schema");
    if (!schema || !schema->is_string()) {
        if (root.find("traceEvents"))
            fail({path, -1, -1, ""}, "a profiler (Kineto) trace, not an execution trace: this command rewrites ETs");
        fail({path, -1, -1, "schema"}, "not a PyTorch execution trace: no schema version string");
    }
    doc.schema_ = schema->as_string();
    const JsonValue* nodes = root.find("nodes");
    if (!nodes || !nodes->is_array()) fail({path, -1, -1, "nodes"}, "not a PyTorch execution trace: no nodes array");
    bool any_ctrl_deps = false;
    for (const JsonValue& node : nodes->items()) {
        if (!node.is_object()) fail({path, -1, -1, "nodes"}, "a node is not a JSON object");
        const JsonValue* id = node.find("id");
        if (!id || !id->is_integer()) fail({path, -1, -1, "id"}, "a node has no integer id");
        if (node.find("ctrl_deps")) any_ctrl_deps = true;
        if (const JsonValue* in = node.find("inputs")) doc.nested_io_ = doc.nested_io_ || in->is_object();
    }
    doc.parent_key_ = any_ctrl_deps ? "ctrl_deps" : "parent";
    doc.root_ = std::move(root);
    doc.mend_failed_records();
    return doc;
}

// The reader's mending of a trace whose ops the observer failed to record,
// applied to the JSON: fresh ids for records of id 0, and the parents the
// plan gives, so that a cut or a rewrite sees the tree the reader sees.
void EtDocument::mend_failed_records() {
    std::vector<JsonValue>& all = nodes();
    std::vector<RecordView> views(all.size());
    for (size_t i = 0; i < all.size(); ++i) {
        const std::string_view n = name(all[i]);
        const JsonValue* tid = field(all[i], "tid");
        const int64_t p = parent(all[i]);
        views[i] = {static_cast<uint64_t>(std::max<int64_t>(0, id(all[i]))), static_cast<uint64_t>(std::max<int64_t>(0, p)),
                    tid && tid->is_integer() ? static_cast<uint64_t>(tid->as_int()) : 0,
                    is_root_label(n) && n.find("|process]") != std::string_view::npos,
                    is_root_label(n) && n.find("|thread]") != std::string_view::npos};
    }
    const FailedRecordRepair plan = plan_failed_record_repair(views);
    if (plan.empty()) return;
    std::vector<std::string> names;
    for (const auto& [i, fresh] : plan.new_ids) {
        names.emplace_back(name(all[i]));
        all[i]["id"] = JsonValue::of_uint(fresh);
    }
    for (const auto& [i, p] : plan.new_parents) set_parent(all[i], static_cast<int64_t>(p));
    warnings_.push_back(plan.warning(names));
}

EtDocument EtDocument::read(const std::string& path) {
    // A Chakra protobuf is not JSON: say what it is, not what the JSON parser makes of it.
    if (detect_file_kind(path) == FileKind::Chakra)
        fail({path, -1, -1, ""}, "a Chakra protobuf trace, not an execution trace: this command rewrites ETs "
                                 "(give the ET it was converted from, and `mimic convert` the result)");
    return from_json(read_json_file(path), path);
}

void EtDocument::write(const std::string& path) const { write_json_file(path, root_, true); }

int64_t EtDocument::id(const JsonValue& node) { return node.find("id")->as_int(); }

std::string_view EtDocument::name(const JsonValue& node) {
    const JsonValue* n = node.find("name");
    return n && n->is_string() ? std::string_view(n->as_string()) : std::string_view();
}

int64_t EtDocument::parent(const JsonValue& node) const {
    const JsonValue* p = node.find(parent_key_);
    return p && p->is_integer() ? p->as_int() : 0;
}

void EtDocument::set_parent(JsonValue& node, int64_t parent_id) const {
    JsonValue& p = node[parent_key_];
    p = parent_id < 0 ? JsonValue::of_int(parent_id) : JsonValue::of_uint(static_cast<uint64_t>(parent_id));
}

JsonValue* EtDocument::field(JsonValue& node, std::string_view key) {
    if (JsonValue* direct = node.find(key)) return direct;
    JsonValue* attrs = node.find("attrs");
    if (!attrs || !attrs->is_array()) return nullptr;
    for (JsonValue& attr : attrs->items()) {
        const JsonValue* n = attr.is_object() ? attr.find("name") : nullptr;
        if (n && n->is_string() && n->as_string() == key) return attr.find("value");
    }
    return nullptr;
}

const JsonValue* EtDocument::field(const JsonValue& node, std::string_view key) {
    return field(const_cast<JsonValue&>(node), key);
}

bool EtDocument::is_operator(const JsonValue& node) {
    const JsonValue* schema = field(node, "op_schema");
    return schema && schema->is_string() && !schema->as_string().empty();
}

int64_t EtDocument::seq_id(const JsonValue& node) {
    const JsonValue* seq = field(node, "seq_id");
    return seq && seq->is_integer() ? seq->as_int() : -1;
}

EtValues EtDocument::io(JsonValue& node, bool inputs) const {
    EtValues out;
    const char* side = inputs ? "inputs" : "outputs";
    JsonValue* v = node.find(side);
    if (!v) return out;
    if (v->is_object()) {
        out.values = v->find("values");
        out.shapes = v->find("shapes");
        out.types = v->find("types");
        out.strides = v->find("strides");
        return out;
    }
    out.values = v;
    out.shapes = node.find(inputs ? "input_shapes" : "output_shapes");
    out.types = node.find(inputs ? "input_types" : "output_types");
    out.strides = node.find(inputs ? "input_strides" : "output_strides");
    return out;
}

bool is_tensor_value(const JsonValue& v) {
    if (!v.is_array() || v.items().size() < 5 || v.items().size() > 6) return false;
    for (size_t i = 0; i < 5; ++i)
        if (!v.items()[i].is_integer()) return false;
    return v.items().size() == 5 || v.items()[5].is_string();
}

namespace {

using TensorFn = std::function<void(const EtTensor& tensor)>;

std::string_view list_inside(std::string_view type) {
    for (std::string_view head : {"GenericList[", "Tuple[", "List["})
        if (type.rfind(head, 0) == 0 && type.back() == ']') return type.substr(head.size(), type.size() - head.size() - 1);
    return {};
}

JsonValue* item_of(JsonValue* list, size_t i) {
    return list && list->is_array() && i < list->items().size() ? &list->items()[i] : nullptr;
}

void visit_value(JsonValue& value, JsonValue* shape, JsonValue* strides, std::string_view type, bool typed, const TensorFn& fn,
                 int depth) {
    if (depth > 32) return;
    if (typed ? type.rfind("Tensor", 0) == 0 : is_tensor_value(value)) {
        if (is_tensor_value(value)) fn(EtTensor{value, shape, strides});
        return;
    }
    if (!value.is_array()) return;
    std::vector<std::string_view> inner;
    if (typed) {
        std::string_view list = list_inside(type);
        if (list.empty()) return;
        inner = split_type_list(list);
    }
    std::vector<JsonValue>& items = value.items();
    for (size_t i = 0; i < items.size(); ++i) {
        std::string_view item_type = i < inner.size() ? inner[i] : (inner.empty() ? std::string_view() : inner.back());
        visit_value(items[i], item_of(shape, i), item_of(strides, i), item_type, typed && !inner.empty(), fn, depth + 1);
    }
}

}  // namespace

void visit_argument_tensors(const EtValues& side, size_t argument, const TensorFn& fn) {
    if (!side.values || !side.values->is_array() || argument >= side.values->items().size()) return;
    const JsonValue* type = side.types && side.types->is_array() && argument < side.types->items().size()
                                ? &side.types->items()[argument]
                                : nullptr;
    bool typed = type && type->is_string();
    visit_value(side.values->items()[argument], item_of(side.shapes, argument), item_of(side.strides, argument),
                typed ? std::string_view(type->as_string()) : std::string_view(), typed, fn, 0);
}

void visit_tensors(const EtValues& side, const TensorFn& fn) {
    if (!side.values || !side.values->is_array()) return;
    for (size_t i = 0; i < side.values->items().size(); ++i) visit_argument_tensors(side, i, fn);
}

bool is_tensor_argument(const EtValues& side, size_t argument) {
    if (!side.values || !side.values->is_array() || argument >= side.values->items().size()) return false;
    const JsonValue* type = item_of(side.types, argument);
    if (type && type->is_string()) return type->as_string().rfind("Tensor", 0) == 0;
    return is_tensor_value(side.values->items()[argument]);
}

bool is_root_label(std::string_view name) {
    return name.rfind("[pytorch|profiler|execution_graph|", 0) == 0 ||
           name.rfind("[pytorch|profiler|execution_trace|", 0) == 0;
}

}  // namespace mimic::compose

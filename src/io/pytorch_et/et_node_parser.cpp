#include "io/pytorch_et/et_node_parser.h"

#include <cstring>

namespace mimic {

using simdjson::dom::element;
using simdjson::dom::element_type;

namespace {

bool read_uint(element e, uint64_t& out) {
    if (e.type() == element_type::UINT64) {
        out = uint64_t(e);
        return true;
    }
    if (e.type() == element_type::INT64 && int64_t(e) >= 0) {
        out = static_cast<uint64_t>(int64_t(e));
        return true;
    }
    return false;
}

bool read_int(element e, int64_t& out) {
    if (e.type() == element_type::INT64) {
        out = int64_t(e);
        return true;
    }
    if (e.type() == element_type::UINT64) {
        out = static_cast<int64_t>(uint64_t(e));
        return true;
    }
    return false;
}

// The fields a node may carry, by key, so one pass with a switch reads it.
enum class Key {
    Id, Name, Parent, CtrlDeps, RfId, FwParent, SeqId, Scope, Tid, FwTid, OpSchema,
    Inputs, InputShapes, InputTypes, InputStrides, Outputs, OutputShapes, OutputTypes, OutputStrides, Attrs, Other
};

Key key_of(std::string_view k) {
    switch (k.size()) {
        case 2: if (k == "id") return Key::Id; break;
        case 3: if (k == "tid") return Key::Tid; break;
        case 4: if (k == "name") return Key::Name; break;
        case 5:
            if (k == "rf_id") return Key::RfId;
            if (k == "scope") return Key::Scope;
            if (k == "attrs") return Key::Attrs;
            break;
        case 6:
            if (k == "parent") return Key::Parent;
            if (k == "seq_id") return Key::SeqId;
            if (k == "inputs") return Key::Inputs;
            if (k == "fw_tid") return Key::FwTid;
            break;
        case 7: if (k == "outputs") return Key::Outputs; break;
        case 9:
            if (k == "ctrl_deps") return Key::CtrlDeps;
            if (k == "fw_parent") return Key::FwParent;
            if (k == "op_schema") return Key::OpSchema;
            break;
        case 11: if (k == "input_types") return Key::InputTypes; break;
        case 12:
            if (k == "input_shapes") return Key::InputShapes;
            if (k == "output_types") return Key::OutputTypes;
            break;
        case 13:
            if (k == "output_shapes") return Key::OutputShapes;
            if (k == "input_strides") return Key::InputStrides;
            break;
        case 14: if (k == "output_strides") return Key::OutputStrides; break;
        default: break;
    }
    return Key::Other;
}

struct Side {
    element values, shapes, types, strides;
    bool present = false;
    bool have_shapes = false, have_types = false, have_strides = false;
};

}  // namespace

Value EtNodeParser::attr_value(element value, std::string_view type, const ParsePlace&) {
    Value v;
    v.type = trace_.strings.intern(type);
    int64_t i;
    uint64_t u;
    double d;
    bool b;
    std::string_view s;
    if ((type == "uint64" || type == "uint32") && read_uint(value, u)) {
        v.kind = ValueKind::Int;
        v.payload.i = static_cast<int64_t>(u);
    } else if ((type == "int64" || type == "int32" || type == "int") && read_int(value, i)) {
        v.kind = ValueKind::Int;
        v.payload.i = i;
    } else if ((type == "double" || type == "float") && value.get_double().get(d) == simdjson::SUCCESS) {
        v.kind = ValueKind::Double;
        v.payload.d = d;
    } else if (type == "bool" && value.get_bool().get(b) == simdjson::SUCCESS) {
        v.kind = ValueKind::Bool;
        v.payload.b = b;
    } else if (type == "string" && value.get_string().get(s) == simdjson::SUCCESS) {
        v.kind = ValueKind::String;
        v.payload.str = trace_.strings.intern(s);
    } else {
        // An attribute type this reader does not know (or a value that does not
        // match its type): keep it by its JSON kind; lists become List values.
        if (read_int(value, i)) {
            v.kind = ValueKind::Int;
            v.payload.i = i;
        } else if (value.get_double().get(d) == simdjson::SUCCESS) {
            v.kind = ValueKind::Double;
            v.payload.d = d;
        } else if (value.get_bool().get(b) == simdjson::SUCCESS) {
            v.kind = ValueKind::Bool;
            v.payload.b = b;
        } else if (value.get_string().get(s) == simdjson::SUCCESS) {
            v.kind = ValueKind::String;
            v.payload.str = trace_.strings.intern(s);
        } else {
            v.kind = ValueKind::Unknown;
            v.payload.str = trace_.strings.intern(simdjson::minify(value));
        }
    }
    return v;
}

void EtNodeParser::parse_attrs(Node& node, simdjson::dom::array attrs, const ParsePlace& where) {
    uint32_t begin = static_cast<uint32_t>(trace_.attrs.size());
    for (element a : attrs) {
        std::string_view name, type;
        element value;
        bool have_name = false, have_value = false;
        simdjson::dom::object obj;
        if (a.get_object().get(obj) != simdjson::SUCCESS) where.fail("each attr must be an object {name, type, value}");
        // One pass over the attr's fields rather than a lookup per key.
        for (auto f : obj) {
            if (f.key == "name") have_name = f.value.get_string().get(name) == simdjson::SUCCESS;
            else if (f.key == "type") (void)(f.value.get_string().get(type) == simdjson::SUCCESS);
            else if (f.key == "value") {
                value = f.value;
                have_value = true;
            }
        }
        if (!have_name) where.fail("an attr has no string \"name\"");
        if (!have_value) where.fail("attr '" + std::string(name) + "' has no value");
        ParsePlace at = where;
        at.field = "attrs";
        at.subfield = name;
        uint64_t u;
        int64_t i;
        std::string_view s;
        // The attrs every node has go to fields; others are kept as they are.
        if (name == "rf_id" || name == "fw_parent" || name == "tid" || name == "fw_tid") {
            if (!read_uint(value, u)) at.fail("expected an unsigned integer");
            (name == "rf_id" ? node.rf_id : name == "fw_parent" ? node.fw_parent : name == "tid" ? node.tid : node.fw_tid) = u;
        } else if (name == "seq_id" || name == "scope") {
            if (!read_int(value, i)) at.fail("expected an integer");
            if (name == "seq_id") node.seq_id = i;
            else node.scope = static_cast<int32_t>(i);
        } else if (name == "op_schema") {
            if (value.get_string().get(s) != simdjson::SUCCESS) at.fail("expected a string");
            node.op_schema = trace_.strings.intern(s);
        } else {
            trace_.attrs.push_back({trace_.strings.intern(name), attr_value(value, type, at)});
        }
    }
    node.attrs = {begin, static_cast<uint32_t>(trace_.attrs.size() - begin)};
}

void EtNodeParser::parse(element node_json, uint64_t byte_offset) {
    ParsePlace where{&file_, -1, static_cast<int64_t>(byte_offset), {}, {}};
    simdjson::dom::object obj;
    if (node_json.get_object().get(obj) != simdjson::SUCCESS) where.fail("a node must be a JSON object");
    Node node;
    bool have_id = false, have_name = false, nested = false;
    Side in, out;
    simdjson::dom::array attrs;
    bool have_attrs = false;
    // First pass only finds the id so every later error can name the node.
    element id_el;
    if (obj["id"].get(id_el) == simdjson::SUCCESS) {
        uint64_t id;
        if (!read_uint(id_el, id)) {
            where.field = "id";
            where.fail("expected an unsigned integer, got " + std::string(simdjson::minify(id_el)));
        }
        node.id = NodeId(id);
        have_id = true;
        where.node_id = static_cast<int64_t>(id);
        where.byte_offset = -1;
    }
    for (auto field : obj) {
        Key key = key_of(field.key);
        element v = field.value;
        ParsePlace at = where;
        at.field = field.key;
        uint64_t u;
        int64_t i;
        std::string_view s;
        switch (key) {
            case Key::Id: break;
            case Key::Name:
                if (v.get_string().get(s) != simdjson::SUCCESS) at.fail("expected a string");
                node.name = trace_.strings.intern(s);
                have_name = true;
                break;
            case Key::Parent:
            case Key::CtrlDeps:
                if (!read_uint(v, u)) at.fail("expected a node id (unsigned integer)");
                node.parent = NodeId(u);
                if (key == Key::CtrlDeps) nested = true;
                break;
            case Key::RfId:
            case Key::FwParent:
            case Key::Tid:
            case Key::FwTid:
                if (!read_uint(v, u)) at.fail("expected an unsigned integer");
                (key == Key::RfId ? node.rf_id : key == Key::FwParent ? node.fw_parent : key == Key::Tid ? node.tid : node.fw_tid) = u;
                break;
            case Key::SeqId:
            case Key::Scope:
                if (!read_int(v, i)) at.fail("expected an integer");
                if (key == Key::SeqId) node.seq_id = i;
                else node.scope = static_cast<int32_t>(i);
                break;
            case Key::OpSchema:
                if (v.get_string().get(s) != simdjson::SUCCESS) at.fail("expected a string");
                node.op_schema = trace_.strings.intern(s);
                break;
            case Key::Inputs:
            case Key::Outputs: {
                Side& side = key == Key::Inputs ? in : out;
                side.present = true;
                if (v.is_object()) {
                    nested = true;
                    bool have_values = false;
                    simdjson::dom::object io = v.get_object().value_unsafe();
                    for (auto part : io) {
                        if (part.key == "values") side.values = part.value, have_values = true;
                        else if (part.key == "shapes") side.shapes = part.value, side.have_shapes = true;
                        else if (part.key == "types") side.types = part.value, side.have_types = true;
                        else if (part.key == "strides") side.strides = part.value, side.have_strides = true;
                    }
                    if (!have_values) at.fail("has no \"values\"");
                } else {
                    side.values = v;
                }
                break;
            }
            case Key::InputShapes:
                in.shapes = v;
                in.have_shapes = true;
                break;
            case Key::InputTypes:
                in.types = v;
                in.have_types = true;
                break;
            case Key::InputStrides:
                in.strides = v;
                in.have_strides = true;
                break;
            case Key::OutputShapes:
                out.shapes = v;
                out.have_shapes = true;
                break;
            case Key::OutputTypes:
                out.types = v;
                out.have_types = true;
                break;
            case Key::OutputStrides:
                out.strides = v;
                out.have_strides = true;
                break;
            case Key::Attrs:
                if (v.get_array().get(attrs) != simdjson::SUCCESS) at.fail("expected a list of attrs");
                have_attrs = true;
                nested = true;
                break;
            case Key::Other:
                break;  // fields of later schemas this reader does not use
        }
    }
    if (!have_id) {
        where.field = "id";
        where.fail("node has no id");
    }
    if (!have_name) {
        where.field = "name";
        where.fail("node has no name");
    }
    if (have_attrs) parse_attrs(node, attrs, where);
    auto read_side = [&](Side& side, const char* field) -> ValueRange {
        if (!side.present) return {static_cast<uint32_t>(trace_.values.size()), 0};
        ParsePlace at = where;
        at.field = field;
        simdjson::dom::array values;
        if (side.values.get_array().get(values) != simdjson::SUCCESS) at.fail("expected a list of values");
        return values_.parse_side(values, side.have_types ? &side.types : nullptr,
                                  side.have_shapes ? &side.shapes : nullptr,
                                  side.have_strides ? &side.strides : nullptr, at);
    };
    node.inputs = read_side(in, "inputs");
    node.outputs = read_side(out, "outputs");
    node.kind = classify_node(trace_.str(node.name), trace_.str(node.op_schema), node.scope);
    (nested ? nested_nodes_ : flat_nodes_)++;
    trace_.nodes.push_back(node);
}

}  // namespace mimic

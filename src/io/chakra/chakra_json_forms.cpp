#include "io/chakra/chakra_json_forms.h"

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/json_util.h>
#include <simdjson.h>

#include <map>

#include "et_def.pb.h"
#include "io/chakra/chakra_stream.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_sequence.h"
#include "support/json_stream.h"
#include "support/text.h"

namespace mimic {

namespace {

// The keys of the first top-level object in `head`, and what follows it.
struct HeadShape {
    std::vector<std::string_view> keys;
    bool closed = false;            // the first object ended within the head
    bool object_follows = false;    // and another '{' came after it
};

HeadShape scan_head(std::string_view head) {
    HeadShape shape;
    size_t i = 0;
    while (i < head.size() && is_json_space(head[i])) ++i;
    if (i == head.size() || head[i] != '{') return shape;
    int depth = 0;
    for (; i < head.size(); ++i) {
        const char c = head[i];
        if (c == '"') {
            const size_t begin = ++i;
            while (i < head.size() && head[i] != '"') i += head[i] == '\\' ? 2 : 1;
            if (i >= head.size()) return shape;
            if (depth == 1) {
                size_t k = i + 1;
                while (k < head.size() && is_json_space(head[k])) ++k;
                if (k < head.size() && head[k] == ':') shape.keys.push_back(head.substr(begin, i - begin));
            }
        } else if (c == '{' || c == '[') {
            ++depth;
        } else if ((c == '}' || c == ']') && --depth == 0) {
            shape.closed = true;
            size_t k = i + 1;
            while (k < head.size() && is_json_space(head[k])) ++k;
            shape.object_follows = k < head.size() && head[k] == '{';
            return shape;
        }
    }
    return shape;
}

bool has_key(const HeadShape& shape, std::string_view key) {
    for (std::string_view k : shape.keys)
        if (k == key) return true;
    return false;
}

// The location of a feeder node's field, for errors.
ErrorLocation at(const std::string& path, uint64_t offset, uint64_t index, std::string_view field) {
    return {path, -1, static_cast<int64_t>(offset), "workload_graph[" + std::to_string(index) + "]." + std::string(field)};
}

uint64_t as_uint(simdjson::dom::element v, const std::string& path, uint64_t offset, uint64_t index, std::string_view field) {
    uint64_t u = 0;
    if (v.get_uint64().get(u) != simdjson::SUCCESS)
        fail(at(path, offset, index, field), "expected a non-negative integer");
    return u;
}

int64_t as_int(simdjson::dom::element v, const std::string& path, uint64_t offset, uint64_t index, std::string_view field) {
    int64_t i = 0;
    if (v.get_int64().get(i) != simdjson::SUCCESS) fail(at(path, offset, index, field), "expected an integer");
    return i;
}

// The AttributeProto value Chakra's converter gives each of the feeder's flat
// integer attributes.
enum class IntAttr { None, Int32, Int64, UInt64 };

IntAttr feeder_attr_type(std::string_view key) {
    if (key == "comm_type" || key == "comm_size" || key == "num_ops") return IntAttr::Int64;
    if (key == "comm_src" || key == "comm_dst" || key == "comm_tag" || key == "comm_priority") return IntAttr::Int32;
    if (key == "tensor_size") return IntAttr::UInt64;
    return IntAttr::None;
}

void add_int_attr(ChakraProtoMsg::Node& node, std::string_view name, IntAttr type, int64_t v) {
    ChakraProtoMsg::AttributeProto* a = node.add_attr();
    a->set_name(std::string(name));
    if (type == IntAttr::Int32) a->set_int32_val(static_cast<int32_t>(v));
    else if (type == IntAttr::UInt64) a->set_uint64_val(static_cast<uint64_t>(v));
    else a->set_int64_val(v);
}

void feeder_deps(simdjson::dom::element v, google::protobuf::RepeatedField<uint64_t>* deps, const std::string& path,
                 uint64_t offset, uint64_t index, std::string_view field) {
    simdjson::dom::array list;
    if (v.get_array().get(list) != simdjson::SUCCESS) fail(at(path, offset, index, field), "expected a list of node ids");
    for (simdjson::dom::element d : list) deps->Add(as_uint(d, path, offset, index, field));
}

void feeder_node(simdjson::dom::object obj, ChakraProtoMsg::Node& node, const std::string& path, uint64_t offset,
                 uint64_t index, std::map<std::string, uint64_t>& ignored) {
    node.Clear();
    bool have_id = false, have_type = false;
    for (auto field : obj) {
        const std::string_view key = field.key;
        const simdjson::dom::element v = field.value;
        if (key == "Id") {
            node.set_id(as_uint(v, path, offset, index, key));
            have_id = true;
        } else if (key == "Name") {
            std::string_view name;
            if (v.get_string().get(name) != simdjson::SUCCESS) fail(at(path, offset, index, key), "expected a string");
            node.set_name(std::string(name));
        } else if (key == "NodeType") {
            const uint64_t t = as_uint(v, path, offset, index, key);
            if (t > 1000 || !ChakraProtoMsg::NodeType_IsValid(static_cast<int>(t)))
                fail(at(path, offset, index, key), "node type " + std::to_string(t) + " is not one of Chakra's (0-7)");
            node.set_type(static_cast<ChakraProtoMsg::NodeType>(t));
            have_type = true;
        } else if (key == "runtime") {
            node.set_duration_micros(as_uint(v, path, offset, index, key));
        } else if (key == "data_deps") {
            feeder_deps(v, node.mutable_data_deps(), path, offset, index, key);
        } else if (key == "ctrlDeps" || key == "ctrl_deps") {
            feeder_deps(v, node.mutable_ctrl_deps(), path, offset, index, key);
        } else if (key == "is_cpu_op") {
            bool b = false;
            if (v.get_bool().get(b) != simdjson::SUCCESS) fail(at(path, offset, index, key), "expected true or false");
            ChakraProtoMsg::AttributeProto* a = node.add_attr();
            a->set_name("is_cpu_op");
            a->set_bool_val(b);
        } else if (const IntAttr type = feeder_attr_type(key); type != IntAttr::None) {
            const int64_t i = type == IntAttr::UInt64 ? static_cast<int64_t>(as_uint(v, path, offset, index, key))
                                                      : as_int(v, path, offset, index, key);
            add_int_attr(node, key, type, i);
        } else {
            ++ignored[std::string(key)];
        }
    }
    if (!have_id) fail(at(path, offset, index, "Id"), "a node without an \"Id\"");
    if (!have_type) fail(at(path, offset, index, "NodeType"), "a node without a \"NodeType\"");
}

void note_ignored(const std::map<std::string, uint64_t>& ignored, ChakraJsonEncodeNotes& notes) {
    for (const auto& [key, count] : ignored)
        notes.ignored_fields.push_back("\"" + key + "\" (" + std::to_string(count) + (count == 1 ? " node)" : " nodes)"));
}

}  // namespace

ChakraJsonForm chakra_json_form(std::string_view head) {
    const HeadShape shape = scan_head(head);
    if (shape.keys.empty() && !shape.closed) return ChakraJsonForm::NotChakra;
    if (has_key(shape, "workload_graph")) return ChakraJsonForm::Feeder;
    if (has_key(shape, "metadata") && !has_key(shape, "schema")) return ChakraJsonForm::MimicDump;
    // A GlobalMetadata holds only "version" and "attr"; the jsonizer writes a
    // node object right after it (an empty trace: the metadata alone).
    bool metadata_keys_only = !shape.keys.empty();
    for (std::string_view k : shape.keys) metadata_keys_only = metadata_keys_only && (k == "version" || k == "attr");
    if (metadata_keys_only || (shape.closed && shape.object_follows && shape.keys.empty()))
        return ChakraJsonForm::Jsonizer;
    return ChakraJsonForm::NotChakra;
}

ChakraJsonEncodeNotes encode_chakra_feeder_json(const std::string& json_path, ChakraFrameWriter& out) {
    ChakraJsonEncodeNotes notes;
    out.write(ChakraProtoMsg::GlobalMetadata());
    ByteSource source(json_path);
    JsonStreamer streamer(source);
    simdjson::dom::parser parser;
    ChakraProtoMsg::Node node;
    std::map<std::string, uint64_t> ignored;
    JsonStreamCallbacks callbacks;
    callbacks.stream_key = [](std::string_view key) { return key == "workload_graph"; };
    callbacks.on_field = [](std::string_view, std::string_view, uint64_t) {};  // the feeder reads nothing else
    callbacks.on_batch = [&](std::string_view, std::string_view batch, const std::vector<uint32_t>&,
                             const std::vector<uint64_t>& offsets) {
        simdjson::dom::element doc;
        if (parser.parse(batch.data(), batch.size(), false).get(doc) != simdjson::SUCCESS)
            fail({json_path, -1, offsets.empty() ? -1 : static_cast<int64_t>(offsets[0]), "workload_graph"},
                 "malformed JSON in the node list");
        size_t i = 0;
        for (simdjson::dom::element e : doc.get_array()) {
            const uint64_t offset = i < offsets.size() ? offsets[i] : 0;
            simdjson::dom::object obj;
            if (e.get_object().get(obj) != simdjson::SUCCESS)
                fail(at(json_path, offset, notes.nodes, ""), "a node must be a JSON object");
            feeder_node(obj, node, json_path, offset, notes.nodes, ignored);
            out.write(node);
            ++notes.nodes;
            ++i;
        }
    };
    streamer.run(callbacks);
    note_ignored(ignored, notes);
    return notes;
}

ChakraJsonEncodeNotes encode_chakra_jsonizer_json(const std::string& json_path, ChakraFrameWriter& out) {
    // Protobuf logs its parse complaints to stderr; ours arrive as one mimic::Error instead.
    google::protobuf::LogSilencer quiet;
    ChakraJsonEncodeNotes notes;
    ByteSource source(json_path);
    google::protobuf::util::JsonParseOptions options;  // strict: unknown fields are errors
    ChakraProtoMsg::GlobalMetadata meta;
    ChakraProtoMsg::Node node;
    bool saw_metadata = false;
    for_each_json_object(source, [&](std::string_view text, uint64_t offset, uint64_t index) {
        google::protobuf::Message& msg = index == 0 ? static_cast<google::protobuf::Message&>(meta) : node;
        msg.Clear();
        const auto status = google::protobuf::util::JsonStringToMessage(
            google::protobuf::StringPiece(text.data(), text.size()), &msg, options);
        if (!status.ok())
            fail({json_path, -1, static_cast<int64_t>(offset), index == 0 ? "GlobalMetadata" : "object " + std::to_string(index)},
                 std::string("does not map to ChakraProtoMsg.") + (index == 0 ? "GlobalMetadata" : "Node") + ": " +
                     std::string(status.message()));
        out.write(msg);
        if (index > 0) ++notes.nodes;
        else saw_metadata = true;
    });
    if (!saw_metadata) fail({json_path, -1, 0, "GlobalMetadata"}, "no JSON object: a Chakra trace starts with its GlobalMetadata");
    return notes;
}

}  // namespace mimic

#include "io/chakra/chakra_reader.h"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <optional>

#include "io/chakra/chakra_attrs.h"
#include "io/chakra/chakra_reader_deps.h"
#include "io/chakra/chakra_stream.h"
#include "io/chakra/chakra_values.h"
#include "io/chakra/chakra_wire.h"
#include "support/error.h"
#include "support/progress.h"

namespace mimic {

namespace {

// "PREFIX.3.et" or "PREFIX.3.et.gz" -> 3; -1 when the name says nothing.
int64_t rank_from_file_name(const std::string& path) {
    std::string name = std::filesystem::path(path).filename().string();
    if (name.size() > 3 && name.compare(name.size() - 3, 3, ".gz") == 0) name.resize(name.size() - 3);
    if (name.size() < 4 || name.compare(name.size() - 3, 3, ".et") != 0) return -1;
    name.resize(name.size() - 3);
    const size_t dot = name.rfind('.');
    if (dot == std::string::npos || dot + 1 == name.size()) return -1;
    int64_t rank = -1;
    auto r = std::from_chars(name.data() + dot + 1, name.data() + name.size(), rank);
    return r.ec == std::errc() && r.ptr == name.data() + name.size() ? rank : -1;
}

class ChakraNodeConverter {
public:
    explicit ChakraNodeConverter(Trace& trace)
        : trace_(trace), attrs_(trace), io_(trace),
          rf_id_(trace.strings.intern("rf_id")), fw_parent_(trace.strings.intern("fw_parent")),
          seq_id_(trace.strings.intern("seq_id")), scope_(trace.strings.intern("scope")),
          tid_(trace.strings.intern("tid")), fw_tid_(trace.strings.intern("fw_tid")),
          op_schema_(trace.strings.intern("op_schema")), raw_inputs_(trace.strings.intern(kChakraRawInputs)),
          raw_outputs_(trace.strings.intern(kChakraRawOutputs)) {}

    // Returns false, with `error` set, when an attribute's list payload is
    // malformed or an IOInfo text is not UTF-8. `msg` is decoded from
    // `message` with IoTextCheck::ByCaller: its texts are checked here.
    bool add(std::string_view message, const ChakraNodeView& msg, ChakraWireError& error) {
        Node node;
        node.id = NodeId(msg.id);
        node.name = trace_.strings.intern(msg.name);
        node.chakra_type =
            msg.type >= 0 && msg.type <= 7 ? static_cast<ChakraNodeType>(msg.type) : ChakraNodeType::Invalid;
        node.deps = append_edges(msg.ctrl_deps, msg.id);
        node.data_deps = append_edges(msg.data_deps, msg.id);
        node.chakra_start_us = msg.start_time_micros;
        node.chakra_duration_us = msg.duration_micros;

        const uint32_t attrs_begin = static_cast<uint32_t>(trace_.attrs.size());
        bool pytorch_fields = false;
        for (size_t i = 0; i < msg.attrs.size(); ++i) {
            Attr a;
            if (!attrs_.read(msg.attrs[i], i, a)) {
                error.what = "bad attr list";
                return false;
            }
            if (lift(node, a)) pytorch_fields = true;
            else trace_.attrs.push_back(a);
        }
        node.inputs = node.outputs = ValueRange{static_cast<uint32_t>(trace_.values.size()), 0};
        if (msg.inputs.present && !side(message, msg.inputs, "inputs", raw_inputs_, node.inputs, error)) return false;
        if (msg.outputs.present && !side(message, msg.outputs, "outputs", raw_outputs_, node.outputs, error))
            return false;
        node.attrs = {attrs_begin, static_cast<uint32_t>(trace_.attrs.size() - attrs_begin)};
        node.kind = pytorch_fields ? classify_node(trace_.str(node.name), trace_.str(node.op_schema), node.scope)
                                   : NodeKind::Unknown;
        trace_.nodes.push_back(node);
        return true;
    }

    size_t raw_sides() const { return raw_sides_; }
    size_t self_deps() const { return self_deps_; }

private:
    ValueRange append_edges(const std::vector<uint64_t>& ids, uint64_t self) {
        ValueRange r{static_cast<uint32_t>(trace_.edges.size()), static_cast<uint32_t>(ids.size())};
        for (uint64_t id : ids) {
            self_deps_ += id == self;
            trace_.edges.push_back(NodeId(id));
        }
        return r;
    }

    // Moves the attrs Chakra copies from the ET into the Node fields.
    bool lift(Node& node, const Attr& a) {
        if (a.name == op_schema_) {
            if (a.value.kind != ValueKind::String) return false;
            node.op_schema = a.value.payload.str;
            return true;
        }
        if (a.value.kind != ValueKind::Int) return false;
        const int64_t v = a.value.payload.i;
        if (a.name == rf_id_) node.rf_id = static_cast<uint64_t>(v);
        else if (a.name == fw_parent_) node.fw_parent = static_cast<uint64_t>(v);
        else if (a.name == seq_id_) node.seq_id = v;
        else if (a.name == scope_) node.scope = static_cast<int32_t>(v);
        else if (a.name == tid_) node.tid = static_cast<uint64_t>(v);
        else if (a.name == fw_tid_) node.fw_tid = static_cast<uint64_t>(v);
        else return false;
        return true;
    }

    // Returns false, with `error` set, when a text is not UTF-8. A side copied
    // from an earlier one has texts equal to ones checked before.
    bool side(std::string_view message, const ChakraIoView& io, const char* side_name, StrId raw_name, ValueRange& out,
              ChakraWireError& error) {
        const bool decoded = io_.decode(io.values, io.shapes, io.types, out);
        if (!io_.last_side_copied() && !check_chakra_io_text(message, io, side_name, error)) return false;
        if (decoded) return true;
        // Not a literal we know: keep the three texts so a write gives them back.
        ++raw_sides_;
        Value texts;
        texts.kind = ValueKind::List;
        texts.payload.range = {static_cast<uint32_t>(trace_.values.size()), 3};
        for (std::string_view s : {io.values, io.shapes, io.types}) {
            Value v;
            v.kind = ValueKind::String;
            v.payload.str = trace_.strings.intern(s);
            trace_.values.push_back(v);
        }
        trace_.attrs.push_back({raw_name, texts});
        out = {static_cast<uint32_t>(trace_.values.size()), 0};
        return true;
    }

    Trace& trace_;
    ChakraAttrReader attrs_;
    ChakraIoDecoder io_;
    StrId rf_id_, fw_parent_, seq_id_, scope_, tid_, fw_tid_, op_schema_, raw_inputs_, raw_outputs_;
    size_t raw_sides_ = 0;
    size_t self_deps_ = 0;
};

// Returns false when an attribute's list payload is malformed.
bool read_metadata(Trace& trace, const ChakraMetadataView& meta) {
    trace.schema_version = std::string(meta.version);
    ChakraAttrReader reader(trace);
    for (size_t i = 0; i < meta.attrs.size(); ++i) {
        Attr a;
        if (!reader.read(meta.attrs[i], i, a)) return false;
        trace.metadata_attrs.push_back(a);
        // The ET header fields Chakra's converter copies into the metadata.
        const std::string_view name = meta.attrs[i].name;
        if (a.value.kind == ValueKind::Int) {
            if (name == "pid") trace.pid = a.value.payload.i;
            else if (name == "start_ts") trace.start_ts = a.value.payload.i;
            else if (name == "finish_ts") trace.finish_ts = a.value.payload.i;
            else if (name == "rank") {
                trace.rank = a.value.payload.i;
                trace.rank_source = "trace";
            }
            else if (name == "world_size") trace.world_size = a.value.payload.i;
        } else if (a.value.kind == ValueKind::String && name == "time") {
            trace.time = std::string(trace.str(a.value.payload.str));
        }
    }
    return true;
}

// A message that does not decode: the offset of its length prefix and its
// kind, or, for a string that is not UTF-8, the offset of the bad byte (the
// message ends where the reader stands) and the field.
ErrorLocation where(const ChakraFrameReader& frames, int64_t node_id, uint64_t prefix_offset, std::string_view message,
                    const char* kind, const ChakraWireError& error) {
    if (error.offset < 0) return {frames.path(), node_id, static_cast<int64_t>(prefix_offset), kind};
    const uint64_t message_offset = frames.position() - message.size();
    return {frames.path(), node_id, static_cast<int64_t>(message_offset) + error.offset, error.field};
}

// Sizes the columns from the file size, generously (fewer bytes per entry
// than real traces use), so they do not grow by copying: reserved capacity
// that is never touched costs address space, not memory (the big columns
// are mapped, on huge pages: see support/column_allocator.h). Past 256 MiB of
// input the columns grow as usual, to keep the reservation modest.
void reserve_for(Trace& trace, const ChakraFrameReader& frames) {
    uint64_t bytes = frames.is_gzip() ? frames.file_size() * 4 : frames.file_size();
    bytes = std::min<uint64_t>(bytes, uint64_t(256) << 20);
    if (bytes == 0) return;
    trace.nodes.reserve(bytes / 128);
    trace.edges.reserve(bytes / 8);
    trace.values.reserve(bytes / 16);
    trace.tensors.reserve(bytes / 64);
    trace.dims.reserve(bytes / 32);
    trace.attrs.reserve(bytes / 64);
}

}  // namespace

Trace read_chakra(const std::string& path, const ChakraReadOptions& options) {
    Trace trace;
    trace.source_path = path;
    trace.format = TraceFormat::Chakra;
    trace.rank = rank_from_file_name(path);
    if (trace.rank >= 0) trace.rank_source = "file name";

    ChakraFrameReader frames(path);
    reserve_for(trace, frames);
    std::string_view bytes;
    uint64_t offset = 0;
    if (!frames.next(bytes, offset)) fail({path, -1, 0, ""}, "empty file: a Chakra trace starts with a GlobalMetadata message");
    ChakraWireError error;
    ChakraMetadataView meta;
    if (!decode_chakra_metadata(bytes, meta, error) || (error.what = "bad attr list", !read_metadata(trace, meta)))
        fail(where(frames, -1, offset, bytes, "GlobalMetadata", error),
             "message 0 (" + std::to_string(bytes.size()) +
                 " bytes) does not parse as ChakraProtoMsg.GlobalMetadata: " + error.what);

    std::optional<Progress> progress;
    if (options.progress) progress.emplace("reading " + std::filesystem::path(path).filename().string(), frames.file_size());
    ChakraNodeConverter converter(trace);
    ChakraNodeView msg;  // reused: its vectors keep their capacity
    uint64_t index = 1;
    while (frames.next(bytes, offset)) {
        // An empty message is a node with no id, name or type: no writer makes one, and a run of
        // zero bytes (a gzip bomb of zeros) would otherwise read as a billion such nodes.
        if (bytes.empty())
            fail({path, -1, static_cast<int64_t>(offset), "Node"},
                 "message " + std::to_string(index) + " is empty (0 bytes): not a Chakra node");
        if (!decode_chakra_node(bytes, msg, error, IoTextCheck::ByCaller) || !converter.add(bytes, msg, error))
            fail(where(frames, msg.id ? static_cast<int64_t>(msg.id) : -1, offset, bytes, "Node", error),
                 "message " + std::to_string(index) + " (" + std::to_string(bytes.size()) +
                     " bytes) does not parse as ChakraProtoMsg.Node: " + error.what);
        if (progress && (index & 0xffff) == 0) progress->update(frames.file_position());
        ++index;
    }
    if (progress) progress->finish();
    if (converter.raw_sides() > 0)
        trace.warn(std::to_string(converter.raw_sides()) +
                   " inputs/outputs texts parse as neither JSON nor Python literals; kept raw in attrs " +
                   kChakraRawInputs + "/" + kChakraRawOutputs);
    trace.finalize();
    check_chakra_dependencies(trace, converter.self_deps());
    return trace;
}

}  // namespace mimic

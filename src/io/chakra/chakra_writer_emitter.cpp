#include "io/chakra/chakra_writer_emitter.h"

#include <string>

#include "et_def.pb.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_stream.h"
#include "support/error.h"

namespace mimic {

namespace {

using ChakraProtoMsg::AttributeProto;
using PbNode = ChakraProtoMsg::Node;

constexpr int kAttr = PbNode::kAttrFieldNumber;

// Encoded nodes are handed to the file once this many bytes are pending:
// few, large writes.
constexpr size_t kFlushBytes = size_t(4) << 20;

std::string_view view(const GrowBuffer& b) { return {b.data(), b.size()}; }

}  // namespace

void chakra_varint_attr(ChakraWireEncoder& out, int attr_field, std::string_view name, int value_field, uint64_t v) {
    const ChakraWireEncoder::Mark m = out.begin_message(attr_field);
    if (!name.empty()) out.bytes_field(AttributeProto::kNameFieldNumber, name);
    out.varint_field(value_field, v);
    out.end_message(m);
}

void chakra_string_attr(ChakraWireEncoder& out, int attr_field, std::string_view name, std::string_view v) {
    const ChakraWireEncoder::Mark m = out.begin_message(attr_field);
    if (!name.empty()) out.bytes_field(AttributeProto::kNameFieldNumber, name);
    out.bytes_field(AttributeProto::kStringValFieldNumber, v);  // a oneof member: written even when empty
    out.end_message(m);
}

void chakra_value_attr(ChakraWireEncoder& out, ChakraAttrWriter& writer, int attr_field, std::string_view name,
                       const Value& v) {
    const ChakraWireEncoder::Mark m = out.begin_message(attr_field);
    if (!name.empty()) out.bytes_field(AttributeProto::kNameFieldNumber, name);
    writer.write(v, out);
    out.end_message(m);
}

ChakraNodeEmitter::ChakraNodeEmitter(const Trace& trace, ChakraOutputFile& file)
    : trace_(trace), file_(file), attrs_(trace), io_(trace), raw_inputs_(trace.strings.find(kChakraRawInputs)),
      raw_outputs_(trace.strings.find(kChakraRawOutputs)) {
    // Attributes mimic sets itself; an ET attr of the same name is not copied.
    for (const char* name : {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema", "is_cpu_op",
                             "comm_type", "comm_size", "pg_name", "comm_src", "comm_dst", "comm_tag", "num_ops",
                             "tensor_size", "stream"}) {
        StrId id = trace.strings.find(name);
        if (id.value != 0) reserved_.push_back(id);
    }
}

void ChakraNodeEmitter::begin(uint64_t id, std::string_view name, ChakraNodeType type, ChakraWriteStats& stats) {
    record_ = out_.begin_record();
    id_ = id;
    // proto3 leaves out zero and empty fields.
    if (id) out_.varint_field(PbNode::kIdFieldNumber, id);
    if (!name.empty()) out_.bytes_field(PbNode::kNameFieldNumber, name);
    if (type != ChakraNodeType::Invalid) out_.int32_field(PbNode::kTypeFieldNumber, static_cast<int32_t>(type));
    ++stats.nodes;
    switch (type) {
        case ChakraNodeType::Comp: ++stats.comp_nodes; break;
        case ChakraNodeType::CommColl: ++stats.comm_coll_nodes; break;
        case ChakraNodeType::CommSend:
        case ChakraNodeType::CommRecv: ++stats.comm_send_recv_nodes; break;
        default: break;
    }
}

void ChakraNodeEmitter::times(uint64_t start_us, uint64_t duration_us) {
    if (start_us) out_.varint_field(PbNode::kStartTimeMicrosFieldNumber, start_us);
    if (duration_us) out_.varint_field(PbNode::kDurationMicrosFieldNumber, duration_us);
}

void ChakraNodeEmitter::inputs_outputs(const Node& n) {
    side(n.inputs, raw_inputs_, n, PbNode::kInputsFieldNumber);
    side(n.outputs, raw_outputs_, n, PbNode::kOutputsFieldNumber);
}

void ChakraNodeEmitter::attr_int64(std::string_view name, int64_t v) {
    chakra_varint_attr(out_, kAttr, name, AttributeProto::kInt64ValFieldNumber, static_cast<uint64_t>(v));
}

// int32 values are sign-extended on the wire, as protobuf writes them.
void ChakraNodeEmitter::attr_int32(std::string_view name, int64_t v) {
    chakra_varint_attr(out_, kAttr, name, AttributeProto::kInt32ValFieldNumber,
                       static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))));
}

void ChakraNodeEmitter::attr_uint64(std::string_view name, uint64_t v) {
    chakra_varint_attr(out_, kAttr, name, AttributeProto::kUint64ValFieldNumber, v);
}

void ChakraNodeEmitter::attr_bool(std::string_view name, bool v) {
    chakra_varint_attr(out_, kAttr, name, AttributeProto::kBoolValFieldNumber, v);
}

void ChakraNodeEmitter::attr_string(std::string_view name, std::string_view v) {
    chakra_string_attr(out_, kAttr, name, v);
}

void ChakraNodeEmitter::pytorch_fields(const Node& n) {
    attr_int64("rf_id", static_cast<int64_t>(n.rf_id));
    attr_int64("fw_parent", static_cast<int64_t>(n.fw_parent));
    attr_int64("seq_id", n.seq_id);
    attr_int64("scope", n.scope);
    attr_int64("tid", static_cast<int64_t>(n.tid));
    attr_int64("fw_tid", static_cast<int64_t>(n.fw_tid));
    attr_string("op_schema", trace_.str(n.op_schema));
}

void ChakraNodeEmitter::other_attrs(const Node& n, bool skip_reserved) {
    for (uint32_t i = 0; i < n.attrs.count; ++i) {
        const Attr& a = trace_.attrs[n.attrs.begin + i];
        if (a.name == raw_inputs_ || a.name == raw_outputs_) continue;
        if (skip_reserved && is_reserved(a.name)) continue;
        // An empty string says nothing (kernel_backend "" on every ATen op); Chakra leaves such attrs out.
        if (skip_reserved && a.value.kind == ValueKind::String && a.value.payload.str.value == 0) continue;
        chakra_value_attr(out_, attrs_, kAttr, trace_.str(a.name), a.value);
    }
}

void ChakraNodeEmitter::comm(const CommInfo& c, ChakraNodeType type, int64_t rank) {
    if (type == ChakraNodeType::CommColl && c.type != CollectiveType::Unknown)
        attr_int64("comm_type", static_cast<int64_t>(c.type));
    if (c.size_bytes >= 0) attr_int64("comm_size", c.size_bytes);
    if (c.pg_name.value != 0) attr_string("pg_name", trace_.str(c.pg_name));
    if (type == ChakraNodeType::CommSend) {
        if (rank >= 0) attr_int32("comm_src", rank);
        if (c.peer >= 0) attr_int32("comm_dst", c.peer);
    } else if (type == ChakraNodeType::CommRecv) {
        if (c.peer >= 0) attr_int32("comm_src", c.peer);
        if (rank >= 0) attr_int32("comm_dst", rank);
    }
    if ((type == ChakraNodeType::CommSend || type == ChakraNodeType::CommRecv) && c.tag >= 0)
        attr_int32("comm_tag", c.tag);
}

void ChakraNodeEmitter::end() {
    const size_t length = out_.end_record(record_);
    if (length > ChakraFrameReader::kMaxMessageBytes)
        fail({file_.path(), static_cast<int64_t>(id_), -1, ""},
             "node of " + std::to_string(length) + " bytes is over the 1 GiB limit of a Chakra message");
    if (out_.size() >= kFlushBytes) flush();
}

void ChakraNodeEmitter::flush() {
    file_.write(out_.data(), out_.size());
    out_.clear();
}

bool ChakraNodeEmitter::is_reserved(StrId name) const {
    for (StrId r : reserved_)
        if (r == name) return true;
    return false;
}

void ChakraNodeEmitter::side(ValueRange values, StrId raw_name, const Node& n, int field) {
    if (raw_name.value != 0) {
        for (uint32_t i = 0; i < n.attrs.count; ++i) {
            const Attr& a = trace_.attrs[n.attrs.begin + i];
            if (a.name != raw_name || a.value.kind != ValueKind::List || a.value.payload.range.count != 3) continue;
            // Texts the reader could not parse: written back as they came.
            const uint32_t b = a.value.payload.range.begin;
            io_info(field, trace_.str(trace_.values[b].payload.str), trace_.str(trace_.values[b + 1].payload.str),
                    trace_.str(trace_.values[b + 2].payload.str));
            return;
        }
    }
    if (values.count == 0) return;
    io_.encode(values, values_, shapes_, types_);
    io_info(field, view(values_), view(shapes_), view(types_));
}

// An IOInfo message; its size is known beforehand, so no length is patched.
void ChakraNodeEmitter::io_info(int field, std::string_view values, std::string_view shapes, std::string_view types) {
    const std::string_view texts[3] = {values, shapes, types};
    size_t length = 0;
    for (std::string_view t : texts)
        if (!t.empty()) length += 1 + varint_size(t.size()) + t.size();
    out_.length_header(field, length);
    for (int k = 0; k < 3; ++k)
        if (!texts[k].empty()) out_.bytes_field(ChakraProtoMsg::IOInfo::kValuesFieldNumber + k, texts[k]);
}

}  // namespace mimic

#include "io/chakra_writer.h"

#include <filesystem>
#include <memory>
#include <optional>
#include <system_error>

#include "et_def.pb.h"
#include "io/chakra_attrs.h"
#include "io/chakra_convert.h"
#include "io/chakra_reader.h"
#include "io/chakra_stream.h"
#include "io/chakra_values.h"
#include "support/error.h"
#include "support/progress.h"

namespace mimic {

namespace {

using ChakraProtoMsg::AttributeProto;

// Fills one reused Node message per Chakra node: Clear() keeps the
// message's strings and repeated fields allocated, so writing millions of
// nodes allocates almost nothing.
class NodeEmitter {
public:
    explicit NodeEmitter(const Trace& trace)
        : trace_(trace), attrs_(trace), io_(trace), raw_inputs_(trace.strings.find(kChakraRawInputs)),
          raw_outputs_(trace.strings.find(kChakraRawOutputs)) {
        // Attributes mimic sets itself; an ET attr of the same name is not copied.
        for (const char* name : {"rf_id", "fw_parent", "seq_id", "scope", "tid", "fw_tid", "op_schema", "is_cpu_op",
                                 "comm_type", "comm_size", "pg_name", "comm_src", "comm_dst", "comm_tag", "num_ops",
                                 "tensor_size", "stream"}) {
            StrId id = trace.strings.find(name);
            if (id.value != 0) reserved_.push_back(id);
        }
    }

    ChakraProtoMsg::Node& msg() { return *msg_; }

    void begin(uint64_t id, std::string_view name, ChakraNodeType type, uint64_t start_us, uint64_t duration_us) {
        // One message for all nodes: Clear() keeps its strings' and repeated
        // fields' storage. (An arena was tried: its cleanup list cost more
        // than the mallocs it saved.)
        msg_->Clear();
        msg_->set_id(id);
        msg_->set_name(name.data(), name.size());
        msg_->set_type(static_cast<ChakraProtoMsg::NodeType>(type));
        if (start_us) msg_->set_start_time_micros(start_us);
        if (duration_us) msg_->set_duration_micros(duration_us);
    }

    AttributeProto& attr(const char* name) {
        AttributeProto* a = msg_->add_attr();
        a->set_name(name);
        return *a;
    }
    void attr_int64(const char* name, int64_t v) { attr(name).set_int64_val(v); }
    void attr_int32(const char* name, int64_t v) { attr(name).set_int32_val(static_cast<int32_t>(v)); }
    void attr_uint64(const char* name, uint64_t v) { attr(name).set_uint64_val(v); }
    void attr_bool(const char* name, bool v) { attr(name).set_bool_val(v); }
    void attr_string(const char* name, std::string_view v) { attr(name).set_string_val(v.data(), v.size()); }

    // The ET fields Chakra's converter copies, with its types.
    void pytorch_fields(const Node& n) {
        attr_int64("rf_id", static_cast<int64_t>(n.rf_id));
        attr_int64("fw_parent", static_cast<int64_t>(n.fw_parent));
        attr_int64("seq_id", n.seq_id);
        attr_int64("scope", n.scope);
        attr_int64("tid", static_cast<int64_t>(n.tid));
        attr_int64("fw_tid", static_cast<int64_t>(n.fw_tid));
        attr_string("op_schema", trace_.str(n.op_schema));
    }

    void inputs_outputs(const Node& n) {
        side(n.inputs, raw_inputs_, n, [&] { return msg_->mutable_inputs(); });
        side(n.outputs, raw_outputs_, n, [&] { return msg_->mutable_outputs(); });
    }

    // The node's other attributes; `skip_reserved` leaves out those mimic sets.
    void other_attrs(const Node& n, bool skip_reserved) {
        for (uint32_t i = 0; i < n.attrs.count; ++i) {
            const Attr& a = trace_.attrs[n.attrs.begin + i];
            if (a.name == raw_inputs_ || a.name == raw_outputs_) continue;
            if (skip_reserved && is_reserved(a.name)) continue;
            // An empty string says nothing (kernel_backend "" on every ATen op); Chakra leaves such attrs out.
            if (skip_reserved && a.value.kind == ValueKind::String && a.value.payload.str.value == 0) continue;
            AttributeProto* p = msg_->add_attr();
            const std::string_view name = trace_.str(a.name);
            p->set_name(name.data(), name.size());
            attrs_.write(a.value, *p);
        }
    }

    void comm(const CommInfo& c, ChakraNodeType type, int64_t rank) {
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

private:
    bool is_reserved(StrId name) const {
        for (StrId r : reserved_)
            if (r == name) return true;
        return false;
    }

    template <typename MutableIo>
    void side(ValueRange values, StrId raw_name, const Node& n, MutableIo&& mutable_io) {
        if (raw_name.value != 0) {
            for (uint32_t i = 0; i < n.attrs.count; ++i) {
                const Attr& a = trace_.attrs[n.attrs.begin + i];
                if (a.name != raw_name || a.value.kind != ValueKind::List || a.value.payload.range.count != 3) continue;
                // Texts the reader could not parse: written back as they came.
                ChakraProtoMsg::IOInfo* io = mutable_io();
                const uint32_t b = a.value.payload.range.begin;
                io->set_values(std::string(trace_.str(trace_.values[b].payload.str)));
                io->set_shapes(std::string(trace_.str(trace_.values[b + 1].payload.str)));
                io->set_types(std::string(trace_.str(trace_.values[b + 2].payload.str)));
                return;
            }
        }
        if (values.count == 0) return;
        ChakraProtoMsg::IOInfo* io = mutable_io();
        io_.encode(values, *io->mutable_values(), *io->mutable_shapes(), *io->mutable_types());
    }

    const Trace& trace_;
    ChakraAttrWriter attrs_;
    ChakraIoEncoder io_;
    std::unique_ptr<ChakraProtoMsg::Node> msg_ = std::make_unique<ChakraProtoMsg::Node>();
    StrId raw_inputs_, raw_outputs_;
    std::vector<StrId> reserved_;
};

void count(ChakraWriteStats& stats, const ChakraProtoMsg::Node& msg) {
    ++stats.nodes;
    switch (msg.type()) {
        case ChakraProtoMsg::COMP_NODE: ++stats.comp_nodes; break;
        case ChakraProtoMsg::COMM_COLL_NODE: ++stats.comm_coll_nodes; break;
        case ChakraProtoMsg::COMM_SEND_NODE:
        case ChakraProtoMsg::COMM_RECV_NODE: ++stats.comm_send_recv_nodes; break;
        default: break;
    }
    stats.ctrl_deps += static_cast<uint64_t>(msg.ctrl_deps_size());
    stats.data_deps += static_cast<uint64_t>(msg.data_deps_size());
}

void write_metadata(const Trace& trace, ChakraFrameWriter& out) {
    ChakraProtoMsg::GlobalMetadata meta;
    if (trace.format == TraceFormat::Chakra) {
        meta.set_version(trace.schema_version);
        ChakraAttrWriter writer(trace);
        for (const Attr& a : trace.metadata_attrs) {
            AttributeProto* p = meta.add_attr();
            p->set_name(std::string(trace.str(a.name)));
            writer.write(a.value, *p);
        }
    } else {
        // The ET header, as Chakra's converter records it.
        meta.set_version(kChakraSchemaVersion);
        auto add = [&](const char* name) {
            AttributeProto* p = meta.add_attr();
            p->set_name(name);
            return p;
        };
        add("schema")->set_string_val(trace.schema_version);
        add("pid")->set_uint64_val(static_cast<uint64_t>(trace.pid));
        add("time")->set_string_val(trace.time);
        add("start_ts")->set_uint64_val(static_cast<uint64_t>(trace.start_ts));
        add("finish_ts")->set_uint64_val(static_cast<uint64_t>(trace.finish_ts));
        if (trace.rank >= 0) add("rank")->set_int64_val(trace.rank);
        if (trace.world_size >= 0) add("world_size")->set_int64_val(trace.world_size);
    }
    out.write(meta);
}

void write_chakra_nodes(const Trace& trace, NodeEmitter& em, ChakraFrameWriter& out, ChakraWriteStats& stats,
                        std::optional<Progress>& progress) {
    const bool linked = trace.timing.size() == trace.nodes.size();
    for (size_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& n = trace.nodes[i];
        uint64_t start = n.chakra_start_us, duration = n.chakra_duration_us;
        if (linked && trace.timing[i].linked()) {
            start = trace.timing[i].start_us > 0 ? static_cast<uint64_t>(trace.timing[i].start_us + 0.5) : 0;
            duration = trace.timing[i].duration_us > 0 ? static_cast<uint64_t>(trace.timing[i].duration_us + 0.5) : 0;
        }
        em.begin(n.id.value, trace.str(n.name), n.chakra_type, start, duration);
        for (uint32_t k = 0; k < n.deps.count; ++k) em.msg().add_ctrl_deps(trace.edges[n.deps.begin + k].value);
        for (uint32_t k = 0; k < n.data_deps.count; ++k)
            em.msg().add_data_deps(trace.edges[n.data_deps.begin + k].value);
        em.inputs_outputs(n);
        em.other_attrs(n, false);
        if (n.kind != NodeKind::Unknown) em.pytorch_fields(n);
        out.write(em.msg());
        count(stats, em.msg());
        if (progress && (i & 0xffff) == 0) progress->update(i);
    }
}

void write_converted_nodes(const Trace& trace, NodeEmitter& em, ChakraFrameWriter& out, ChakraWriteStats& stats,
                           std::optional<Progress>& progress) {
    const ChakraPlan plan = plan_chakra_nodes(trace);
    stats.et_nodes_skipped = plan.et_nodes_skipped;
    stats.unlinked_events = plan.unlinked_events;
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
        const ChakraPlanNode& p = plan.nodes[i];
        const bool device = p.device_event != UINT32_MAX;
        const std::string_view name =
            device ? trace.str(trace.device_events[p.device_event].name) : trace.str(trace.nodes[p.source].name);
        em.begin(p.id, name, p.type, p.start_us, p.duration_us);
        for (uint32_t k = 0; k < p.ctrl_count; ++k) em.msg().add_ctrl_deps(plan.edges[p.ctrl_begin + k]);
        for (uint32_t k = 0; k < p.data_count; ++k) em.msg().add_data_deps(plan.edges[p.data_begin + k]);
        em.attr_bool("is_cpu_op", p.is_cpu_op);
        if (device) {
            const DeviceEvent& ev = trace.device_events[p.device_event];
            if (ev.stream >= 0) em.attr_int64("stream", ev.stream);
            ++stats.device_nodes;
        } else {
            const Node& n = trace.nodes[p.source];
            em.inputs_outputs(n);
            em.pytorch_fields(n);
        }
        if (p.type != ChakraNodeType::Comp) em.comm(p.comm, p.type, trace.rank);
        if (p.num_ops >= 0) em.attr_int64("num_ops", p.num_ops);
        if (!device) {
            em.attr_uint64("tensor_size", p.tensor_size);
            em.other_attrs(trace.nodes[p.source], true);
        }
        out.write(em.msg());
        count(stats, em.msg());
        if (progress && (i & 0xffff) == 0) progress->update(i);
    }
}

}  // namespace

std::string chakra_output_path(const std::string& prefix, int64_t rank) {
    return prefix + "." + std::to_string(rank < 0 ? 0 : rank) + ".et";
}

ChakraWriteStats write_chakra(const Trace& trace, const std::string& prefix, const ChakraWriteOptions& options) {
    ChakraWriteStats stats;
    stats.path = chakra_output_path(prefix, trace.rank);
    const std::filesystem::path parent = std::filesystem::path(stats.path).parent_path();
    std::error_code ec;
    if (!parent.empty()) std::filesystem::create_directories(parent, ec);
    if (ec) fail({stats.path, -1, -1, ""}, "cannot create directory " + parent.string() + ": " + ec.message());

    ChakraFrameWriter out(stats.path);
    write_metadata(trace, out);
    NodeEmitter emitter(trace);
    std::optional<Progress> progress;
    if (options.progress)
        progress.emplace("writing " + std::filesystem::path(stats.path).filename().string(), trace.nodes.size(),
                         " nodes");
    if (trace.format == TraceFormat::Chakra)
        write_chakra_nodes(trace, emitter, out, stats, progress);
    else
        write_converted_nodes(trace, emitter, out, stats, progress);
    if (progress) progress->finish();
    out.close();
    stats.bytes = out.bytes_written();
    return stats;
}

}  // namespace mimic

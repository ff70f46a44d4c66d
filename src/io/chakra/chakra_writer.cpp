#include "io/chakra/chakra_writer.h"

#include <cmath>

#include <filesystem>
#include <optional>
#include <system_error>

#include "et_def.pb.h"  // field numbers only
#include "io/chakra/chakra_convert.h"
#include "io/chakra/chakra_writer_emitter.h"
#include "support/error.h"
#include "support/progress.h"

namespace mimic {

namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::GlobalMetadata;
using PbNode = ChakraProtoMsg::Node;

void write_metadata(const Trace& trace, ChakraWireEncoder& out) {
    constexpr int kAttr = GlobalMetadata::kAttrFieldNumber;
    const ChakraWireEncoder::Mark record = out.begin_record();
    if (trace.format == TraceFormat::Chakra) {
        if (!trace.schema_version.empty()) out.bytes_field(GlobalMetadata::kVersionFieldNumber, trace.schema_version);
        ChakraAttrWriter writer(trace);
        for (const Attr& a : trace.metadata_attrs) chakra_value_attr(out, writer, kAttr, trace.str(a.name), a.value);
    } else {
        // The ET header, as Chakra's converter records it.
        auto uint64_attr = [&](const char* name, int64_t v) {
            chakra_varint_attr(out, kAttr, name, AttributeProto::kUint64ValFieldNumber, static_cast<uint64_t>(v));
        };
        auto int64_attr = [&](const char* name, int64_t v) {
            chakra_varint_attr(out, kAttr, name, AttributeProto::kInt64ValFieldNumber, static_cast<uint64_t>(v));
        };
        out.bytes_field(GlobalMetadata::kVersionFieldNumber, kChakraSchemaVersion);
        chakra_string_attr(out, kAttr, "schema", trace.schema_version);
        uint64_attr("pid", trace.pid);
        chakra_string_attr(out, kAttr, "time", trace.time);
        uint64_attr("start_ts", trace.start_ts);
        uint64_attr("finish_ts", trace.finish_ts);
        if (trace.rank >= 0) int64_attr("rank", trace.rank);
        if (trace.world_size >= 0) int64_attr("world_size", trace.world_size);
    }
    out.end_record(record);
}

void write_chakra_nodes(const Trace& trace, ChakraNodeEmitter& em, ChakraWriteStats& stats,
                        std::optional<Progress>& progress) {
    const bool linked = trace.timing.size() == trace.nodes.size();
    const NodeId* edges = trace.edges.data();
    for (size_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& n = trace.nodes[i];
        uint64_t start = n.chakra_start_us, duration = n.chakra_duration_us;
        if (linked && trace.timing[i].linked()) {
            start = trace.timing[i].start_us > 0 ? static_cast<uint64_t>(trace.timing[i].start_us + 0.5) : 0;
            duration = trace.timing[i].duration_us > 0 ? static_cast<uint64_t>(trace.timing[i].duration_us + 0.5) : 0;
        }
        em.begin(n.id.value, trace.str(n.name), n.chakra_type, stats);
        em.deps(PbNode::kCtrlDepsFieldNumber, n.deps.count, [&](size_t k) { return edges[n.deps.begin + k].value; });
        em.deps(PbNode::kDataDepsFieldNumber, n.data_deps.count,
                [&](size_t k) { return edges[n.data_deps.begin + k].value; });
        stats.ctrl_deps += n.deps.count;
        stats.data_deps += n.data_deps.count;
        em.times(start, duration);
        em.inputs_outputs(n);
        em.other_attrs(n, false);
        if (n.kind != NodeKind::Unknown) em.pytorch_fields(n);
        em.end();
        if (progress && (i & 0xffff) == 0) progress->update(i);
    }
}

void write_converted_nodes(const Trace& trace, ChakraNodeEmitter& em, ChakraWriteStats& stats,
                           std::optional<Progress>& progress, const ChakraWriteOptions& options) {
    const ChakraPlan plan = plan_chakra_nodes(trace);
    stats.et_nodes_skipped = plan.et_nodes_skipped;
    stats.unlinked_events = plan.unlinked_events;
    const uint64_t* edges = plan.edges.data();
    for (size_t i = 0; i < plan.nodes.size(); ++i) {
        const ChakraPlanNode& p = plan.nodes[i];
        const bool device = p.device_event != UINT32_MAX;
        em.begin(p.id, plan_node_name(trace, p), p.type, stats);
        em.deps(PbNode::kCtrlDepsFieldNumber, p.ctrl_count, [&](size_t k) { return edges[p.ctrl_begin + k]; });
        em.deps(PbNode::kDataDepsFieldNumber, p.data_count, [&](size_t k) { return edges[p.data_begin + k]; });
        stats.ctrl_deps += p.ctrl_count;
        stats.data_deps += p.data_count;
        uint64_t duration_us = p.duration_us;
        if (duration_us == 0 && !device && options.host_op_us && p.type == ChakraNodeType::Comp) {
            duration_us = static_cast<uint64_t>(std::llround(options.host_op_us(trace, p.source)));
            ++stats.modelled_durations;
        }
        em.times(p.start_us, duration_us);
        if (!device) em.inputs_outputs(trace.nodes[p.source]);
        em.attr_bool("is_cpu_op", p.is_cpu_op);
        if (device) {
            const DeviceEvent& ev = trace.device_events[p.device_event];
            if (ev.stream >= 0) em.attr_int64("stream", ev.stream);
            ++stats.device_nodes;
        } else {
            em.pytorch_fields(trace.nodes[p.source]);
        }
        if (p.type != ChakraNodeType::Comp) em.comm(p.comm, p.type, trace.rank);
        if (p.num_ops >= 0) em.attr_int64("num_ops", p.num_ops);
        if (!device) {
            em.attr_uint64("tensor_size", p.tensor_size);
            em.other_attrs(trace.nodes[p.source], true);
        }
        em.end();
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

    ChakraOutputFile file(stats.path);
    ChakraNodeEmitter emitter(trace, file);
    write_metadata(trace, emitter.out());
    std::optional<Progress> progress;
    if (options.progress)
        progress.emplace("writing " + std::filesystem::path(stats.path).filename().string(), trace.nodes.size(),
                         " nodes");
    if (trace.format == TraceFormat::Chakra)
        write_chakra_nodes(trace, emitter, stats, progress);
    else
        write_converted_nodes(trace, emitter, stats, progress, options);
    if (progress) progress->finish();
    emitter.flush();
    file.close();
    stats.bytes = file.bytes_written();
    return stats;
}

}  // namespace mimic

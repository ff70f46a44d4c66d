#include "compose/generate_from.h"

#include <cmath>
#include <cstdio>

#include "et_def.pb.h"  // field numbers only
#include "io/chakra/chakra_writer.h"
#include "io/chakra/chakra_writer_emitter.h"
#include "sim/trace_workload.h"
#include "support/error.h"
#include "support/json_writer.h"

namespace mimic::compose {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::GlobalMetadata;
using PbNode = ChakraProtoMsg::Node;

constexpr int kAttr = PbNode::kAttrFieldNumber;

void int64_attr(ChakraWireEncoder& out, const char* name, int64_t v) {
    chakra_varint_attr(out, kAttr, name, AttributeProto::kInt64ValFieldNumber, static_cast<uint64_t>(v));
}
void int32_attr(ChakraWireEncoder& out, const char* name, int64_t v) {
    chakra_varint_attr(out, kAttr, name, AttributeProto::kInt32ValFieldNumber,
                       static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))));
}

bool is_comm(const sim::WorkloadNode& n) {
    return n.type == ChakraNodeType::CommColl || n.type == ChakraNodeType::CommSend || n.type == ChakraNodeType::CommRecv;
}

}  // namespace

void encode_rank_graph(const sim::RankGraph& graph, ChakraWireEncoder& out) {
    out.clear();
    {
        const ChakraWireEncoder::Mark m = out.begin_record();
        out.bytes_field(GlobalMetadata::kVersionFieldNumber, kChakraSchemaVersion);
        chakra_string_attr(out, GlobalMetadata::kAttrFieldNumber, "generator", "mimic generate --from");
        out.end_record(m);
    }
    // The graph keeps children; the file states parents.
    std::vector<std::vector<uint64_t>> parents(graph.nodes.size());
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const sim::WorkloadNode& n = graph.nodes[i];
        for (uint32_t c = 0; c < n.children_count; ++c) parents[graph.children[n.children_begin + c]].push_back(n.id);
    }
    for (size_t i = 0; i < graph.nodes.size(); ++i) {
        const sim::WorkloadNode& n = graph.nodes[i];
        const ChakraWireEncoder::Mark m = out.begin_record();
        if (n.id) out.varint_field(PbNode::kIdFieldNumber, n.id);
        if (n.type != ChakraNodeType::Invalid) out.int32_field(PbNode::kTypeFieldNumber, static_cast<int32_t>(n.type));
        const std::vector<uint64_t>& deps = parents[i];
        out.packed_varints(PbNode::kDataDepsFieldNumber, deps.size(), [&](size_t k) { return deps[k]; });
        const uint64_t us = n.duration_ns ? static_cast<uint64_t>(std::llround(static_cast<double>(n.duration_ns) / 1000.0)) : n.duration_us;
        if (us) out.varint_field(PbNode::kDurationMicrosFieldNumber, us);
        chakra_varint_attr(out, kAttr, "is_cpu_op", AttributeProto::kBoolValFieldNumber, n.is_cpu_op ? 1 : 0);
        // Written whatever the node type: a converted trace sets them on communication too.
        if (n.num_ops) int64_attr(out, "num_ops", static_cast<int64_t>(n.num_ops));
        if (n.tensor_size) chakra_varint_attr(out, kAttr, "tensor_size", AttributeProto::kUint64ValFieldNumber, n.tensor_size);
        if (is_comm(n)) {
            if (n.type == ChakraNodeType::CommColl) int64_attr(out, "comm_type", static_cast<int64_t>(n.comm_type));
            int64_attr(out, "comm_size", static_cast<int64_t>(n.comm_size));
            if (n.comm_priority) int64_attr(out, "comm_priority", n.comm_priority);
            if (n.comm_group) chakra_string_attr(out, kAttr, "pg_name", std::to_string(n.comm_group));
            if (n.comm_src >= 0) int32_attr(out, "comm_src", n.comm_src);
            if (n.comm_dst >= 0) int32_attr(out, "comm_dst", n.comm_dst);
            if (n.type != ChakraNodeType::CommColl) int32_attr(out, "comm_tag", n.comm_tag);
        }
        if (n.involved_count) {
            const ChakraWireEncoder::Mark a = out.begin_message(kAttr);
            out.bytes_field(AttributeProto::kNameFieldNumber, "involved_dim");
            const ChakraWireEncoder::Mark list = out.begin_message(AttributeProto::kBoolListFieldNumber);
            out.packed_varints(1, n.involved_count, [&](size_t k) { return static_cast<uint64_t>(graph.involved_dims[n.involved_begin + k]); });
            out.end_message(list);
            out.end_message(a);
        }
        out.end_record(m);
    }
}

FromTraceResult expand_trace(const std::string& trace, const std::string& profile, int64_t ranks, const std::string& prefix,
                             int threads) {
    FromTraceResult r;
    if (ranks > (int64_t(1) << 24)) fail({"--ranks", -1, -1, ""}, "at most 16,777,216 ranks");
    sim::TraceWorkload recorded = sim::read_trace_workload({trace}, profile);
    r.notes = recorded.notes;
    if (recorded.graphs.empty()) fail({trace, -1, -1, ""}, "holds no rank's trace");
    if (recorded.graphs.size() > 1)
        r.notes.push_back(trace + ": a recording of " + std::to_string(recorded.graphs.size()) + " ranks; rank 0's trace is expanded");
    const std::vector<sim::SharedGraph> graphs = sim::replicate_ranks(recorded.graphs[0], static_cast<int>(ranks), r.notes);
    const sim::RankGraph& graph = *graphs[0];

    RankFilesJob job;
    job.prefix = prefix;
    job.ranks = ranks;
    job.threads = threads;
    job.key = [](int64_t) { return std::string(); };  // every rank runs the same graph
    job.encode = [&graph](int64_t, ChakraWireEncoder& out) { encode_rank_graph(graph, out); };
    r.files = write_rank_files(job);

    uint64_t coll = 0, coll_bytes = 0;
    for (const sim::WorkloadNode& n : graph.nodes)
        if (n.type == ChakraNodeType::CommColl) ++coll, coll_bytes += n.comm_size;
    char line[512];
    std::snprintf(line, sizeof line, "%s on %lld ranks: %lld files %s.<rank>.et, %zu nodes and %llu collectives (%llu bytes) each\n",
                  trace.c_str(), static_cast<long long>(ranks), static_cast<long long>(r.files.files), prefix.c_str(), graph.nodes.size(),
                  static_cast<unsigned long long>(coll), static_cast<unsigned long long>(coll_bytes));
    r.table = line;
    JsonWriter j;
    j.begin_object();
    j.field("from", trace).field("ranks", static_cast<long long>(ranks));
    j.field("file_pattern", prefix + ".<rank>.et").field("files", static_cast<long long>(r.files.files));
    j.field("total_bytes", static_cast<unsigned long long>(r.files.bytes));
    j.field("file_bytes", static_cast<unsigned long long>(r.files.file_bytes.empty() ? 0 : r.files.file_bytes[0]));
    j.field("nodes", static_cast<unsigned long long>(graph.nodes.size()));
    j.field("collectives", static_cast<unsigned long long>(coll)).field("collective_bytes", static_cast<unsigned long long>(coll_bytes));
    j.key("notes").begin_array();
    for (const std::string& n : r.notes) j.value(n);
    j.end_array();
    j.end_object();
    r.json = j.str() + "\n";
    return r;
}

}  // namespace mimic::compose

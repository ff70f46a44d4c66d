#include "compose/generate_chakra.h"

#include <array>

#include "et_def.pb.h"  // field numbers only
#include "io/chakra/chakra_writer.h"
#include "io/chakra/chakra_writer_emitter.h"
#include "support/output.h"

namespace mimic::compose {
namespace {

using ChakraProtoMsg::AttributeProto;
using ChakraProtoMsg::GlobalMetadata;
using PbNode = ChakraProtoMsg::Node;

constexpr int kAttr = PbNode::kAttrFieldNumber;

ChakraNodeType node_type(GenOpKind k) {
    switch (k) {
        case GenOpKind::Compute: return ChakraNodeType::Comp;
        case GenOpKind::Collective: return ChakraNodeType::CommColl;
        case GenOpKind::Send: return ChakraNodeType::CommSend;
        case GenOpKind::Recv: return ChakraNodeType::CommRecv;
    }
    return ChakraNodeType::Invalid;
}

void int64_attr(ChakraWireEncoder& out, const char* name, int64_t v) {
    chakra_varint_attr(out, kAttr, name, AttributeProto::kInt64ValFieldNumber, static_cast<uint64_t>(v));
}
// int32 values are sign-extended on the wire, as protobuf writes them.
void int32_attr(ChakraWireEncoder& out, const char* name, int64_t v) {
    chakra_varint_attr(out, kAttr, name, AttributeProto::kInt32ValFieldNumber,
                       static_cast<uint64_t>(static_cast<int64_t>(static_cast<int32_t>(v))));
}

}  // namespace

std::string comm_groups_path(const std::string& prefix) { return prefix + ".comm_groups.json"; }

std::string generated_rank_key(const GenWorkload& w, int64_t rank) {
    const RankProgram& p = w.program(rank);
    std::string key = std::to_string(w.program_of_rank[static_cast<size_t>(rank)]);
    for (GenGroup g : p.groups_used()) key += "," + std::to_string(w.layout.group_id(g, rank));
    if (p.has_point_to_point()) key += ",r" + std::to_string(rank);
    return key;
}

void encode_generated_rank(const GenWorkload& w, int64_t rank, ChakraWireEncoder& out) {
    const RankProgram& p = w.program(rank);
    out.clear();
    {
        const ChakraWireEncoder::Mark m = out.begin_record();
        out.bytes_field(GlobalMetadata::kVersionFieldNumber, kChakraSchemaVersion);
        chakra_string_attr(out, GlobalMetadata::kAttrFieldNumber, "generator",
                           std::string("mimic generate ") + gen_model_name(w.options.model));
        out.end_record(m);
    }
    std::array<std::string, kGenGroupKinds> pg;
    for (size_t g = 0; g < kGenGroupKinds; ++g) {
        const int64_t id = w.layout.group_id(static_cast<GenGroup>(g), rank);
        if (id != 0) pg[g] = std::to_string(id);
    }
    for (size_t i = 0; i < p.ops.size(); ++i) {
        const GenOp& op = p.ops[i];
        const ChakraWireEncoder::Mark m = out.begin_record();
        if (i) out.varint_field(PbNode::kIdFieldNumber, i);
        out.bytes_field(PbNode::kNameFieldNumber, op.name);
        out.int32_field(PbNode::kTypeFieldNumber, static_cast<int32_t>(node_type(op.kind)));
        const OpRef* deps = p.deps.data() + op.deps_begin;
        out.packed_varints(PbNode::kDataDepsFieldNumber, op.deps_count, [&](size_t k) { return static_cast<uint64_t>(deps[k]); });
        if (op.duration_us) out.varint_field(PbNode::kDurationMicrosFieldNumber, op.duration_us);
        chakra_varint_attr(out, kAttr, "is_cpu_op", AttributeProto::kBoolValFieldNumber, 0);
        switch (op.kind) {
            case GenOpKind::Compute:
                int64_attr(out, "num_ops", static_cast<int64_t>(op.flops));
                chakra_varint_attr(out, kAttr, "tensor_size", AttributeProto::kUint64ValFieldNumber, op.bytes);
                break;
            case GenOpKind::Collective:
                int64_attr(out, "comm_type", static_cast<int64_t>(op.collective));
                int64_attr(out, "comm_size", static_cast<int64_t>(op.bytes));
                if (!pg[static_cast<size_t>(op.group)].empty())
                    chakra_string_attr(out, kAttr, "pg_name", pg[static_cast<size_t>(op.group)]);
                break;
            case GenOpKind::Send:
            case GenOpKind::Recv: {
                const int64_t peer = w.layout.stage_peer(rank, op.peer_stage);
                const bool send = op.kind == GenOpKind::Send;
                int32_attr(out, "comm_src", send ? rank : peer);
                int32_attr(out, "comm_dst", send ? peer : rank);
                int32_attr(out, "comm_tag", op.tag);
                int64_attr(out, "comm_size", static_cast<int64_t>(op.bytes));
                break;
            }
        }
        out.end_record(m);
    }
}

RankFilesStats write_generated_chakra(const GenWorkload& w, const std::string& prefix, int threads) {
    write_output(comm_groups_path(prefix), w.layout.comm_groups_json());
    RankFilesJob job;
    job.prefix = prefix;
    job.ranks = w.options.ranks;
    job.threads = threads;
    job.key = [&w](int64_t r) { return generated_rank_key(w, r); };
    job.encode = [&w](int64_t r, ChakraWireEncoder& out) { encode_generated_rank(w, r, out); };
    return write_rank_files(job);
}

}  // namespace mimic::compose

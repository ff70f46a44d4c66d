#include "io/chakra/chakra_comm.h"

#include <string>

#include "io/chakra/chakra_values.h"
#include "support/text.h"

namespace mimic {

namespace {

// Lower case without '_', '-' and spaces: "reduce_scatter_" and "ReduceScatter" agree.
std::string normalise(std::string_view name) {
    std::string out;
    out.reserve(name.size());
    for (char c : name) {
        if (c == '_' || c == '-' || c == ' ') continue;
        out += (c >= 'A' && c <= 'Z') ? static_cast<char>(c - 'A' + 'a') : c;
    }
    return out;
}

// The first input holding tensors (a tensor or a list of them) at or after `skip` such inputs.
const Value* tensor_input(const Trace& trace, const Node& node, int skip) {
    for (uint32_t i = 0; i < node.inputs.count; ++i) {
        const Value& v = trace.values[node.inputs.begin + i];
        bool holds = v.kind == ValueKind::Tensor;
        if (v.kind == ValueKind::List) {
            for_each_tensor(trace, ValueRange{node.inputs.begin + i, 1}, [&](const TensorMeta&) { holds = true; });
        }
        if (holds && skip-- == 0) return &v;
    }
    return nullptr;
}

int64_t bytes_of(const Trace& trace, const Value* v) {
    if (!v) return -1;
    const uint32_t index = static_cast<uint32_t>(v - trace.values.data());
    return static_cast<int64_t>(tensor_bytes(trace, ValueRange{index, 1}));
}

}  // namespace

CollectiveType collective_from_name(std::string_view name) {
    const size_t colon = name.rfind(':');
    if (colon != std::string_view::npos) name.remove_prefix(colon + 1);
    const std::string n = normalise(name);
    auto has = [&](const char* key) { return n.find(key) != std::string::npos; };
    // Longer names first: "reducescatter" contains "reduce", "allgather" contains "gather".
    if (has("allreduce")) return CollectiveType::AllReduce;
    if (has("reducescatter")) return CollectiveType::ReduceScatter;
    if (has("allgather")) return CollectiveType::AllGather;
    if (has("alltoall")) return CollectiveType::AllToAll;
    if (has("broadcast")) return CollectiveType::Broadcast;
    if (has("barrier")) return CollectiveType::Barrier;
    if (has("reduce")) return CollectiveType::Reduce;
    if (has("gather")) return CollectiveType::Gather;
    if (has("scatter")) return CollectiveType::Scatter;
    return CollectiveType::Unknown;
}

uint32_t dtype_bytes(std::string_view dtype) {
    const std::string d = normalise(dtype);
    if (d == "float" || d == "float32" || d == "int" || d == "int32" || d == "uint32" || d == "complexhalf") return 4;
    if (d == "double" || d == "float64" || d == "long" || d == "longint" || d == "int64" || d == "uint64" ||
        d == "complexfloat" || d == "complex64")
        return 8;
    if (d == "half" || d == "float16" || d == "c10::half" || d == "bfloat16" || d == "c10::bfloat16" || d == "short" ||
        d == "int16" || d == "uint16")
        return 2;
    if (d == "byte" || d == "char" || d == "bool" || d == "uint8" || d == "int8" || d == "unsignedchar" ||
        d == "signedchar" || starts_with(d, "float8") || starts_with(d, "c10::float8"))
        return 1;
    if (d == "complexdouble" || d == "complex128") return 16;
    return 0;
}

CommClassifier::CommClassifier(const Trace& trace)
    : trace_(trace),
      record_param_comms_(trace.strings.find("record_param_comms")),
      collective_name_(trace.strings.find("collective_name")),
      in_msg_nelems_(trace.strings.find("in_msg_nelems")),
      dtype_(trace.strings.find("dtype")),
      pg_name_(trace.strings.find("pg_name")) {}

const Value* CommClassifier::attr(const Node& node, StrId name) const {
    if (name.value == 0) return nullptr;
    for (uint32_t i = 0; i < node.attrs.count; ++i)
        if (trace_.attrs[node.attrs.begin + i].name == name) return &trace_.attrs[node.attrs.begin + i].value;
    return nullptr;
}

CommInfo CommClassifier::classify(const Node& node) const {
    if (record_param_comms_.value != 0 && node.name == record_param_comms_) return record_param_comms(node);
    const std::string_view name = trace_.str(node.name);
    if (starts_with(name, "c10d::")) return c10d_op(node, name.substr(6));
    if (starts_with(name, "nccl:") || starts_with(name, "gloo:")) {
        // The backend's label under record_param_comms (or beside the c10d op).
        CommInfo info;
        const std::string_view op = name.substr(5);
        info.kind = op == "send" ? CommKind::Send : op == "recv" ? CommKind::Recv : CommKind::Collective;
        info.type = collective_from_name(op);
        if (info.kind == CommKind::Collective && info.type == CollectiveType::Unknown) return CommInfo{};
        info.size_bytes = bytes_of(trace_, tensor_input(trace_, node, 0));
        info.source_rank = 1;
        return info;
    }
    return CommInfo{};
}

CommInfo CommClassifier::record_param_comms(const Node& node) const {
    // Inputs by version: 1.0.2 [tensors, seq, pg_ptr, rank, coll_name, ...];
    // 1.0.3+ [tensors, seq, [pg_name, pg_desc], rank, coll_name, ...]; a
    // "wait" has no tensors first. From 1.1.0 attrs say it all.
    CommInfo info;
    info.source_rank = 3;
    std::string_view coll;
    const Value* name_attr = attr(node, collective_name_);
    if (name_attr && name_attr->kind == ValueKind::String) coll = trace_.str(name_attr->payload.str);
    const Value* pg_tuple = nullptr;
    for (uint32_t i = 0; i < node.inputs.count; ++i) {
        const Value& v = trace_.values[node.inputs.begin + i];
        if (coll.empty() && v.kind == ValueKind::String) coll = trace_.str(v.payload.str);
        if (!pg_tuple && v.kind == ValueKind::List && v.payload.range.count == 2 &&
            trace_.values[v.payload.range.begin].kind == ValueKind::String)
            pg_tuple = &v;
    }
    if (coll == "wait" || coll.empty()) {
        info.kind = coll.empty() ? CommKind::None : CommKind::Wait;
        return info;
    }
    info.kind = coll == "send" ? CommKind::Send : (coll == "recv" || coll == "recvAnySource") ? CommKind::Recv
                                                                                               : CommKind::Collective;
    info.type = collective_from_name(coll);
    const Value* nelems = attr(node, in_msg_nelems_);
    const Value* dtype = attr(node, dtype_);
    const uint32_t item = dtype && dtype->kind == ValueKind::String ? dtype_bytes(trace_.str(dtype->payload.str)) : 0;
    if (nelems && nelems->kind == ValueKind::Int && item > 0)
        info.size_bytes = nelems->payload.i * static_cast<int64_t>(item);
    else
        info.size_bytes = bytes_of(trace_, tensor_input(trace_, node, 0));
    const Value* pg = attr(node, pg_name_);
    if (pg && pg->kind == ValueKind::String && pg->payload.str.value != 0) info.pg_name = pg->payload.str;
    else if (pg_tuple) info.pg_name = trace_.values[pg_tuple->payload.range.begin].payload.str;
    return info;
}

CommInfo CommClassifier::c10d_op(const Node& node, std::string_view op) const {
    CommInfo info;
    info.source_rank = 2;
    if (op == "send" || starts_with(op, "recv")) {
        // c10d::send(Tensor[] tensors, ProcessGroup, int dstRank, int tag) and
        // c10d::recv_(Tensor[] tensors, ProcessGroup, int srcRank, int tag).
        info.kind = op == "send" ? CommKind::Send : CommKind::Recv;
        info.size_bytes = bytes_of(trace_, tensor_input(trace_, node, 0));
        int ints = 0;
        for (uint32_t i = 0; i < node.inputs.count; ++i) {
            const Value& v = trace_.values[node.inputs.begin + i];
            if (v.kind != ValueKind::Int) continue;
            (ints == 0 ? info.peer : info.tag) = v.payload.i;
            if (++ints == 2) break;
        }
        return info;
    }
    info.type = collective_from_name(op);
    if (info.type == CollectiveType::Unknown) return CommInfo{};
    info.kind = CommKind::Collective;
    // Ops whose first argument is the output list send their second.
    const bool output_first = info.type == CollectiveType::AllGather || info.type == CollectiveType::ReduceScatter ||
                              info.type == CollectiveType::Gather || info.type == CollectiveType::Scatter ||
                              info.type == CollectiveType::AllToAll;
    const Value* data = tensor_input(trace_, node, output_first ? 1 : 0);
    if (!data && output_first) data = tensor_input(trace_, node, 0);
    info.size_bytes = bytes_of(trace_, data);
    return info;
}

void CommClassifier::merge(CommInfo& outer, const CommInfo& inner) {
    if (inner.kind == CommKind::None) return;
    if (outer.kind == CommKind::None || (outer.kind == CommKind::Wait && inner.kind != CommKind::Wait)) {
        outer = inner;
        return;
    }
    if (outer.type == CollectiveType::Unknown) outer.type = inner.type;
    if (inner.size_bytes >= 0 && (outer.size_bytes < 0 || inner.source_rank > outer.source_rank)) {
        outer.size_bytes = inner.size_bytes;
        outer.source_rank = inner.source_rank;
    }
    if (outer.pg_name.value == 0) outer.pg_name = inner.pg_name;
    if (outer.peer < 0) outer.peer = inner.peer;
    if (outer.tag < 0) outer.tag = inner.tag;
}

}  // namespace mimic

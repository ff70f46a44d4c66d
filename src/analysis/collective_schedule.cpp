#include "analysis/collective_schedule.h"

#include <array>

#include "io/chakra/chakra_values.h"
#include "support/text.h"
#include "trace/op_owner.h"

namespace mimic::analysis {
namespace {

bool is_backend_label(std::string_view name) { return starts_with(name, "gloo:") || starts_with(name, "nccl:"); }

// Deep enough for any wrapper between a c10d op and what it records, short
// enough that a damaged parent chain costs nothing.
constexpr int kMaxAncestorWalk = 64;

class ScheduleReader {
public:
    explicit ScheduleReader(const Trace& trace) : trace_(trace) {}

    std::string_view name(NodeIndex n) const { return trace_.name(trace_.nodes[n.value]); }

    bool is_c10d_op(NodeIndex n) const {
        return is_c10d_operator(trace_, trace_.nodes[n.value]);
    }

    // Under a c10d op or a record_param_comms: part of that call.
    bool inside_call(NodeIndex n) const {
        NodeIndex p = trace_.parent_of(n);
        for (int depth = 0; depth < kMaxAncestorWalk && p != kNoNode; ++depth, p = trace_.parent_of(p))
            if (is_c10d_op(p) || name(p) == "record_param_comms") return true;
        return false;
    }

    std::vector<uint32_t> tensors_of(const Value& v) const {
        std::vector<uint32_t> out;
        const uint32_t index = static_cast<uint32_t>(&v - trace_.values.data());
        for_each_tensor(trace_, ValueRange{index, 1}, [&](const TensorMeta& t) {
            out.push_back(static_cast<uint32_t>(&t - trace_.tensors.data()));
        });
        return out;
    }

    uint64_t bytes_of(const std::vector<uint32_t>& tensors) const {
        uint64_t total = 0;
        for (uint32_t t : tensors) {
            const TensorMeta& m = trace_.tensors[t];
            uint64_t b = 0;
            if (__builtin_mul_overflow(m.numel, uint64_t{m.itemsize}, &b) || __builtin_add_overflow(total, b, &total))
                return UINT64_MAX;  // damaged sizes saturate rather than wrap
        }
        return total;
    }

    bool holds_tensor(const Value& v) const {
        bool any = false;
        const uint32_t index = static_cast<uint32_t>(&v - trace_.values.data());
        for_each_tensor(trace_, ValueRange{index, 1}, [&](const TensorMeta&) { any = true; });
        return any;
    }

    std::vector<int64_t> int_list(const Value& v) const {
        std::vector<int64_t> out;
        for (uint32_t i = 0; i < v.payload.range.count; ++i) {
            const Value& e = trace_.values[v.payload.range.begin + i];
            if (e.kind == ValueKind::Int) out.push_back(e.payload.i);
        }
        return out;
    }

    // A c10d:: op. Both dialects put the tensors before the process group
    // (outputs, then inputs, when there are two) and root, peer, tag or
    // splits after it, in that order; the reduce op is an object, skipped.
    ScheduledCollective c10d_call(NodeIndex n) const {
        const Node& node = trace_.nodes[n.value];
        ScheduledCollective c;
        c.node = n;
        c.op_name = std::string(trace_.name(node));
        const std::string_view op = std::string_view(c.op_name).substr(6);
        if (op == "send") c.kind = CommKind::Send;
        else if (starts_with(op, "recv")) c.kind = CommKind::Recv;
        else if (op == "wait" || op == "wait_tensor") c.kind = CommKind::Wait;
        c.type = collective_from_name(op);
        uint32_t pg_arg = node.inputs.count;
        for (uint32_t i = 0; i < node.inputs.count; ++i)
            if (trace_.values[node.inputs.begin + i].kind == ValueKind::Object) {
                pg_arg = i;
                break;
            }
        std::vector<const Value*> tensor_args;
        for (uint32_t i = 0; i < pg_arg; ++i)
            if (const Value& v = trace_.values[node.inputs.begin + i]; holds_tensor(v)) tensor_args.push_back(&v);
        if (tensor_args.size() >= 2) {
            c.outputs = tensors_of(*tensor_args[0]);
            c.inputs = tensors_of(*tensor_args[1]);
        } else if (tensor_args.size() == 1) {
            c.inputs = tensors_of(*tensor_args[0]);
            c.outputs = c.inputs;  // in place: allreduce, broadcast, reduce, send, recv
        }
        std::vector<int64_t> ints;
        std::vector<std::vector<int64_t>> lists;
        for (uint32_t i = pg_arg + 1; i < node.inputs.count; ++i) {
            const Value& v = trace_.values[node.inputs.begin + i];
            if (v.kind == ValueKind::Int) ints.push_back(v.payload.i);
            if (v.kind == ValueKind::List && !holds_tensor(v)) lists.push_back(int_list(v));
        }
        const bool rooted = c.type == CollectiveType::Broadcast || c.type == CollectiveType::Reduce ||
                            c.type == CollectiveType::Gather || c.type == CollectiveType::Scatter;
        if ((rooted || c.kind == CommKind::Send || c.kind == CommKind::Recv) && !ints.empty()) c.root = ints[0];
        if ((c.kind == CommKind::Send || c.kind == CommKind::Recv) && ints.size() >= 2) c.tag = ints[1];
        if (c.type == CollectiveType::AllToAll && lists.size() >= 2) {
            c.output_splits = lists[0];
            c.input_splits = lists[1];
        }
        group_from_param_comms(n, c);
        return c;
    }

    // 2.x: the record_param_comms under the op names its group.
    void group_from_param_comms(NodeIndex n, ScheduledCollective& c) const {
        for (const NodeIndex* k = trace_.children_begin(n); k != trace_.children_end(n); ++k) {
            if (name(*k) != "record_param_comms") continue;
            c.pg_name = param_comms_group(trace_.nodes[k->value]);
            c.seq = param_comms_seq(trace_.nodes[k->value]);
            return;
        }
    }

    std::string param_comms_group(const Node& node) const {
        if (const Attr* a = trace_.find_attr(node, "pg_name"); a && a->value.kind == ValueKind::String)
            return std::string(trace_.str(a->value.payload.str));
        // Inputs [tensors, seq, (pg_name, pg_desc), ...] from schema 1.0.3; a
        // "wait" drops the tensors. Older schemas give an address: no name.
        for (uint32_t i = 0; i < node.inputs.count && i < 3; ++i) {
            const Value& v = trace_.values[node.inputs.begin + i];
            if (v.kind != ValueKind::List || v.payload.range.count < 1) continue;
            const Value& first = trace_.values[v.payload.range.begin];
            if (first.kind == ValueKind::String) return std::string(trace_.str(first.payload.str));
        }
        return {};
    }

    // Inputs [tensors, seq, ...], or [seq, ...] for a "wait".
    int64_t param_comms_seq(const Node& node) const {
        if (node.inputs.count == 0) return -1;
        const Value& first = trace_.values[node.inputs.begin];
        if (first.kind == ValueKind::Int) return first.payload.i;
        if (node.inputs.count > 1 && trace_.values[node.inputs.begin + 1].kind == ValueKind::Int)
            return trace_.values[node.inputs.begin + 1].payload.i;
        return -1;
    }

    std::string param_comms_name(const Node& node) const {
        if (const Attr* a = trace_.find_attr(node, "collective_name"); a && a->value.kind == ValueKind::String)
            return std::string(trace_.str(a->value.payload.str));
        for (uint32_t i = 0; i < node.inputs.count; ++i)
            if (const Value& v = trace_.values[node.inputs.begin + i]; v.kind == ValueKind::String)
                return std::string(trace_.str(v.payload.str));
        return {};
    }

    // A record_param_comms with no c10d op around it (functional collectives,
    // or the "wait" DDP records beside its calls).
    ScheduledCollective param_comms_call(NodeIndex n) const {
        const Node& node = trace_.nodes[n.value];
        ScheduledCollective c;
        c.node = n;
        c.op_name = "record_param_comms";
        const std::string coll = param_comms_name(node);
        if (coll == "wait") {
            c.kind = CommKind::Wait;
        } else {
            c.type = collective_from_name(coll);
            if (coll == "send") c.kind = CommKind::Send;
            if (coll == "recv") c.kind = CommKind::Recv;
            if (node.inputs.count > 0 && holds_tensor(trace_.values[node.inputs.begin])) {
                c.inputs = tensors_of(trace_.values[node.inputs.begin]);
                c.outputs = c.inputs;
            }
        }
        c.pg_name = param_comms_group(node);
        c.seq = param_comms_seq(node);
        return c;
    }

    // A gloo:/nccl: label standing alone: Python called the process group
    // directly (1.13's all_to_all_single). It records the input tensor only.
    ScheduledCollective label_call(NodeIndex n) const {
        const Node& node = trace_.nodes[n.value];
        ScheduledCollective c;
        c.node = n;
        c.op_name = std::string(trace_.name(node));
        const std::string_view op = std::string_view(c.op_name).substr(5);
        if (op == "send") c.kind = CommKind::Send;
        if (op == "recv") c.kind = CommKind::Recv;
        c.type = collective_from_name(op);
        if (node.inputs.count > 0) c.inputs = tensors_of(trace_.values[node.inputs.begin]);
        // Without the output recorded the receive buffer mirrors the input:
        // all_to_all with equal splits, the in-place collectives.
        c.outputs = c.inputs;
        c.waits_at_once = true;  // Python's default, async_op=False
        return c;
    }

private:
    const Trace& trace_;
};

CollectiveType python_type(const PythonCollective& p) {
    return collective_from_name(p.op);
}

bool is_p2p(const std::string& op) { return op == "send" || op == "recv" || op == "isend" || op == "irecv"; }

}  // namespace

std::string collective_type_name(CollectiveType t) {
    switch (t) {
        case CollectiveType::AllReduce: return "all_reduce";
        case CollectiveType::Reduce: return "reduce";
        case CollectiveType::AllGather: return "all_gather";
        case CollectiveType::Gather: return "gather";
        case CollectiveType::Scatter: return "scatter";
        case CollectiveType::Broadcast: return "broadcast";
        case CollectiveType::AllToAll: return "all_to_all";
        case CollectiveType::ReduceScatter: return "reduce_scatter";
        case CollectiveType::ReduceScatterBlock: return "reduce_scatter_block";
        case CollectiveType::Barrier: return "barrier";
        case CollectiveType::Unknown: break;
    }
    return "unknown";
}

std::string call_name(const ScheduledCollective& c) {
    if (c.kind == CommKind::Send) return "send";
    if (c.kind == CommKind::Recv) return "recv";
    return collective_type_name(c.type);
}

double bus_bandwidth_factor(CollectiveType t, int64_t ranks) {
    if (ranks <= 1) return ranks == 1 && t != CollectiveType::Broadcast && t != CollectiveType::Reduce ? 0.0 : 1.0;
    const double n = double(ranks);
    switch (t) {
        case CollectiveType::AllReduce: return 2.0 * (n - 1.0) / n;
        case CollectiveType::AllGather:
        case CollectiveType::ReduceScatter:
        case CollectiveType::ReduceScatterBlock:
        case CollectiveType::AllToAll: return (n - 1.0) / n;
        default: return 1.0;
    }
}

std::vector<ScheduledCollective> schedule_collectives(const Trace& trace, const std::vector<NodeIndex>& order,
                                                      const std::vector<PythonCollective>& python_calls) {
    ScheduleReader reader(trace);
    std::vector<ScheduledCollective> out;
    // c10d calls of each collective whose backend label has not been seen yet.
    std::array<uint32_t, 16> labels_owed{};
    auto slot = [](const ScheduledCollective& c) {
        return c.kind == CommKind::Send ? 11u : c.kind == CommKind::Recv ? 12u : uint32_t(int(c.type) + 1);
    };
    for (NodeIndex n : order) {
        const std::string_view name = reader.name(n);
        if (reader.is_c10d_op(n)) {
            // Every c10d op is a call of its own, even one the ET files under
            // another: 1.13's observer sometimes leaves a c10d op "open" and
            // files later ops, DDP's next bucket included, below it.
            out.push_back(reader.c10d_call(n));
            if (out.back().kind != CommKind::Wait) ++labels_owed[slot(out.back())];
        } else if (name == "record_param_comms") {
            if (!reader.inside_call(n)) out.push_back(reader.param_comms_call(n));
        } else if (is_backend_label(name) && trace.nodes[n.value].op_schema.value == 0) {
            if (reader.inside_call(n)) continue;
            ScheduledCollective c = reader.label_call(n);
            uint32_t& owed = labels_owed[slot(c)];
            if (owed > 0) {
                --owed;  // the label of a c10d op already scheduled
                continue;
            }
            if (c.kind == CommKind::Collective && c.type == CollectiveType::Unknown) continue;
            out.push_back(std::move(c));
        }
    }

    // Python's calls, matched in order by collective; C++ callers (DDP's
    // reducer) made the calls that find no partner.
    size_t next = 0;
    for (ScheduledCollective& c : out) {
        if (c.kind == CommKind::Wait || next >= python_calls.size()) continue;
        const PythonCollective& p = python_calls[next];
        const bool same = is_p2p(p.op) ? c.kind == (p.op.find("send") != std::string::npos ? CommKind::Send : CommKind::Recv)
                                       : c.kind == CommKind::Collective && python_type(p) == c.type;
        if (!same) continue;
        ++next;
        if (!p.pg_name.empty()) c.pg_name = p.pg_name;
        c.waits_at_once = !p.async_op;
        if (!p.reduce_op.empty()) c.reduce_op = p.reduce_op;
        if (c.input_splits.empty()) c.input_splits = p.input_split_sizes;
        if (c.output_splits.empty()) c.output_splits = p.output_split_sizes;
    }
    for (ScheduledCollective& c : out) {
        if (c.reduce_op.empty()) c.reduce_op = "SUM";
        c.input_bytes = reader.bytes_of(c.inputs);
        c.output_bytes = reader.bytes_of(c.outputs);
    }
    return out;
}

}  // namespace mimic::analysis

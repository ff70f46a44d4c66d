#include "analysis/collectives.h"

#include <algorithm>
#include <map>
#include <tuple>
#include <unordered_map>

#include "analysis/collective_schedule.h"
#include "analysis/comm_values.h"
#include "support/text.h"
#include "trace/op_owner.h"

namespace mimic::analysis {
namespace {

// How far up a record_param_comms may sit below its c10d:: op. It is the
// direct child in every trace we have seen; a few levels leave room for a
// wrapper label in between without walking whole chains on damaged input.
constexpr int kMaxCommNesting = 8;

class CollectiveReader {
public:
    CollectiveReader(const Trace& trace, const NodeTimes& times) : trace_(trace), times_(times) {
        for (const ProcessGroup& pg : trace.process_groups)
            if (pg.desc == "default_pg" || (default_pg_ == nullptr && pg.name == "0")) default_pg_ = &pg;
        if (default_pg_ == nullptr && !trace.process_groups.empty()) default_pg_ = &trace.process_groups.front();
    }

    const Value* input(const Node& n, uint32_t i) const {
        return i < n.inputs.count ? trace_.value_ptr(n.inputs, i) : nullptr;
    }
    std::string_view attr_string(const Node& n, std::string_view name) const {
        const Attr* a = trace_.find_attr(n, name);
        return a && a->value.kind == ValueKind::String ? trace_.str(a->value.payload.str) : std::string_view{};
    }
    const int64_t* attr_int(const Node& n, std::string_view name) const {
        const Attr* a = trace_.find_attr(n, name);
        return a && a->value.kind == ValueKind::Int ? &a->value.payload.i : nullptr;
    }

    CollectiveCall start(NodeIndex n, std::string collective) const {
        CollectiveCall c;
        c.node = n;
        c.collective = std::move(collective);
        c.duration_us = times_.duration_us(n);
        return c;
    }

    void set_group(CollectiveCall& c, std::string_view name, std::string_view desc) const {
        c.pg_name = std::string(name);
        c.pg_desc = std::string(desc);
        if (c.pg_desc.empty())
            for (const ProcessGroup& pg : trace_.process_groups)
                if (pg.name == name) c.pg_desc = pg.desc;
    }
    void set_default_group(CollectiveCall& c) const {
        if (default_pg_ != nullptr)
            set_group(c, default_pg_->name, default_pg_->desc);
        else
            set_group(c, "default", "default_pg");
    }
    // Before schema 1.0.3 the group is the backend object's address, which the
    // process_group:init record does not keep for us to match: name it by the
    // address unless there is only one group it can be.
    void set_group_by_pointer(CollectiveCall& c, int64_t ptr) const {
        if (trace_.process_groups.size() <= 1)
            set_default_group(c);
        else
            set_group(c, "pg@" + std::to_string(ptr), "");
    }

    void set_bytes(CollectiveCall& c, const Value* v) const {
        if (v == nullptr) return;
        if (auto bytes = tensor_bytes(trace_, *v)) {
            c.bytes = *bytes;
            c.bytes_known = true;
        }
    }

    // The tensors a c10d:: op sends: its input argument by name, since
    // allgather_ and reduce_scatter_ put the output list first.
    void set_bytes_from_schema(CollectiveCall& c, const Node& node) const {
        const auto names = schema_argument_names(trace_.str(node.op_schema));
        static constexpr std::string_view kInputNames[] = {"input_tensors", "input_tensor", "inputs", "input",
                                                           "tensors",       "tensor",       "self"};
        for (std::string_view wanted : kInputNames)
            for (size_t i = 0; i < names.size(); ++i)
                if (names[i] == wanted && i < node.inputs.count) return set_bytes(c, input(node, uint32_t(i)));
        for (uint32_t i = 0; i < node.inputs.count && !c.bytes_known; ++i) set_bytes(c, input(node, i));
    }

    // record_param_comms; returns false for its "wait" calls.
    bool read_param_comms(NodeIndex n, CollectiveCall& out) const {
        const Node& node = trace_.nodes[n.value];
        std::string_view name = attr_string(node, "collective_name");
        // Inputs are [tensors, seq, pg, rank, coll_name, ...]; "wait" calls drop the tensors.
        const Value* first = input(node, 0);
        const bool has_tensor_slot = first != nullptr && first->kind != ValueKind::Int;
        if (name.empty()) {
            for (uint32_t i = 0; i < node.inputs.count && name.empty(); ++i)
                if (const Value* v = input(node, i); v->kind == ValueKind::String) name = trace_.str(v->payload.str);
        }
        if (name == "wait") return false;
        out = start(n, name.empty() ? std::string("unknown") : normalize_collective_name(name));

        const int64_t* nelems = attr_int(node, "in_msg_nelems");
        const auto elem = dtype_size_bytes(attr_string(node, "dtype"));
        if (nelems != nullptr && *nelems >= 0 && elem) {
            if (__builtin_mul_overflow(static_cast<uint64_t>(*nelems), uint64_t{*elem}, &out.bytes))
                out.bytes = UINT64_MAX;  // a damaged count; saturate rather than wrap
            out.bytes_known = true;
        } else if (has_tensor_slot) {
            set_bytes(out, first);
        }

        if (std::string_view pg = attr_string(node, "pg_name"); !pg.empty()) {
            set_group(out, pg, attr_string(node, "pg_desc"));
            return true;
        }
        const Value* pg = input(node, has_tensor_slot ? 2 : 1);
        if (pg != nullptr && pg->kind == ValueKind::List && pg->payload.range.count >= 1 &&
            trace_.value_ptr(pg->payload.range, 0)->kind == ValueKind::String) {
            // (pg_name, pg_desc) from schema 1.0.3
            std::string_view pg_name = trace_.str(trace_.value_ptr(pg->payload.range, 0)->payload.str);
            std::string_view pg_desc;
            if (pg->payload.range.count >= 2 && trace_.value_ptr(pg->payload.range, 1)->kind == ValueKind::String)
                pg_desc = trace_.str(trace_.value_ptr(pg->payload.range, 1)->payload.str);
            if (!pg_name.empty()) {
                set_group(out, pg_name, pg_desc);
                return true;
            }
        } else if (pg != nullptr && pg->kind == ValueKind::Int) {
            set_group_by_pointer(out, pg->payload.i);
            return true;
        }
        set_default_group(out);
        return true;
    }

    CollectiveCall read_dispatcher_op(NodeIndex n) const {
        const Node& node = trace_.nodes[n.value];
        CollectiveCall c = start(n, normalize_collective_name(trace_.name(node)));
        set_bytes_from_schema(c, node);
        set_default_group(c);
        return c;
    }

    CollectiveCall read_chakra(NodeIndex n) const {
        const Node& node = trace_.nodes[n.value];
        std::string collective;
        if (node.chakra_type == ChakraNodeType::CommSend)
            collective = "send";
        else if (node.chakra_type == ChakraNodeType::CommRecv)
            collective = "recv";
        else if (const int64_t* type = attr_int(node, "comm_type"); type && !chakra_comm_type_name(*type).empty())
            collective = std::string(chakra_comm_type_name(*type));
        else
            collective = normalize_collective_name(trace_.name(node));
        CollectiveCall c = start(n, std::move(collective));
        if (const int64_t* size = attr_int(node, "comm_size"); size && *size >= 0) {
            c.bytes = static_cast<uint64_t>(*size);
            c.bytes_known = true;
        } else {
            set_bytes_from_schema(c, node);
        }
        if (std::string_view pg = attr_string(node, "pg_name"); !pg.empty())
            set_group(c, pg, "");
        else
            set_default_group(c);
        return c;
    }

private:
    const Trace& trace_;
    const NodeTimes& times_;
    const ProcessGroup* default_pg_ = nullptr;
};

// "aten::copy_(1)": a piece after the first of a host op Chakra's converter split.
bool is_later_piece(std::string_view name) {
    if (name.empty() || name.back() != ')') return false;
    const size_t open = name.rfind('(');
    if (open == std::string_view::npos || open + 2 >= name.size()) return false;
    const std::string_view digits = name.substr(open + 1, name.size() - open - 2);
    return std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; }) && digits != "0";
}

}  // namespace

std::vector<CollectiveCall> find_collectives(const Trace& trace, const std::vector<NodeClass>& classes,
                                             const OpNesting& nesting, const NodeTimes& times) {
    CollectiveReader reader(trace, times);
    std::vector<CollectiveCall> calls;
    if (trace.format == TraceFormat::Chakra) {
        // Chakra's converter writes one collective as several COMM nodes: the
        // host op, split in pieces "c10d::allreduce_(0)", "(1)" around its
        // launch, and the NCCL kernel, which alone carries comm_type and
        // comm_size (what a simulator reads). Count the nodes with comm_type
        // when there are any, else each host op once (its first piece).
        std::vector<NodeIndex> comm;
        bool any_comm_type = false;
        for (NodeIndex n : trace.execution_order()) {
            const ChakraNodeType t = trace.nodes[n.value].chakra_type;
            if (t != ChakraNodeType::CommColl && t != ChakraNodeType::CommSend && t != ChakraNodeType::CommRecv) continue;
            comm.push_back(n);
            any_comm_type = any_comm_type || reader.attr_int(trace.nodes[n.value], "comm_type") != nullptr;
        }
        for (NodeIndex n : comm) {
            const Node& node = trace.nodes[n.value];
            if (any_comm_type ? reader.attr_int(node, "comm_type") == nullptr : is_later_piece(trace.name(node))) continue;
            calls.push_back(reader.read_chakra(n));
        }
        return calls;
    }

    // c10d:: ops that record_param_comms already describes.
    std::vector<bool> described(trace.nodes.size(), false);
    for (NodeIndex n : trace.execution_order()) {
        if (trace.name(trace.nodes[n.value]) != "record_param_comms") continue;
        NodeIndex up = trace.parent_of(n);
        for (int depth = 0; depth < kMaxCommNesting && up != kNoNode; ++depth, up = trace.parent_of(up)) {
            if (is_c10d_operator(trace, trace.nodes[up.value])) {
                described[up.value] = true;
                break;
            }
        }
    }
    // The calls in order, with the groups meta.json's Python calls name (a
    // 1.13 c10d op's group is an opaque object; DLRM's dense all_reduce runs
    // on a group of its own).
    const std::vector<ScheduledCollective> schedule =
        schedule_collectives(trace, trace.execution_order(), trace.python_collectives);
    std::unordered_map<uint32_t, const ScheduledCollective*> scheduled;
    for (const ScheduledCollective& s : schedule) scheduled[s.node.value] = &s;
    auto named_group = [&](CollectiveCall& c) {
        auto it = scheduled.find(c.node.value);
        if (it != scheduled.end() && !it->second->pg_name.empty() && trace.python_collectives.size() > 0)
            reader.set_group(c, it->second->pg_name, "");
    };
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        if (classes[n.value].category != OpCategory::Communication) continue;
        if (trace.name(node) == "record_param_comms") {
            CollectiveCall c;
            if (reader.read_param_comms(n, c)) calls.push_back(std::move(c));
        } else if (is_c10d_operator(trace, node) && !described[n.value]) {
            // A c10d:: op inside another communication op is part of that call,
            // unless that op is a c10d op too: 1.13's observer files DDP's next
            // bucket under the previous one at times (see op_nesting).
            const NodeIndex owner = nesting.top_level_owner[n.value];
            if (owner != n && owner != kNoNode && classes[owner.value].category == OpCategory::Communication &&
                !is_c10d_operator(trace, trace.nodes[owner.value]))
                continue;
            CollectiveCall c = reader.read_dispatcher_op(n);
            named_group(c);
            if (c.collective.find("wait") == std::string::npos) calls.push_back(std::move(c));
        }
    }
    // Backend labels standing alone: a process group called directly, not
    // through the dispatcher (1.13's all_to_all_single), or a trace with
    // nothing but labels. A label beside the c10d op that queued it is not a
    // call of its own; the schedule tells them apart.
    for (const ScheduledCollective& s : schedule) {
        if (!starts_with(s.op_name, "nccl:") && !starts_with(s.op_name, "gloo:")) continue;
        const std::string_view name = trace.name(trace.nodes[s.node.value]);
        CollectiveCall c = reader.start(s.node, normalize_collective_name(name));
        reader.set_bytes(c, reader.input(trace.nodes[s.node.value], 0));
        reader.set_default_group(c);
        named_group(c);
        calls.push_back(std::move(c));
    }
    std::stable_sort(calls.begin(), calls.end(),
                     [&](const CollectiveCall& a, const CollectiveCall& b) { return trace.nodes[a.node.value].id.value < trace.nodes[b.node.value].id.value; });
    return calls;
}

std::vector<CollectiveStats> summarize_collectives(const std::vector<CollectiveCall>& calls, int64_t rank) {
    std::map<std::tuple<std::string, std::string>, CollectiveStats> groups;
    for (const CollectiveCall& c : calls) {
        CollectiveStats& s = groups[{c.pg_name, c.collective}];
        if (s.count == 0) {
            s.pg_name = c.pg_name;
            s.pg_desc = c.pg_desc;
            s.collective = c.collective;
            s.rank = rank;
        }
        ++s.count;
        if (c.bytes_known) {
            s.total_bytes += c.bytes;
            s.max_bytes = std::max(s.max_bytes, c.bytes);
        } else {
            ++s.unknown_size;
        }
        s.total_us += c.duration_us;
    }
    std::vector<CollectiveStats> out;
    out.reserve(groups.size());
    for (auto& [key, stats] : groups) out.push_back(std::move(stats));
    return out;
}

}  // namespace mimic::analysis

#include "link/link_profile.h"

#include <algorithm>
#include <cctype>
#include <string_view>

#include "link/device_attach.h"
#include "link/iteration_repeats.h"
#include "link/op_match.h"
#include "support/text.h"
#include "trace/op_owner.h"

namespace mimic {

namespace {

// Start, inclusive duration and thread straight from the profiler event; the
// exclusive time subtracts each linked descendant from its nearest linked
// ancestor on the same thread (an unlinked node in between does not hide it).
void fill_timing(Trace& trace, const ProfileTrace& profile, const OpMatch& match) {
    const size_t n = trace.nodes.size();
    trace.timing.assign(n, NodeTiming{});
    for (size_t i = 0; i < n; ++i) {
        uint32_t e = match.event_of_node[i];
        if (e == kNoEvent) continue;
        const HostEvent& h = profile.host[e];
        NodeTiming& t = trace.timing[i];
        t.start_us = h.ts_us;
        t.duration_us = h.dur_us;
        t.self_us = h.dur_us;
        t.thread = static_cast<uint64_t>(profile.threads[h.thread].tid);
    }
    for (size_t i = 0; i < n; ++i) {
        if (!trace.timing[i].linked()) continue;
        NodeIndex p = trace.parent_of(NodeIndex(static_cast<uint32_t>(i)));
        while (p != kNoNode && !trace.timing[p.value].linked()) p = trace.parent_of(p);
        if (p == kNoNode) continue;
        uint32_t child_event = match.event_of_node[i];
        uint32_t parent_event = match.event_of_node[p.value];
        if (profile.host[child_event].thread != profile.host[parent_event].thread) continue;
        trace.timing[p.value].self_us -= trace.timing[i].duration_us;
    }
    for (NodeTiming& t : trace.timing) t.self_us = std::max(0.0, t.self_us);
}

// The ET's parent of a node is the op that was running on its thread when it
// started, and so is the profiler's enclosing event: a pair by name whose
// event does not lie inside the event of its linked ET parent (same thread)
// is a coincidence of repeated names, and is dropped. Only the direct parent
// is compared: ET parents are not always right (torch 1.13 with DDP hooks
// gives autograd nodes a parent that had already ended), and a wrong one
// must cost one link, not a subtree. Nor is a c10d call under an earlier
// c10d call or gloo:* label checked: torch 1.13's observer files the calls
// issued while Gloo's label of an earlier one is open (on Gloo's thread)
// under it. Pairs found by record-function id are trusted as they are;
// pairs by sequence number and in order are checked.
bool misfiled_beside_gloo(const Trace& trace, NodeIndex node, NodeIndex parent) {
    const Node& outer = trace.nodes[parent.value];
    return starts_with(trace.name(trace.nodes[node.value]), "c10d::") &&
           (starts_with(trace.name(outer), "c10d::") || is_async_backend_label(trace, outer));
}

size_t drop_unnested_links(const Trace& trace, const ProfileTrace& profile, OpMatch& match) {
    size_t dropped = 0;
    for (NodeIndex n : trace.execution_order()) {
        if (match.method[n.value] != LinkMethod::InOrder && match.method[n.value] != LinkMethod::SequenceNumber) continue;
        NodeIndex p = trace.parent_of(n);
        if (p == kNoNode || !match.linked(p) || misfiled_beside_gloo(trace, n, p)) continue;
        uint32_t event = match.event_of_node[n.value];
        uint32_t outer = match.event_of_node[p.value];
        if (profile.host[outer].thread != profile.host[event].thread) continue;
        uint32_t e = profile.host[event].parent;
        while (e != kNoEvent && e != outer) e = profile.host[e].parent;
        if (e == outer) continue;
        // Whole-microsecond timestamps: a 0-2 us child can start on or just
        // after its parent's rounded end, which the event tree then reads as
        // a sibling. Within a microsecond of the parent's interval it is nested.
        const HostEvent& inner_ev = profile.host[event];
        const HostEvent& outer_ev = profile.host[outer];
        constexpr double kRoundingUs = 1.0;
        if (inner_ev.ts_us + kRoundingUs >= outer_ev.ts_us && inner_ev.end_us() <= outer_ev.end_us() + kRoundingUs) continue;
        match.unpair(n);
        ++dropped;
    }
    return dropped;
}

// "aten::add_", "quantized::linear": a dispatcher operator's name, not a
// label (ProfilerStep#3, an autograd engine's "autograd::engine::...: X",
// a record_function's), which legacy exports also file as CPU ops.
bool names_an_operator(std::string_view name) {
    const size_t sep = name.find("::");
    if (sep == std::string_view::npos || sep == 0 || name.substr(0, sep) == "autograd") return false;
    return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':' || c == '.'; });
}

// Top-level ET ops whose profiled event lies inside an operator event that no
// ET node took (Trace::unrecorded_callers): keyed by that event's index.
void find_unrecorded_callers(Trace& trace, const ProfileTrace& profile, const OpMatch& match) {
    trace.unrecorded_callers.clear();
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const uint32_t e = match.event_of_node[i];
        const NodeIndex p = trace.parent_of(NodeIndex(i));
        if (e == kNoEvent || p == kNoNode) continue;
        const NodeKind parent_kind = trace.nodes[p.value].kind;
        if (parent_kind != NodeKind::Thread && parent_kind != NodeKind::Root) continue;
        uint32_t outermost = kNoEvent;
        for (uint32_t a = profile.host[e].parent; a != kNoEvent; a = profile.host[a].parent)
            if (!match.event_used[a] && profile.host[a].category == HostCategory::CpuOp &&
                names_an_operator(profile.strings.view(profile.host[a].name)))
                outermost = a;
        if (outermost != kNoEvent) trace.unrecorded_callers[trace.nodes[i].id.value] = uint64_t(outermost) + 1;
    }
}

}  // namespace

namespace {

// The profile's distributedInfo names the rank before the file name does;
// a trace or recording that says its own rank keeps it, and a profile that
// disagrees is said to be another rank's.
void take_rank_from_profile(Trace& trace, const ProfileTrace& profile) {
    const ProfileDistributedInfo& d = profile.distributed;
    if (d.rank < 0) return;
    const bool trusted = trace.rank_source == "trace" || trace.rank_source == "meta.json";
    if (trusted && trace.rank >= 0 && trace.rank != d.rank) {
        trace.warn(profile.source_path + ": its distributedInfo says rank " + std::to_string(d.rank) + ", the trace is rank " +
                   std::to_string(trace.rank) + " (from its " + trace.rank_source + "): a profile of another rank?");
        return;
    }
    if (!trusted) {
        trace.rank = d.rank;
        trace.rank_source = "distributedInfo";
    }
    if (trace.world_size < 0) trace.world_size = d.world_size;
}

}  // namespace

LinkStats link_profile(Trace& trace, const ProfileTrace& profile, const LinkOptions& options) {
    take_rank_from_profile(trace, profile);
    if (trace.execution_order().size() != trace.nodes.size()) trace.finalize();  // indexes used below
    LinkStats stats;
    stats.et_nodes = trace.nodes.size();
    for (const HostEvent& h : profile.host) stats.profile_host_events += is_op_event(h);
    trace.device_events.clear();

    OpMatch match(trace.nodes.size(), profile.host.size());
    NameMap names(trace, profile);
    if (options.by_record_function_id) match_by_record_function_id(trace, profile, names, match, stats);
    if (options.by_sequence_number) match_by_sequence_number(trace, profile, names, match);
    if (options.in_order) {
        match_in_order(trace, profile, names, match, stats);
        match_worker_labels(trace, profile, names, match);
    }
    stats.nesting_conflicts = drop_unnested_links(trace, profile, match);
    fill_timing(trace, profile, match);
    find_unrecorded_callers(trace, profile, match);
    const RepeatStats repeats = fill_repeat_medians(trace, profile, match.event_of_node);
    stats.profiled_iterations = repeats.iterations;
    stats.nodes_with_repeats = repeats.nodes_with_repeats;

    std::vector<NodeIndex> node_of_event(profile.host.size(), kNoNode);
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& node = trace.nodes[i];
        if (!is_linkable(node)) continue;
        ++stats.linkable;
        stats.operators += node.kind == NodeKind::Operator;
        uint32_t e = match.event_of_node[i];
        if (e == kNoEvent) continue;
        ++stats.linked;
        stats.operators_linked += node.kind == NodeKind::Operator;
        stats.by_record_function_id += match.method[i] == LinkMethod::RecordFunctionId;
        stats.by_sequence_number += match.method[i] == LinkMethod::SequenceNumber;
        stats.in_order += match.method[i] == LinkMethod::InOrder;
        node_of_event[e] = NodeIndex(i);
        const ProfileThread& thread = profile.threads[profile.host[e].thread];
        for (ThreadPairing& t : stats.threads)
            t.linked += t.et_tid == node.tid && t.profile_pid == thread.pid && t.profile_tid == thread.tid;
    }
    stats.unlinked = stats.linkable - stats.linked;
    stats.profile_host_events_linked = stats.linked;
    if (options.attach_device_work) attach_device_work(trace, profile, node_of_event, stats);
    return stats;
}

const char* to_string(LinkMethod m) {
    switch (m) {
        case LinkMethod::None: return "none";
        case LinkMethod::RecordFunctionId: return "record_function_id";
        case LinkMethod::SequenceNumber: return "sequence_number";
        case LinkMethod::InOrder: return "in_order";
    }
    return "?";
}

}  // namespace mimic

#include "replay/exec/op_selection.h"

#include "support/error.h"
#include "trace/split_pieces.h"

namespace mimic::replay {
namespace {

bool is_iteration_label(std::string_view name) { return name.rfind("ProfilerStep#", 0) == 0; }

// Iteration labels in execution order. An iteration spans the ids from its
// label to the next label: backward runs on the autograd thread, outside the
// label's subtree, so a subtree would miss half the step.
std::vector<NodeIndex> iteration_labels(const Trace& trace) {
    std::vector<NodeIndex> labels;
    for (NodeIndex i : trace.execution_order()) {
        const Node& n = trace.nodes[i.value];
        if (n.kind == NodeKind::Label && is_iteration_label(trace.name(n))) labels.push_back(i);
    }
    return labels;
}

bool under_gloo_label(const Trace& trace, NodeIndex i) {
    for (NodeIndex p = trace.parent_of(i); p != kNoNode; p = trace.parent_of(p))
        if (trace.name(trace.nodes[p.value]).rfind("gloo:", 0) == 0) return true;
    return false;
}

// 1.13's observer misfiles ops around an async Gloo collective: the
// gloo:* label ends on Gloo's worker thread, the observer's stack of open
// ops goes out of step, and the caller's next ops land below an op that has
// ended (the c10d op, even a leaf like aten::as_strided). The sign: a label
// or autograd wrapper below an operator that is a c10d op or sits under a
// gloo:* label; such an operator is not the ancestor of what is below the
// label. Elsewhere a label below an operator is real (2.x records "detach"
// inside aten::detach).
// The same desync can file a collective itself (a later DDP bucket's
// c10d::allreduce_, a gloo:* label) directly below an ATen op, or a c10d op
// below the previous c10d op, with no label in between: no ATen op calls a
// collective and no c10d op another, so `collective` nodes are never an ATen
// op's work, nor a c10d op's work a c10d op's.
bool has_operator_ancestor(const Trace& trace, NodeIndex i, bool collective) {
    const bool c10d_self = trace.name(trace.nodes[i.value]).rfind("c10d::", 0) == 0;
    bool crossed_label = false;
    for (NodeIndex p = trace.parent_of(i); p != kNoNode; p = trace.parent_of(p)) {
        const Node& n = trace.nodes[p.value];
        if (n.kind == NodeKind::Label || n.kind == NodeKind::Autograd) crossed_label = true;
        if (n.kind != NodeKind::Operator) continue;
        if (collective && trace.name(n).rfind("aten::", 0) == 0) return false;
        if (c10d_self && trace.name(n).rfind("c10d::", 0) == 0) return false;
        if (crossed_label && (trace.name(n).rfind("c10d::", 0) == 0 || under_gloo_label(trace, p))) return false;
        return true;
    }
    return false;
}

}  // namespace

std::string never_replay_reason(std::string_view name, bool collectives) {
    if (name.rfind("profiler::", 0) == 0) return "profiler bookkeeping";
    if (!collectives && name.rfind("c10d::", 0) == 0)
        return "collective: a single-process replay has no process group (replay the ranks with --nproc)";
    if (name == "aten::record_stream") return "stream bookkeeping";
    return {};
}

Selection select_ops(const Trace& trace, const SelectionOptions& options) {
    Selection sel;
    if (options.iteration != "all") {
        std::vector<NodeIndex> labels = iteration_labels(trace);
        size_t pick = labels.size();
        if (options.iteration.empty()) {
            pick = labels.empty() ? labels.size() : 0;
        } else {
            std::string want = "ProfilerStep#" + options.iteration;
            for (size_t k = 0; k < labels.size(); ++k)
                if (trace.name(trace.nodes[labels[k].value]) == want) pick = k;
            if (pick == labels.size()) {
                char* end = nullptr;
                unsigned long k = std::strtoul(options.iteration.c_str(), &end, 10);
                if (end && *end == '\0' && k < labels.size()) pick = k;
                else
                    fail({trace.source_path, -1, -1, "--iteration"},
                         "no iteration '" + options.iteration + "' (the trace has " + std::to_string(labels.size()) +
                             " ProfilerStep labels)");
            }
        }
        if (pick < labels.size()) {
            sel.label_node = labels[pick];
            sel.iteration_label = std::string(trace.name(trace.nodes[labels[pick].value]));
            sel.first_node_id = trace.nodes[labels[pick].value].id.value;
            if (pick + 1 < labels.size()) sel.last_node_id = trace.nodes[labels[pick + 1].value].id.value - 1;
        }
    }
    std::vector<NodeIndex> range;
    for (NodeIndex i : trace.execution_order()) {
        const Node& n = trace.nodes[i.value];
        if (n.id.value >= sel.first_node_id && n.id.value <= sel.last_node_id) range.push_back(i);
    }
    sel.nodes_in_range = range.size();
    // Communication calls, and which node stands for each.
    std::vector<analysis::ScheduledCollective> calls;
    std::vector<int32_t> call_of(options.collectives ? trace.nodes.size() : 0, -1);
    if (options.collectives) {
        calls = analysis::schedule_collectives(trace, range, options.python_calls);
        for (size_t k = 0; k < calls.size(); ++k) call_of[calls[k].node.value] = int32_t(k);
    }
    // The op runs once, at its first piece (trace/split_pieces.h).
    const std::vector<uint8_t> later_piece = later_split_pieces(trace);
    for (NodeIndex i : range) {
        const Node& n = trace.nodes[i.value];
        if (later_piece[i.value]) continue;
        const bool call = options.collectives && call_of[i.value] >= 0;
        std::string name(trace.name(n));
        const bool collective = call || name.rfind("c10d::", 0) == 0;
        if ((n.kind != NodeKind::Operator && !call) || has_operator_ancestor(trace, i, collective)) continue;
        if (options.include && !std::regex_search(name, *options.include)) continue;
        if (options.exclude && std::regex_search(name, *options.exclude)) continue;
        std::string why = never_replay_reason(name, options.collectives);
        if (!why.empty()) {
            sel.excluded.push_back({i, std::move(why)});
            continue;
        }
        if (options.max_ops && sel.ops.size() >= options.max_ops) continue;
        sel.ops.push_back(i);
        if (call) sel.collectives.push_back(std::move(calls[size_t(call_of[i.value])]));
    }
    return sel;
}

}  // namespace mimic::replay

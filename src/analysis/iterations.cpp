#include "analysis/iterations.h"

#include <algorithm>
#include <map>

namespace mimic::analysis {
namespace {

constexpr std::string_view kProfilerStep = "ProfilerStep#";

bool is_thread_top(const Trace& trace, NodeIndex n) {
    const NodeIndex parent = trace.parent_of(n);
    if (parent == kNoNode) return true;
    const NodeKind k = trace.nodes[parent.value].kind;
    return k == NodeKind::Thread || k == NodeKind::Root;
}

// `seen` marks nodes already inside an iteration, so that a step label nested
// in another (a damaged trace) is skipped instead of walked again.
Iteration describe(const Trace& trace, const NodeTimes& times, NodeIndex label, std::vector<NodeIndex>& stack,
                   std::vector<uint8_t>& seen) {
    Iteration it;
    const Node& node = trace.nodes[label.value];
    it.name = std::string(trace.name(node));
    it.rank = trace.rank;
    it.node_id = node.id.value;
    it.first_node_id = it.last_node_id = node.id.value;
    stack.assign(1, label);
    while (!stack.empty()) {
        const NodeIndex cur = stack.back();
        stack.pop_back();
        seen[cur.value] = 1;
        const uint64_t id = trace.nodes[cur.value].id.value;
        it.first_node_id = std::min(it.first_node_id, id);
        it.last_node_id = std::max(it.last_node_id, id);
        ++it.nodes;
        for (const NodeIndex* c = trace.children_begin(cur); c != trace.children_end(cur); ++c) stack.push_back(*c);
    }
    it.timed = times.has_time(label);
    it.duration_us = times.duration_us(label);
    return it;
}

}  // namespace

IterationScan find_iterations(const Trace& trace, const std::vector<NodeClass>& classes, const NodeTimes& times) {
    IterationScan scan;
    // A Chakra node's parent link is an ordering edge, so no label there has a
    // subtree to span.
    if (trace.format == TraceFormat::Chakra) return scan;
    std::vector<NodeIndex> steps;
    // Candidate repeating labels: user labels right under a thread, by name.
    std::map<std::string_view, std::vector<NodeIndex>> top_labels;
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        if (!trace.str(node.op_schema).empty()) continue;
        const std::string_view name = trace.name(node);
        if (name.substr(0, kProfilerStep.size()) == kProfilerStep)
            steps.push_back(n);
        else if (node.kind == NodeKind::Label && classes[n.value].category == OpCategory::Label && is_thread_top(trace, n))
            top_labels[name].push_back(n);
    }
    std::vector<NodeIndex> stack;
    std::vector<uint8_t> seen(trace.nodes.size(), 0);
    if (!steps.empty()) {
        scan.method = "profiler_step";
        scan.marker = std::string(kProfilerStep);
        for (NodeIndex n : steps)
            if (!seen[n.value]) scan.iterations.push_back(describe(trace, times, n, stack, seen));
        return scan;
    }
    // Several labels may repeat (forward/backward/optimizer each once per
    // step); the one whose occurrences cover the most nodes is the step.
    uint64_t best_cover = 0;
    for (const auto& [name, nodes] : top_labels) {
        if (nodes.size() < 2) continue;
        std::vector<Iteration> found;
        uint64_t cover = 0;
        for (NodeIndex n : nodes) {
            found.push_back(describe(trace, times, n, stack, seen));  // thread-level: never nested
            cover += found.back().nodes;
        }
        if (cover > best_cover) {
            best_cover = cover;
            scan.method = "repeated_label";
            scan.marker = std::string(name);
            scan.iterations = std::move(found);
        }
    }
    return scan;
}

}  // namespace mimic::analysis

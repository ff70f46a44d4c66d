#include "replay/timing/label_plan.h"

#include <unordered_map>

namespace mimic::replay {
namespace {

bool is_ancestor(const Trace& trace, NodeIndex maybe, NodeIndex node) {
    for (NodeIndex p = trace.parent_of(node); p != kNoNode; p = trace.parent_of(p))
        if (p == maybe) return true;
    return false;
}

bool below_operator(const Trace& trace, NodeIndex node) {
    for (NodeIndex p = trace.parent_of(node); p != kNoNode; p = trace.parent_of(p))
        if (trace.nodes[p.value].kind == NodeKind::Operator) return true;
    return false;
}

}  // namespace

std::vector<NodeIndex> nodes_in_id_range(const Trace& trace, uint64_t first_id, uint64_t last_id) {
    std::vector<NodeIndex> out;
    for (NodeIndex i : trace.execution_order()) {
        const uint64_t id = trace.nodes[i.value].id.value;
        if (id >= first_id && id <= last_id) out.push_back(i);
    }
    return out;
}

LabelPlan plan_labels(const Trace& trace, const std::vector<NodeIndex>& range, const std::vector<NodeIndex>& step_nodes,
                      const std::vector<bool>& runs) {
    std::unordered_map<uint32_t, uint32_t> step_of;  // node position -> step
    for (size_t k = 0; k < step_nodes.size(); ++k) step_of.emplace(step_nodes[k].value, uint32_t(k));
    LabelPlan plan;
    std::vector<NodeIndex> open;
    const auto close_until_ancestor_of = [&](NodeIndex node) {
        while (!open.empty() && !is_ancestor(trace, open.back(), node)) {
            plan.actions.push_back({LabelAction::Kind::Close, 0});
            open.pop_back();
        }
    };
    for (NodeIndex i : range) {
        const Node& n = trace.nodes[i.value];
        if (n.kind == NodeKind::Root || n.kind == NodeKind::Thread) continue;
        const auto step = step_of.find(i.value);
        if (step != step_of.end() && runs[step->second]) {
            close_until_ancestor_of(i);
            plan.actions.push_back({LabelAction::Kind::Run, step->second});
            continue;
        }
        if (below_operator(trace, i)) continue;
        close_until_ancestor_of(i);
        plan.actions.push_back({LabelAction::Kind::Open, uint32_t(plan.labels.size())});
        plan.labels.push_back({i});
        open.push_back(i);
    }
    for (size_t k = 0; k < open.size(); ++k) plan.actions.push_back({LabelAction::Kind::Close, 0});
    return plan;
}

}  // namespace mimic::replay

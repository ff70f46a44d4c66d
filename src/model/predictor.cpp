#include "model/predictor.h"

#include <unordered_map>

#include "io/chakra/chakra_convert.h"
#include "model/op_signature.h"
#include "support/text.h"
#include "trace/split_pieces.h"

namespace mimic::model {
namespace {

// The id range of the first ProfilerStep#N label's subtree, if any.
bool first_iteration(const Trace& trace, uint64_t& lo, uint64_t& hi, std::string& name) {
    for (NodeIndex i : trace.execution_order()) {
        const Node& n = trace.nodes[i.value];
        if (!starts_with(trace.name(n), "ProfilerStep#")) continue;
        lo = hi = n.id.value;
        std::vector<NodeIndex> stack{i};
        while (!stack.empty()) {
            const NodeIndex k = stack.back();
            stack.pop_back();
            hi = std::max(hi, trace.nodes[k.value].id.value);
            for (const NodeIndex* c = trace.children_begin(k); c != trace.children_end(k); ++c) stack.push_back(*c);
        }
        name = std::string(trace.name(n));
        return true;
    }
    return false;
}

}  // namespace

bool runs_under_autograd(const Trace& trace, uint32_t idx) {
    NodeIndex cur(idx);
    for (int depth = 0; depth < 256 && cur != kNoNode; ++depth) {
        const Node& n = trace.nodes[cur.value];
        if (starts_with(trace.name(n), "autograd::engine::evaluate_function")) return true;
        const NodeIndex up = trace.parent_of(cur);
        if (up == cur) break;
        cur = up;
    }
    return false;
}

double fresh_output_fault_us(const OpFacts& op, const HostCosts& host) {
    // In-place ops and views write no new memory.
    if (op.output_bytes < HostCosts::kFreshOutputBytes || (!op.name.empty() && op.name.back() == '_') ||
        family_of(op.name) == OpFamily::View)
        return 0;
    return host.fresh_page_share * static_cast<double>(op.output_bytes) / 4096.0 * host.fault_us;
}

double predicted_op_us(const Trace& trace, uint32_t node, const CostModel& costs, const HostCosts& host) {
    const OpFacts facts = op_facts(trace, trace.nodes[node]);
    const CostEstimate est = costs.estimate(facts);
    return est.time_us + fresh_output_fault_us(facts, host) +
           host.before(facts.name, runs_under_autograd(trace, node));
}

std::vector<TopLevelOp> top_level_ops(const Trace& trace, std::string* iteration) {
    uint64_t lo = 0, hi = UINT64_MAX;
    std::string name;
    if (!first_iteration(trace, lo, hi, name)) {
        lo = 0;
        hi = UINT64_MAX;
    }
    if (iteration) *iteration = name;
    const ChakraPlan plan = plan_chakra_nodes(trace);
    const std::vector<uint8_t> later_piece = later_split_pieces(trace);  // costed once, at the first
    std::vector<TopLevelOp> out;
    for (const ChakraPlanNode& p : plan.nodes) {
        if (p.source == UINT32_MAX) continue;  // device events: not on this CPU
        if (p.queued_collective) continue;     // Gloo's work; its call is the node before
        if (later_piece[p.source]) continue;
        const uint64_t id = trace.nodes[p.source].id.value;
        if (id < lo || id > hi) continue;
        out.push_back({p.source, runs_under_autograd(trace, p.source)});
    }
    return out;
}

Prediction predict_iteration(const Trace& trace, const CostModel& costs, const HostCosts& host) {
    Prediction pred;
    for (const TopLevelOp& top : top_level_ops(trace, &pred.iteration)) {
        const Node& node = trace.nodes[top.node];
        const OpFacts facts = op_facts(trace, node);
        const CostEstimate est = costs.estimate(facts);
        PredictedOp op;
        op.node_id = node.id.value;
        op.name = facts.name;
        op.family = family_of(facts.name);
        op.fault_us = fresh_output_fault_us(facts, host);
        op.op_us = est.time_us + op.fault_us;
        op.source = est.source;
        op.backward = top.backward;
        op.host_us = host.before(op.name, top.backward);
        pred.compute_us += op.op_us;
        pred.fault_us += op.fault_us;
        pred.host_us += op.host_us;
        pred.compute_by_family_us[op.family] += op.op_us;
        switch (est.source) {
            case CostSource::Measured: ++pred.measured; break;
            case CostSource::FamilyModel: ++pred.modelled; break;
            case CostSource::Fallback:
                ++pred.fallback;
                ++pred.fallback_ops[op.name];
                break;
        }
        pred.ops.push_back(std::move(op));
    }
    pred.iteration_us = pred.compute_us + pred.host_us;
    return pred;
}

size_t hold_batch_order(Prediction& scaled, const Prediction& recorded, double scale) {
    if (scale == 1) return 0;
    std::unordered_map<uint64_t, double> recorded_us;
    for (const PredictedOp& op : recorded.ops) recorded_us[op.node_id] = op.op_us;
    size_t held = 0;
    for (PredictedOp& op : scaled.ops) {
        const auto it = recorded_us.find(op.node_id);
        if (it == recorded_us.end()) continue;
        const bool crossed = scale > 1 ? op.op_us < it->second : op.op_us > it->second;
        if (!crossed) continue;
        const double delta = it->second - op.op_us;
        op.op_us = it->second;
        scaled.compute_us += delta;
        scaled.compute_by_family_us[op.family] += delta;
        scaled.iteration_us += delta;
        ++held;
    }
    scaled.held_to_recorded_batch += held;
    return held;
}

}  // namespace mimic::model

// An iteration's time predicted from its execution trace alone: the
// top-level operators (the ops Python or the autograd engine called, as
// `mimic convert` cuts them), each costed by the cost model, plus the host
// time the original spends around each (Python and dispatch before an op
// called from Python, the autograd engine before a backward op), one after
// another on the thread that ran them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "model/cost_model.h"
#include "trace/trace.h"

namespace mimic::model {

struct PredictedOp {
    uint64_t node_id = 0;
    std::string name;
    OpFamily family = OpFamily::Other;
    double op_us = 0;
    double host_us = 0;
    double fault_us = 0;  // page faults on a fresh output, inside op_us
    CostSource source = CostSource::Fallback;
    bool backward = false;
};

struct Prediction {
    double iteration_us = 0;
    double compute_us = 0;
    double host_us = 0;
    double fault_us = 0;  // of compute_us
    std::map<OpFamily, double> compute_by_family_us;
    std::vector<PredictedOp> ops;  // in execution order: the critical path of one thread
    size_t measured = 0, modelled = 0, fallback = 0;
    std::map<std::string, size_t> fallback_ops;  // op name -> count
    std::string iteration;                       // the iteration predicted ("" for the whole trace)
    size_t held_to_recorded_batch = 0;           // ops hold_batch_order held
};

// `trace` must be finalized. Predicts the first iteration when the trace
// marks iterations (ProfilerStep#N), else the whole trace.
Prediction predict_iteration(const Trace& trace, const CostModel& costs, const HostCosts& host);

// A batch `scale` times the recorded one never makes an op faster (scale > 1)
// or slower (scale < 1). A family model fitted on noisy points (a shape
// sweep timed while other work ran) can say otherwise between two of its
// FLOP bins: a CI run predicted an MLP's GEMMs at 17.1 ms at its recorded
// batch and 9.9 ms at twice it. Each op of `scaled` (the trace rewritten at
// that batch) that crosses its counterpart in `recorded` (the same node id)
// is held at the counterpart's time, and the totals follow. Returns how
// many ops were held.
size_t hold_batch_order(Prediction& scaled, const Prediction& recorded, double scale);

// The top-level ops of the iteration predict_iteration costs, with whether
// each runs under the autograd engine: what `calibrate` pairs with measurements.
struct TopLevelOp {
    uint32_t node;  // index into Trace::nodes
    bool backward;
};
std::vector<TopLevelOp> top_level_ops(const Trace& trace, std::string* iteration = nullptr);

// Whether the node runs inside the autograd engine (under an
// autograd::engine::evaluate_function label): a backward op.
bool runs_under_autograd(const Trace& trace, uint32_t node);

// Page-fault time of an op's fresh output (HostCosts' fault model), in us.
double fresh_output_fault_us(const OpFacts& op, const HostCosts& host);

// One top-level op's predicted time, op and host together, in us.
double predicted_op_us(const Trace& trace, uint32_t node, const CostModel& costs, const HostCosts& host);

}  // namespace mimic::model

#include "model/gpu_estimate.h"

#include <cmath>
#include <unordered_map>

#include "model/op_signature.h"
#include "model/predictor.h"

namespace mimic::model {
namespace {

// The dtype of the op's first floating tensor input, as recorded.
std::string first_dtype(const Trace& trace, const Node& node) {
    std::string dtype = "float";
    for_each_tensor_index(trace, node.inputs, [&](uint32_t t) {
        if (dtype != "float") return;
        const std::string_view d = trace.str(trace.tensors[t].dtype);
        if (d.find("Half") != std::string_view::npos || d.find("BFloat16") != std::string_view::npos) dtype = std::string(d);
    });
    return dtype;
}

}  // namespace

GpuEstimate estimate_gpu_kernels(const Trace& trace, const DeviceSpec& spec) {
    GpuEstimate out;
    out.device = spec.name;
    // Each device event's top-level op: walk up from its launcher.
    std::unordered_map<uint32_t, size_t> top_index;
    const std::vector<TopLevelOp> tops = top_level_ops(trace);
    for (size_t i = 0; i < tops.size(); ++i) top_index[tops[i].node] = i;
    std::vector<double> recorded(tops.size(), 0);
    std::vector<size_t> kernels(tops.size(), 0);
    for (const DeviceEvent& ev : trace.device_events) {
        if (ev.launcher == kNoNode || trace.str(ev.category) != "kernel") continue;
        NodeIndex cur = ev.launcher;
        for (int depth = 0; depth < 256 && cur != kNoNode; ++depth) {
            auto it = top_index.find(cur.value);
            if (it != top_index.end()) {
                recorded[it->second] += ev.duration_us;
                ++kernels[it->second];
                break;
            }
            const NodeIndex up = trace.parent_of(cur);
            if (up == cur) break;
            cur = up;
        }
    }
    std::map<OpFamily, std::vector<double>> log_errors;
    for (size_t i = 0; i < tops.size(); ++i) {
        if (kernels[i] == 0) continue;
        const Node& node = trace.nodes[tops[i].node];
        const OpFacts f = op_facts(trace, node);
        const OpFamily family = family_of(f.name);
        if (f.bytes == 0 && f.flops <= 0) ++out.ops_without_shapes;
        const double compute_us = f.flops > 0 ? static_cast<double>(f.flops) / (spec.peak_flops_per_s(first_dtype(trace, node)) * spec.achievable_compute) * 1e6 : 0;
        const double memory_us = static_cast<double>(f.bytes) / (spec.memory_GBps * 1e9 * spec.achievable_bandwidth) * 1e6;
        const double estimated = std::max(compute_us, memory_us) + spec.kernel_overhead_us * static_cast<double>(kernels[i]);
        FamilyKernelError& e = out.by_family[family];
        ++e.ops;
        e.kernels += kernels[i];
        e.recorded_us += recorded[i];
        e.estimated_us += estimated;
        out.recorded_us += recorded[i];
        out.estimated_us += estimated;
        ++out.ops;
        out.kernels += kernels[i];
        if (recorded[i] > 0) log_errors[family].push_back(std::log(std::max(std::abs(estimated / recorded[i] - 1) * 100, 0.01)));
    }
    for (auto& [family, e] : out.by_family) {
        const auto& v = log_errors[family];
        double sum = 0;
        for (double x : v) sum += x;
        e.geomean_abs_error_pct = v.empty() ? 0 : std::exp(sum / static_cast<double>(v.size()));
    }
    return out;
}

}  // namespace mimic::model

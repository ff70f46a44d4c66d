#include "replay/timing/host_gaps.h"

#include <algorithm>
#include <cmath>

#include "support/median.h"
#include "support/text.h"

namespace mimic::replay {

double per_event_overhead_us(std::optional<double> traced_ms, std::optional<double> untraced_ms, uint64_t nodes) {
    if (!traced_ms || !untraced_ms || nodes == 0 || *traced_ms <= *untraced_ms) return 0;
    return (*traced_ms - *untraced_ms) * 1000.0 / double(nodes);
}

std::vector<double> collective_work_ends_us(const ProfileTrace& profile) {
    std::vector<double> ends;
    for (const HostEvent& e : profile.host) {
        const std::string_view name = profile.strings.view(e.name);
        if (starts_with(name, "gloo:") || starts_with(name, "nccl:")) ends.push_back(e.end_us());
    }
    std::sort(ends.begin(), ends.end());
    return ends;
}

HostGapModel host_gaps(const Trace& trace, const std::vector<NodeIndex>& ops, double per_event_us,
                       const std::vector<double>& collective_ends_us) {
    HostGapModel m;
    m.per_event_us = per_event_us;
    m.calibrated = per_event_us > 0;
    m.gap_us.assign(ops.size(), 0.0);
    if (trace.timing.size() != trace.nodes.size()) return m;
    // Position of each node in execution order, to count the nodes that start between two ops.
    std::vector<uint32_t> pos(trace.nodes.size(), 0);
    const auto& order = trace.execution_order();
    for (uint32_t k = 0; k < order.size(); ++k) pos[order[k].value] = k;
    const std::vector<uint32_t> sizes = subtree_sizes(trace);
    const NodeTiming* prev = nullptr;
    uint32_t prev_end_pos = 0;  // position just past the previous op's subtree
    uint64_t prev_caller = 0;   // the previous op's unrecorded caller, 0 for none
    const auto caller_of = [&](NodeIndex op) {
        auto it = trace.unrecorded_callers.find(trace.nodes[op.value].id.value);
        return it == trace.unrecorded_callers.end() ? uint64_t(0) : it->second;
    };
    for (size_t s = 0; s < ops.size(); ++s) {
        const NodeTiming& t = trace.timing[ops[s].value];
        if (!t.linked()) continue;
        const uint32_t p = pos[ops[s].value];
        const uint64_t caller = caller_of(ops[s]);
        if (prev) {
            const double gap_start = prev->start_us + prev->duration_us;
            const double gap = std::max(0.0, t.start_us - gap_start);
            m.recorded_total_us += gap;
            if (prev_caller != 0) {
                // Inside an unrecorded op, or just after its last call: not host time.
                m.unrecorded_total_us += gap;
            } else {
                // The last collective that completed inside the gap ended the wait.
                double blocked = 0;
                auto done = std::upper_bound(collective_ends_us.begin(), collective_ends_us.end(), t.start_us);
                if (done != collective_ends_us.begin() && *(done - 1) > gap_start)
                    blocked = std::min(gap, *(done - 1) - gap_start);
                const double events = double(p >= prev_end_pos ? p - prev_end_pos : 0) + 1.0;
                m.gap_us[s] = std::max(0.0, gap - blocked - per_event_us * events);
                m.blocked_total_us += blocked;
                m.corrected_total_us += m.gap_us[s];
            }
        }
        prev = &t;
        prev_end_pos = p + sizes[ops[s].value];
        prev_caller = caller;
    }
    return m;
}

double corrected_duration_us(const Trace& trace, NodeIndex op, const std::vector<uint32_t>& sizes, double per_event_us,
                             double probe_us) {
    const double instrumentation_us = per_event_us * double(sizes[op.value] - 1) + probe_us;
    return std::max(0.0, trace.timing[op.value].typical_duration_us() - instrumentation_us);
}

HostGapModel measured_host_gaps(const Trace& trace, const std::vector<NodeIndex>& steps, const std::vector<bool>& ran,
                                const OpGaps& gaps) {
    HostGapModel m;
    m.measured = true;
    // CPU times only when the file has them for every gap used.
    bool cpu = gaps.tail_cpu_us >= 0;
    double pending = gaps.tail_us, pending_cpu = std::max(0.0, gaps.tail_cpu_us);
    for (size_t k = 0; k < steps.size(); ++k) {
        auto it = gaps.by_node.find(trace.nodes[steps[k].value].id.value);
        if (it != gaps.by_node.end()) {
            // An op that is not replayed was work on this thread: its time joins the next gap.
            const double skipped = ran[k] ? 0.0 : it->second.duration_us;
            pending += it->second.gap_before_us + skipped;
            pending_cpu += std::max(0.0, it->second.gap_cpu_us) + skipped;
            cpu = cpu && it->second.gap_cpu_us >= 0;
        }
        if (!ran[k]) continue;
        m.gap_us.push_back(pending);
        m.gap_cpu_us.push_back(std::min(pending_cpu, pending));
        m.recorded_total_us += pending;
        m.cpu_total_us += m.gap_cpu_us.back();
        pending = pending_cpu = 0;
    }
    if (!cpu) {
        m.gap_cpu_us.clear();
        m.cpu_total_us = 0;
    }
    m.corrected_total_us = m.recorded_total_us;
    return m;
}

std::string calibrate_to_untraced(HostGapModel& m, const Trace& trace, const std::vector<NodeIndex>& ops,
                                  double untraced_us, int64_t fault_excess, double fault_cost_us) {
    m.from_untraced = true;
    m.untraced_us = untraced_us;
    m.op_time_us = 0;
    m.fault_excess = fault_excess;
    m.fault_cost_us = fault_cost_us;
    if (trace.timing.size() != trace.nodes.size()) return "";
    const std::vector<uint32_t> sizes = subtree_sizes(trace);
    for (NodeIndex n : ops)
        if (trace.timing[n.value].linked()) m.op_time_us += corrected_duration_us(trace, n, sizes, m.per_event_us, m.probe_cost_us);
    const double fault_us = static_cast<double>(fault_excess) * fault_cost_us;
    const double host_us = untraced_us - m.op_time_us - fault_us;
    std::string warning;
    if (host_us <= 0) {
        m.scale = 0;
        const std::string faults = fault_excess > 0 ? "the untraced calls took beyond the profiled iteration's"
                                                    : "the profiled iteration took beyond the untraced calls'";
        warning = "the replayed ops' recorded durations (" + std::to_string(int64_t(m.op_time_us)) + " us, corrected" +
                  (fault_excess == 0 ? std::string()
                                     : std::string(fault_excess > 0 ? ", plus " : ", less ") +
                                           std::to_string(int64_t(std::abs(fault_us))) + " us of page faults " + faults) +
                  ") exceed the untraced iteration (" + std::to_string(int64_t(untraced_us)) +
                  " us): no host time left to reproduce";
    } else if (m.corrected_total_us > 0) {
        m.scale = host_us / m.corrected_total_us;
    } else {
        // No gap to scale (one op, or no profile gaps): the host time goes before the first op.
        m.scale = 1;
        if (!m.gap_us.empty()) m.gap_us[0] = host_us;
        m.corrected_total_us = host_us;
        return "";
    }
    for (double& g : m.gap_us) g *= m.scale;
    m.corrected_total_us = std::max(0.0, host_us);
    return warning;
}

std::vector<double> mean_per_step(const std::vector<std::vector<double>>& samples) {
    std::vector<double> means(samples.size(), -1.0);
    for (size_t s = 0; s < samples.size(); ++s) {
        if (samples[s].empty()) continue;
        double total = 0;
        for (double v : samples[s]) total += v;
        means[s] = total / double(samples[s].size());
    }
    return means;
}

HostGapModel instrumented_host_gaps(const Trace& trace, const std::vector<NodeIndex>& ops, const std::vector<size_t>& steps,
                                   const InstrumentationMeasure& measure, double traced_span_us,
                                   const std::vector<double>& collective_ends_us) {
    HostGapModel m = host_gaps(trace, ops, 0.0, collective_ends_us);  // the gaps as recorded, waits left out
    m.instrumented = true;
    m.traced_span_us = traced_span_us;
    if (trace.timing.size() != trace.nodes.size()) return m;
    const auto at = [](const std::vector<double>& v, size_t s) { return s < v.size() ? v[s] : -1.0; };
    // The original's speed against the replay's: the same ops under the same
    // instrumentation, the profile's durations over the replay's traced ones
    // (their median ratio). The replay's measure is in its own machine time;
    // the original ran at its own (a VM's speed level, another CPU's clock).
    std::vector<double> ratios;
    for (size_t k = 0; k < ops.size(); ++k) {
        const NodeTiming& timing = trace.timing[ops[k].value];
        const double t = at(measure.traced_op_us, steps[k]);
        if (timing.linked() && t >= kSpeedSampleMinUs && timing.typical_duration_us() >= kSpeedSampleMinUs)
            ratios.push_back(timing.typical_duration_us() / t);
    }
    m.original_speed = ratios.size() >= kMinSpeedSamples ? median(ratios) : 1.0;
    const double speed = m.original_speed;
    m.instrumentation_us = measure.instrumentation_us * speed;
    m.untraced_us = std::max(0.0, traced_span_us - m.instrumentation_us - m.unrecorded_total_us);
    // Each recorded gap less the replay's traced gap there: the callbacks of
    // the events between the two ops, which the replay opened too. Summed
    // before clamping, so that noise either way cancels; gaps the replay did
    // not time keep the share the timed ones kept.
    std::vector<double> kept(ops.size(), 0.0);
    double recorded_timed = 0, kept_timed = 0, recorded_untimed = 0, weight_sum = 0;
    for (size_t k = 0; k < ops.size(); ++k) {
        const double replay_gap = at(measure.traced_gap_us, steps[k]);
        if (replay_gap < 0) {
            recorded_untimed += m.gap_us[k];
            continue;
        }
        recorded_timed += m.gap_us[k];
        kept_timed += m.gap_us[k] - speed * replay_gap;
        kept[k] = std::max(0.0, m.gap_us[k] - speed * replay_gap);
        weight_sum += kept[k];
    }
    const double share = recorded_timed > 0 ? std::max(0.0, kept_timed) / recorded_timed : 0.0;
    m.corrected_total_us = std::max(0.0, kept_timed) + share * recorded_untimed;
    m.scale = m.recorded_total_us > 0 ? m.corrected_total_us / m.recorded_total_us : 0;
    for (size_t k = 0; k < ops.size(); ++k) {
        const bool timed = at(measure.traced_gap_us, steps[k]) >= 0;
        m.gap_us[k] = timed ? (weight_sum > 0 ? std::max(0.0, kept_timed) * kept[k] / weight_sum : 0.0) : m.gap_us[k] * share;
    }
    return m;
}

}  // namespace mimic::replay

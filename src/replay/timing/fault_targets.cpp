#include "replay/timing/fault_targets.h"

#include <algorithm>
#include <cmath>

namespace mimic::replay {
namespace {

int64_t sum_of_targets(const std::vector<int64_t>& v) {
    int64_t s = 0;
    for (int64_t t : v) s += std::max<int64_t>(t, 0);
    return s;
}

}  // namespace

int64_t FaultTargets::untraced_excess() const { return sum_of_targets(untraced) - sum_of_targets(profiled); }

FaultTargets fault_targets(const std::vector<int64_t>& step_nodes, const OpFaults& profiled, const OpGaps* untraced_calls,
                           std::optional<double> untraced_faults_per_iter) {
    const auto per_step = [&](auto faults_of_node) {
        std::vector<int64_t> target(step_nodes.size(), -1);
        for (size_t s = 0; s < target.size(); ++s)
            if (step_nodes[s] >= 0) target[s] = faults_of_node(static_cast<uint64_t>(step_nodes[s]));
        return target;
    };
    FaultTargets out;
    out.profiled = per_step([&](uint64_t id) {
        auto it = profiled.by_node.find(id);
        return it == profiled.by_node.end() ? int64_t(-1) : it->second;
    });
    out.untraced = out.profiled;
    if (untraced_calls && untraced_calls->has_faults())
        out.untraced = per_step([&](uint64_t id) {
            auto it = untraced_calls->by_node.find(id);
            return it == untraced_calls->by_node.end() ? int64_t(-1) : it->second.faults;
        });
    out.untraced_calls = out.untraced;
    const int64_t spread = sum_of_targets(out.untraced);
    if (untraced_faults_per_iter && spread > 0) {
        const double scale = *untraced_faults_per_iter / double(spread);
        for (int64_t& t : out.untraced)
            if (t >= 0) t = std::llround(double(t) * scale);
    }
    return out;
}

}  // namespace mimic::replay

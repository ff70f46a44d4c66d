#include "sim/critical_path.h"

#include <algorithm>

namespace mimic::sim {

std::vector<CriticalStep> critical_path(const SimulationResult& result, const RankGraph& graph, int rank) {
    const size_t n = graph.nodes.size();
    std::vector<int64_t> span_of(n, -1);
    for (size_t k = 0; k < result.spans.size(); ++k)
        if (result.spans[k].rank == rank && result.spans[k].node < n) span_of[result.spans[k].node] = static_cast<int64_t>(k);
    std::vector<std::vector<uint32_t>> parents(n);
    for (uint32_t i = 0; i < n; ++i) {
        const WorkloadNode& node = graph.nodes[i];
        for (uint32_t c = 0; c < node.children_count; ++c) parents[graph.children[node.children_begin + c]].push_back(i);
    }
    // Per resource, the spans in start order, to find the one before a node.
    auto resource = [](NodeClass kind) { return static_cast<int>(kind); };
    std::vector<std::vector<uint32_t>> on_resource(5);
    for (uint32_t i = 0; i < n; ++i)
        if (span_of[i] >= 0) on_resource[resource(result.spans[static_cast<size_t>(span_of[i])].kind)].push_back(i);
    auto span = [&](uint32_t i) -> const Span& { return result.spans[static_cast<size_t>(span_of[i])]; };
    std::vector<uint32_t> position(n, 0);
    for (auto& list : on_resource) {
        std::sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
            return span(a).start_ns != span(b).start_ns ? span(a).start_ns < span(b).start_ns : a < b;
        });
        for (uint32_t k = 0; k < list.size(); ++k) position[list[k]] = k;
    }

    int64_t current = -1;
    for (uint32_t i = 0; i < n; ++i)
        if (span_of[i] >= 0 && (current < 0 || span(i).end_ns > span(static_cast<uint32_t>(current)).end_ns)) current = i;
    std::vector<CriticalStep> path;
    std::vector<uint8_t> seen(n, 0);
    while (current >= 0 && !seen[static_cast<size_t>(current)]) {
        const uint32_t i = static_cast<uint32_t>(current);
        seen[i] = 1;
        const Span& s = span(i);
        path.push_back({i, s.kind, s.start_ns, s.end_ns});
        // The latest-ending dependency, and the node before on the resource
        // (receives take no resource); whichever ended later held it up.
        int64_t best = -1;
        Tick best_end = 0;
        for (uint32_t p : parents[i])
            if (span_of[p] >= 0 && span(p).end_ns <= s.start_ns && (best < 0 || span(p).end_ns > best_end)) {
                best = p;
                best_end = span(p).end_ns;
            }
        const auto& list = on_resource[resource(s.kind)];
        const bool takes_resource = graph.nodes[i].type != ChakraNodeType::CommRecv;
        for (uint32_t k = position[i]; takes_resource && k-- > 0;) {
            const Span& before = span(list[k]);
            if (before.end_ns > s.start_ns) continue;  // overlapping (a receive, or another stream's)
            if (best < 0 || before.end_ns > best_end) {
                best = list[k];
                best_end = before.end_ns;
            }
            break;
        }
        current = best;
    }
    std::reverse(path.begin(), path.end());
    return path;
}

}  // namespace mimic::sim

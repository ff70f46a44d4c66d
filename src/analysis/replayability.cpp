#include "analysis/replayability.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "trace/split_pieces.h"

namespace mimic::analysis {

ReplayCoverage replay_coverage(const Trace& trace, const std::vector<NodeClass>& classes,
                               const OpNesting& nesting, const SchemaOracle& oracle, size_t max_blockers) {
    ReplayCoverage cov;
    cov.kernels_checked = static_cast<bool>(oracle);
    // A trace repeats a few hundred schemas over many nodes: ask once per schema.
    std::unordered_map<StrId, bool> registered;
    std::unordered_map<std::string_view, uint64_t> blocked_by_name;  // by the op's own name
    for (NodeIndex n : nesting.order) {
        // A later piece of a cut call replays with the call's first piece.
        if (!is_top_level_operator(nesting, n) || !classes[n.value].is_host_operator() || classes[n.value].later_piece) continue;
        const Node& node = trace.nodes[n.value];
        ++cov.total;
        bool ok = false;
        // A profile alone records no collective's tensors, so it has none to run.
        if (classes[n.value].category == OpCategory::Communication && trace.format != TraceFormat::KinetoProfile) {
            ++cov.collectives;
            ok = true;
        } else if (trace.str(node.op_schema).empty()) {
            ++cov.without_schema;
        } else if (!oracle) {
            ok = true;
        } else {
            auto [it, fresh] = registered.try_emplace(node.op_schema, false);
            if (fresh) it->second = oracle(trace.str(node.op_schema));
            ok = it->second;
            if (!ok) ++cov.not_registered;
        }
        if (ok)
            ++cov.replayable;
        else
            ++blocked_by_name[split_piece_base(trace.name(node))];
    }
    for (const auto& [name, count] : blocked_by_name) cov.blockers.emplace_back(std::string(name), count);
    std::sort(cov.blockers.begin(), cov.blockers.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    if (cov.blockers.size() > max_blockers) cov.blockers.resize(max_blockers);
    return cov;
}

}  // namespace mimic::analysis

// Matching by record-function id: the handle PyTorch gives each op call,
// which the ET writes as rf_id and newer profilers as "Record function id".
#include <unordered_map>

#include "link/op_match.h"

namespace mimic {

void match_by_record_function_id(const Trace& trace, const ProfileTrace& profile, const NameMap& names,
                                 OpMatch& match, LinkStats& stats) {
    std::unordered_map<int64_t, uint32_t> event_of_rf;
    for (uint32_t e = 0; e < profile.host.size(); ++e) {
        const HostEvent& h = profile.host[e];
        if (h.record_function_id >= 0 && is_op_event(h)) event_of_rf.emplace(h.record_function_id, e);
    }
    if (event_of_rf.empty()) return;
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const Node& node = trace.nodes[i];
        // rf_id 0 is what the observer writes for nodes it gave no id.
        if (!is_linkable(node) || node.rf_id == 0) continue;
        auto it = event_of_rf.find(static_cast<int64_t>(node.rf_id));
        if (it == event_of_rf.end() || match.event_used[it->second]) continue;
        // Ids alone could pair unrelated ops (ids restart per process); the name must agree.
        if (names(node.name) != profile.host[it->second].name.value) {
            ++stats.rf_id_name_mismatches;
            continue;
        }
        match.pair(NodeIndex(i), it->second, LinkMethod::RecordFunctionId);
    }
}

}  // namespace mimic

// Gloo runs each collective on a worker thread of its own, under a gloo:*
// label. The ET files that label on the observing thread (under whichever op
// was open there, or at its top level while the caller waited), the profiler
// on the worker's thread, which no ET thread matches, so in-order matching
// leaves them unlinked. Gloo runs its queue in order: the k-th unlinked
// gloo:* node of the ET (by id) is the k-th unused gloo:* event of the
// profile (by start) inside the span of the ops linked so far, if both lists
// have the same length and every pair the same name; otherwise none is
// paired (a profile of several steps holds labels the ET never saw).
#include <algorithm>
#include <limits>

#include "link/op_match.h"
#include "support/text.h"
#include "trace/op_owner.h"

namespace mimic {

void match_worker_labels(const Trace& trace, const ProfileTrace& profile, const NameMap& names, OpMatch& match) {
    std::vector<uint32_t> nodes;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    for (uint32_t i = 0; i < trace.nodes.size(); ++i) {
        const NodeIndex n(i);
        if (match.linked(n)) {
            const HostEvent& e = profile.host[match.event_of_node[i]];
            lo = std::min(lo, e.ts_us);
            hi = std::max(hi, e.end_us());
        } else if (is_async_backend_label(trace, trace.nodes[i])) {
            nodes.push_back(i);
        }
    }
    if (nodes.empty() || lo > hi) return;
    std::sort(nodes.begin(), nodes.end(),
              [&](uint32_t a, uint32_t b) { return trace.nodes[a].id.value < trace.nodes[b].id.value; });
    std::vector<uint32_t> events;
    for (uint32_t e = 0; e < profile.host.size(); ++e) {
        const HostEvent& h = profile.host[e];
        if (!match.event_used[e] && is_op_event(h) && h.ts_us >= lo && h.ts_us <= hi &&
            starts_with(profile.str(h.name), "gloo:"))
            events.push_back(e);
    }
    if (events.size() != nodes.size()) return;
    std::stable_sort(events.begin(), events.end(),
                     [&](uint32_t a, uint32_t b) { return profile.host[a].ts_us < profile.host[b].ts_us; });
    for (size_t k = 0; k < nodes.size(); ++k)
        if (names(trace.nodes[nodes[k]].name) != profile.host[events[k]].name.value) return;
    for (size_t k = 0; k < nodes.size(); ++k) match.pair(NodeIndex(nodes[k]), events[k], LinkMethod::InOrder);
}

}  // namespace mimic

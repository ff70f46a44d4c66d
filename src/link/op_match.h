// The pairing of ET nodes with profiler host events that the matchers build
// up, and the matchers: by record-function id, by autograd sequence number,
// then in order per thread.
#pragma once

#include <cstdint>
#include <vector>

#include "io/kineto/kineto_trace.h"
#include "link/link_profile.h"
#include "trace/trace.h"

namespace mimic {

struct OpMatch {
    std::vector<uint32_t> event_of_node;  // per node: host event index, or kNoEvent
    std::vector<LinkMethod> method;       // per node
    std::vector<uint8_t> event_used;      // per host event: already paired

    OpMatch(size_t nodes, size_t events)
        : event_of_node(nodes, kNoEvent), method(nodes, LinkMethod::None), event_used(events, 0) {}
    void pair(NodeIndex node, uint32_t event, LinkMethod how) {
        event_of_node[node.value] = event;
        method[node.value] = how;
        event_used[event] = 1;
    }
    void unpair(NodeIndex node) {
        event_used[event_of_node[node.value]] = 0;
        event_of_node[node.value] = kNoEvent;
        method[node.value] = LinkMethod::None;
    }
    bool linked(NodeIndex node) const { return event_of_node[node.value] != kNoEvent; }
};

// Nodes a profiler can have recorded: every node but the root and thread nodes.
bool is_linkable(const Node& node);

// Profiler events that stand for ET nodes: cpu ops and record_function labels
// (python_function events have no ET counterpart).
inline bool is_op_event(const HostEvent& e) { return e.category != HostCategory::PythonFunction; }

// Translates the trace's interned names into the profile's ids, so that names
// compare as integers; a name the profile never uses maps to UINT32_MAX.
class NameMap {
public:
    NameMap(const Trace& trace, const ProfileTrace& profile);
    uint32_t operator()(StrId et_name) const { return ids_[et_name.value]; }

private:
    std::vector<uint32_t> ids_;
};

// ET rf_id == the profile's "Record function id", with equal names.
void match_by_record_function_id(const Trace& trace, const ProfileTrace& profile, const NameMap& names,
                                 OpMatch& match, LinkStats& stats);

// ET seq_id == the profile's "Sequence number" with equal names, kept only
// where they form one ordered chain covering most of an ET thread's numbered
// nodes (numbers of two unrelated runs do coincide for some ops).
void match_by_sequence_number(const Trace& trace, const ProfileTrace& profile, const NameMap& names,
                              OpMatch& match);

// Per thread, in order, by name; pairs found by id are kept as fixed points.
void match_in_order(const Trace& trace, const ProfileTrace& profile, const NameMap& names, OpMatch& match,
                    LinkStats& stats);

// gloo:* labels of Gloo's worker threads, which no ET thread matches: the
// k-th unlinked one of the ET with the k-th unused one of the profile.
void match_worker_labels(const Trace& trace, const ProfileTrace& profile, const NameMap& names, OpMatch& match);

}  // namespace mimic

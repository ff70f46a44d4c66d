// In-order matching: the ET numbers nodes in the order ops start on a thread,
// and the profiler's events on that thread sorted by start time come in the
// same order, so the two name sequences can be aligned. Which profiler thread
// belongs to which ET thread is not written anywhere (the ET numbers threads
// 1, 2, ...; Kineto uses system thread ids), so threads are paired by the
// names they share, or by the pairs already found by id when there are some.
#include <algorithm>
#include <map>

#include "link/op_match.h"
#include "link/sequence_aligner.h"

namespace mimic {

namespace {

struct EtThread {
    uint64_t tid = 0;
    std::vector<NodeIndex> nodes;  // linkable nodes in execution order
};

struct ProfileThreadOps {
    uint32_t thread = 0;
    std::vector<uint32_t> events;  // op events in start order
};

std::vector<EtThread> et_threads(const Trace& trace) {
    std::map<uint64_t, size_t> slot;
    std::vector<EtThread> out;
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        if (!is_linkable(node)) continue;
        auto [it, fresh] = slot.try_emplace(node.tid, out.size());
        if (fresh) out.push_back({node.tid, {}});
        out[it->second].nodes.push_back(n);
    }
    return out;
}

std::vector<ProfileThreadOps> profile_threads(const ProfileTrace& profile) {
    std::vector<ProfileThreadOps> out;
    for (uint32_t t : profile.host_threads()) {
        ProfileThreadOps p{t, {}};
        for (uint32_t e : profile.host_order(t))
            if (is_op_event(profile.host[e])) p.events.push_back(e);
        if (!p.events.empty()) out.push_back(std::move(p));
    }
    return out;
}

// How much two threads look alike: ET nodes whose name the profiler thread
// has (each profiler occurrence counted once), and above that, pairs already
// tied together by record-function ids.
uint64_t affinity(const Trace& trace, const EtThread& et, const ProfileThreadOps& prof, const ProfileTrace& profile,
                  const NameMap& names, const OpMatch& match, std::vector<uint32_t>& counts) {
    counts.assign(profile.strings.size(), 0);
    for (uint32_t e : prof.events) ++counts[profile.host[e].name.value];
    uint64_t shared = 0, tied = 0;
    for (NodeIndex n : et.nodes) {
        uint32_t event = match.event_of_node[n.value];
        if (event != kNoEvent) {
            tied += profile.host[event].thread == prof.thread;
            continue;
        }
        uint32_t name = names(trace.nodes[n.value].name);
        if (name != UINT32_MAX && counts[name] > 0) {
            --counts[name];
            ++shared;
        }
    }
    return tied * (et.nodes.size() + 1) + shared;
}

// Aligns one ET thread with one profiler thread. Pairs already made on this
// thread (by record-function id or sequence number) split the sequences into
// stretches aligned on their own, so that in-order pairs never cross them.
void align_threads(const Trace& trace, const ProfileTrace& profile, const NameMap& names, const EtThread& et,
                   const ProfileThreadOps& prof, std::vector<uint32_t>& position, OpMatch& match) {
    for (uint32_t p = 0; p < prof.events.size(); ++p) position[prof.events[p]] = p;
    struct Anchor {
        size_t a, b;
    };
    std::vector<Anchor> anchors;
    for (size_t k = 0; k < et.nodes.size(); ++k) {
        uint32_t event = match.event_of_node[et.nodes[k].value];
        if (event == kNoEvent || profile.host[event].thread != prof.thread) continue;
        size_t p = position[event];
        if (anchors.empty() || p > anchors.back().b) anchors.push_back({k, p});
    }
    anchors.push_back({et.nodes.size(), prof.events.size()});  // sentinel: the ends

    std::vector<uint32_t> a, b;
    std::vector<NodeIndex> a_nodes;
    std::vector<uint32_t> b_events;
    size_t from_a = 0, from_b = 0;
    bool first = true;
    for (const Anchor& anchor : anchors) {
        a.clear();
        b.clear();
        a_nodes.clear();
        b_events.clear();
        for (size_t k = from_a; k < anchor.a; ++k) {
            NodeIndex n = et.nodes[k];
            if (match.linked(n)) continue;
            a.push_back(names(trace.nodes[n.value].name));
            a_nodes.push_back(n);
        }
        for (size_t p = from_b; p < anchor.b; ++p) {
            uint32_t e = prof.events[p];
            if (match.event_used[e]) continue;
            b.push_back(profile.host[e].name.value);
            b_events.push_back(e);
        }
        AlignOptions options;
        if (first && anchors.size() > 1) {
            // Before the first fixed pair: align backwards from it, so the
            // nodes just before it pair with the events just before its event
            // (not with a look-alike earlier iteration).
            std::reverse(a.begin(), a.end());
            std::reverse(b.begin(), b.end());
            options.free_leading_b = false;
            options.ties_to_first_a = false;  // reversed: the first in execution order is the last here
            for (auto [i, j] : align_sequences(a, b, options))
                match.pair(a_nodes[a.size() - 1 - i], b_events[b.size() - 1 - j], LinkMethod::InOrder);
        } else {
            options.free_leading_b = first;  // with no fixed pair at all, the ET may start anywhere
            for (auto [i, j] : align_sequences(a, b, options))
                match.pair(a_nodes[i], b_events[j], LinkMethod::InOrder);
        }
        first = false;
        from_a = anchor.a + 1;
        from_b = anchor.b + 1;
    }
}

}  // namespace

void match_in_order(const Trace& trace, const ProfileTrace& profile, const NameMap& names, OpMatch& match,
                    LinkStats& stats) {
    std::vector<EtThread> ets = et_threads(trace);
    std::vector<ProfileThreadOps> profs = profile_threads(profile);
    struct Candidate {
        uint64_t score;
        size_t et, prof;
    };
    std::vector<Candidate> candidates;
    std::vector<uint32_t> counts;
    for (size_t i = 0; i < ets.size(); ++i)
        for (size_t j = 0; j < profs.size(); ++j) {
            uint64_t score = affinity(trace, ets[i], profs[j], profile, names, match, counts);
            if (score > 0) candidates.push_back({score, i, j});
        }
    std::stable_sort(candidates.begin(), candidates.end(),
                     [](const Candidate& x, const Candidate& y) { return x.score > y.score; });
    std::vector<uint8_t> et_taken(ets.size(), 0), prof_taken(profs.size(), 0);
    std::vector<uint32_t> position(profile.host.size(), UINT32_MAX);
    for (const Candidate& c : candidates) {
        if (et_taken[c.et] || prof_taken[c.prof]) continue;
        et_taken[c.et] = prof_taken[c.prof] = 1;
        const EtThread& et = ets[c.et];
        const ProfileThreadOps& prof = profs[c.prof];
        align_threads(trace, profile, names, et, prof, position, match);
        ThreadPairing pairing;
        pairing.et_tid = et.tid;
        pairing.profile_pid = profile.threads[prof.thread].pid;
        pairing.profile_tid = profile.threads[prof.thread].tid;
        pairing.et_nodes = et.nodes.size();
        pairing.profile_events = prof.events.size();
        stats.threads.push_back(pairing);  // `linked` is counted once all matching is done
    }
}

}  // namespace mimic

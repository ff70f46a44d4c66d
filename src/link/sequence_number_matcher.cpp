// Matching by autograd sequence number. PyTorch numbers each op that records
// an autograd node from a per-thread counter that only grows, and both the ET
// (seq_id) and the profiler ("Sequence number") write it, on the forward op
// and on the backward ops run for it. So (name, number) picks out one op of
// one iteration, which in-order matching by names alone cannot: a profile of
// forty identical iterations looks the same everywhere.
#include <algorithm>
#include <map>
#include <unordered_map>

#include "link/op_match.h"

namespace mimic {

namespace {

uint64_t key_of(uint32_t name, int64_t seq) { return (uint64_t(name) << 32) ^ uint64_t(seq); }

struct Candidate {
    NodeIndex node;
    uint32_t event;
    uint32_t position;  // of the event on its thread, in start order
};

// The longest sub-list whose positions grow (the list is in ET order).
std::vector<Candidate> longest_ordered_chain(const std::vector<Candidate>& list) {
    std::vector<size_t> tails, prev(list.size(), SIZE_MAX);
    for (size_t i = 0; i < list.size(); ++i) {
        auto it = std::lower_bound(tails.begin(), tails.end(), list[i].position,
                                   [&](size_t t, uint32_t pos) { return list[t].position < pos; });
        if (it != tails.begin()) prev[i] = *(it - 1);
        if (it == tails.end()) tails.push_back(i);
        else *it = i;
    }
    std::vector<Candidate> chain;
    for (size_t i = tails.empty() ? SIZE_MAX : tails.back(); i != SIZE_MAX; i = prev[i]) chain.push_back(list[i]);
    std::reverse(chain.begin(), chain.end());
    return chain;
}

}  // namespace

void match_by_sequence_number(const Trace& trace, const ProfileTrace& profile, const NameMap& names,
                              OpMatch& match) {
    // (name, number) -> event; a key seen twice names no single op.
    constexpr uint32_t kAmbiguous = UINT32_MAX;
    std::unordered_map<uint64_t, uint32_t> event_of_key;
    for (uint32_t e = 0; e < profile.host.size(); ++e) {
        const HostEvent& h = profile.host[e];
        if (h.sequence_nr < 0 || !is_op_event(h) || match.event_used[e]) continue;
        auto [it, fresh] = event_of_key.try_emplace(key_of(h.name.value, h.sequence_nr), e);
        if (!fresh) it->second = kAmbiguous;
    }
    if (event_of_key.empty()) return;
    std::vector<uint32_t> position(profile.host.size(), 0);
    for (uint32_t t : profile.host_threads()) {
        const auto& order = profile.host_order(t);
        for (uint32_t p = 0; p < order.size(); ++p) position[order[p]] = p;
    }

    // Candidates per ET thread and profiler thread, in ET order.
    std::map<uint64_t, size_t> numbered;  // per ET tid: unlinked nodes with a number
    std::map<std::pair<uint64_t, uint32_t>, std::vector<Candidate>> groups;
    for (NodeIndex n : trace.execution_order()) {
        const Node& node = trace.nodes[n.value];
        if (!is_linkable(node) || node.seq_id < 0 || match.linked(n)) continue;
        ++numbered[node.tid];
        uint32_t name = names(node.name);
        if (name == UINT32_MAX) continue;
        auto it = event_of_key.find(key_of(name, node.seq_id));
        if (it == event_of_key.end() || it->second == kAmbiguous) continue;
        groups[{node.tid, profile.host[it->second].thread}].push_back({n, it->second, position[it->second]});
    }
    // For each ET thread, the profiler thread with the longest ordered chain;
    // kept only if it covers at least half of the thread's numbered nodes.
    std::map<uint64_t, std::vector<Candidate>> best;
    for (auto& [key, list] : groups) {
        std::vector<Candidate> chain = longest_ordered_chain(list);
        auto& current = best[key.first];
        if (chain.size() > current.size()) current = std::move(chain);
    }
    for (auto& [tid, chain] : best) {
        if (chain.size() * 2 < numbered[tid]) continue;
        for (const Candidate& c : chain) match.pair(c.node, c.event, LinkMethod::SequenceNumber);
    }
}

}  // namespace mimic

#include "replay/dist/collective_check.h"

#include <sstream>

#include "support/error.h"

namespace mimic::replay {
namespace {

std::string encode(const std::vector<CallSignature>& calls) {
    std::string out;
    for (const CallSignature& c : calls)
        out += c.pg_name + '\t' + c.collective + '\t' + std::to_string(c.input_bytes) + '\t' + std::to_string(c.node_id) + '\n';
    return out;
}

std::vector<CallSignature> decode(const std::string& text) {
    std::vector<CallSignature> out;
    std::istringstream in(text);
    std::string line;
    while (std::getline(in, line)) {
        std::istringstream fields(line);
        CallSignature c;
        std::string bytes, node;
        std::getline(fields, c.pg_name, '\t');
        std::getline(fields, c.collective, '\t');
        std::getline(fields, bytes, '\t');
        std::getline(fields, node, '\t');
        c.input_bytes = std::strtoull(bytes.c_str(), nullptr, 10);
        c.node_id = std::strtoull(node.c_str(), nullptr, 10);
        out.push_back(std::move(c));
    }
    return out;
}

// Collectives whose every member must give the same size.
bool sizes_must_agree(const std::string& collective) {
    return collective == "all_reduce" || collective == "broadcast" || collective == "reduce" ||
           collective == "all_gather" || collective == "reduce_scatter";
}

std::string describe(const CallSignature& c) {
    return c.collective + " of " + std::to_string(c.input_bytes) + " B (node " + std::to_string(c.node_id) + ")";
}

}  // namespace

std::vector<CallSignature> call_signatures(const Trace& trace, const Replayer& replayer) {
    std::vector<CallSignature> out;
    for (const Step& s : replayer.steps()) {
        if (s.collective < 0 || s.skipped) continue;
        const ReplayCollective& c = replayer.collectives()[size_t(s.collective)];
        if (c.recorded.kind == CommKind::Wait) continue;
        CallSignature sig;
        sig.pg_name = c.group->name;
        sig.collective = analysis::call_name(c.recorded);
        sig.input_bytes = c.recorded.input_bytes;
        sig.node_id = trace.nodes[s.node.value].id.value;
        out.push_back(std::move(sig));
    }
    return out;
}

std::string compare_call_sequences(const std::vector<std::vector<CallSignature>>& per_rank,
                                   const std::map<std::string, ReplayGroup>& groups) {
    for (const auto& [name, group] : groups) {
        // Each member's calls on this group, then every member against the first.
        std::vector<std::vector<const CallSignature*>> seqs;
        for (int64_t r : group.ranks) {
            seqs.emplace_back();
            if (r < 0 || size_t(r) >= per_rank.size()) continue;
            for (const CallSignature& c : per_rank[size_t(r)])
                if (c.pg_name == name && c.collective != "send" && c.collective != "recv") seqs.back().push_back(&c);
        }
        for (size_t m = 1; m < seqs.size(); ++m) {
            const auto& a = seqs[0];
            const auto& b = seqs[m];
            const std::string ra = "rank " + std::to_string(group.ranks[0]);
            const std::string rb = "rank " + std::to_string(group.ranks[m]);
            for (size_t k = 0; k < std::min(a.size(), b.size()); ++k) {
                const bool same = a[k]->collective == b[k]->collective &&
                                  (!sizes_must_agree(a[k]->collective) || a[k]->input_bytes == b[k]->input_bytes);
                if (!same)
                    return "the ranks' traces do not match on group '" + name + "': call " + std::to_string(k + 1) +
                           " is " + describe(*a[k]) + " on " + ra + " but " + describe(*b[k]) + " on " + rb;
            }
            if (a.size() != b.size())
                return "the ranks' traces do not match on group '" + name + "': " + ra + " makes " +
                       std::to_string(a.size()) + " calls, " + rb + " makes " + std::to_string(b.size());
        }
    }
    return {};
}

void check_calls_match(ProcessGroups& groups, const std::vector<CallSignature>& mine) {
    const DistOptions& o = groups.options();
    const std::string text = encode(mine);
    groups.publish("mimic/calls/" + std::to_string(o.rank), text);
    std::vector<std::vector<CallSignature>> all(size_t(o.world_size));
    for (int r = 0; r < o.world_size; ++r) all[size_t(r)] = decode(groups.read_peer("mimic/calls/" + std::to_string(r), r));
    const std::string diff = compare_call_sequences(all, groups.groups());
    if (!diff.empty()) fail({"", -1, -1, "collectives"}, diff);
}

}  // namespace mimic::replay

#include "link/iteration_repeats.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <optional>
#include <string_view>
#include <utility>

#include "support/median.h"

namespace mimic {

namespace {

std::optional<std::string_view> numbered_head(std::string_view s) {
    const size_t hash = s.rfind('#');
    if (hash == std::string_view::npos || hash + 1 == s.size()) return std::nullopt;
    for (size_t i = hash + 1; i < s.size(); ++i)
        if (!std::isdigit(static_cast<unsigned char>(s[i]))) return std::nullopt;
    return s.substr(0, hash);
}

// The host events under each event, in start order, as ranges of one array;
// the events without a parent, per thread, likewise.
class EventTree {
public:
    explicit EventTree(const ProfileTrace& profile) {
        const size_t n = profile.host.size();
        first_.assign(n + 1, 0);
        roots_.resize(profile.threads.size());
        for (uint32_t t : profile.host_threads())
            for (uint32_t e : profile.host_order(t)) {
                const uint32_t p = profile.host[e].parent;
                if (p == kNoEvent) roots_[t].push_back(e);
                else ++first_[p + 1];
            }
        for (size_t i = 0; i < n; ++i) first_[i + 1] += first_[i];
        items_.resize(first_[n]);
        std::vector<uint32_t> next(first_.begin(), first_.end() - 1);
        for (uint32_t t : profile.host_threads())
            for (uint32_t e : profile.host_order(t))
                if (profile.host[e].parent != kNoEvent) items_[next[profile.host[e].parent]++] = e;
    }
    std::pair<const uint32_t*, const uint32_t*> children(uint32_t e) const {
        return {items_.data() + first_[e], items_.data() + first_[e + 1]};
    }
    const std::vector<uint32_t>& roots(uint32_t thread) const { return roots_[thread]; }

private:
    std::vector<uint32_t> first_, items_;
    std::vector<std::vector<uint32_t>> roots_;
};

}  // namespace

bool same_label_family(std::string_view a, std::string_view b) {
    if (a == b) return true;
    const auto ha = numbered_head(a), hb = numbered_head(b);
    return ha && hb && *ha == *hb;
}

RepeatStats fill_repeat_medians(Trace& trace, const ProfileTrace& profile, const std::vector<uint32_t>& event_of_node,
                                size_t max_repeats) {
    RepeatStats stats;
    std::vector<uint32_t> node_of_event(profile.host.size(), UINT32_MAX);
    for (uint32_t i = 0; i < event_of_node.size() && i < trace.timing.size(); ++i) {
        NodeTiming& t = trace.timing[i];
        t.median_duration_us = t.duration_us;
        t.iterations = t.linked() ? 1 : 0;
        if (event_of_node[i] != kNoEvent) node_of_event[event_of_node[i]] = i;
    }
    if (trace.timing.size() != event_of_node.size()) return stats;

    // Labels outermost first, so that a numbered label inside a repeated one
    // (an outer loop's steps around ProfilerStep#<n>) is not walked again.
    std::vector<uint32_t> labels;
    for (uint32_t i = 0; i < event_of_node.size(); ++i) {
        const uint32_t e = event_of_node[i];
        if (e != kNoEvent && profile.host[e].category == HostCategory::UserAnnotation) labels.push_back(i);
    }
    std::sort(labels.begin(), labels.end(), [&](uint32_t a, uint32_t b) {
        const HostEvent& x = profile.host[event_of_node[a]];
        const HostEvent& y = profile.host[event_of_node[b]];
        return x.ts_us != y.ts_us ? x.ts_us < y.ts_us : x.dur_us > y.dur_us;
    });

    const EventTree tree(profile);
    // (node, duration in a repeat): as many as there are pairs, not one list per node.
    std::vector<std::pair<uint32_t, double>> samples;
    std::vector<uint8_t> covered(trace.timing.size(), 0);
    std::vector<std::pair<uint32_t, uint32_t>> stack;
    for (uint32_t label : labels) {
        if (covered[label]) continue;
        const uint32_t e = event_of_node[label];
        const HostEvent& ev = profile.host[e];
        const std::string_view name = profile.str(ev.name);
        // Equal names count only for labels at the top of their thread: a
        // label repeated inside an iteration ("block" around each layer of
        // a U-Net) marks parts that need not be alike.
        const bool numbered = numbered_head(name).has_value();
        if (!numbered && ev.parent != kNoEvent) continue;
        std::vector<uint32_t> repeats;
        const auto consider = [&](uint32_t s) {
            const HostEvent& r = profile.host[s];
            if (s != e && r.category == HostCategory::UserAnnotation && same_label_family(profile.str(r.name), name))
                repeats.push_back(s);
        };
        if (ev.parent == kNoEvent) {
            for (uint32_t s : tree.roots(ev.thread)) consider(s);
        } else {
            auto [b, end] = tree.children(ev.parent);
            for (const uint32_t* s = b; s != end; ++s) consider(*s);
        }
        if (repeats.empty()) continue;
        if (repeats.size() > max_repeats) {
            std::nth_element(repeats.begin(), repeats.begin() + std::ptrdiff_t(max_repeats), repeats.end(),
                             [&](uint32_t a, uint32_t b) {
                                 return std::fabs(profile.host[a].ts_us - ev.ts_us) < std::fabs(profile.host[b].ts_us - ev.ts_us);
                             });
            repeats.resize(max_repeats);
        }
        ++stats.labels;
        stats.iterations = std::max(stats.iterations, repeats.size() + 1);
        for (uint32_t r : repeats) {
            stack.assign(1, {e, r});
            while (!stack.empty()) {
                const auto [a, b] = stack.back();
                stack.pop_back();
                const uint32_t node = node_of_event[a];
                if (node != UINT32_MAX) {
                    samples.emplace_back(node, profile.host[b].dur_us);
                    covered[node] = 1;
                }
                auto [a0, a1] = tree.children(a);
                auto [b0, b1] = tree.children(b);
                // Children pair by position when both have as many; one that
                // differs in name or shapes stays out, with its subtree.
                if (a1 - a0 != b1 - b0) continue;
                for (ptrdiff_t k = 0; k < a1 - a0; ++k) {
                    const HostEvent& x = profile.host[a0[k]];
                    const HostEvent& y = profile.host[b0[k]];
                    if (x.name == y.name && x.input_dims_hash == y.input_dims_hash) stack.emplace_back(a0[k], b0[k]);
                }
            }
        }
    }
    std::sort(samples.begin(), samples.end());
    std::vector<double> durations;
    for (size_t i = 0; i < samples.size();) {
        const uint32_t node = samples[i].first;
        NodeTiming& t = trace.timing[node];
        durations.assign(1, t.duration_us);
        for (; i < samples.size() && samples[i].first == node; ++i) durations.push_back(samples[i].second);
        t.iterations = uint32_t(durations.size());
        t.median_duration_us = median(durations);
        ++stats.nodes_with_repeats;
    }
    return stats;
}

}  // namespace mimic

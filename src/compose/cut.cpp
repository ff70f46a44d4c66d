#include "compose/cut.h"

#include <algorithm>
#include <regex>
#include <set>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "support/error.h"

namespace mimic::compose {
namespace {

bool parse_uint(const std::string& s, uint64_t& out) {
    if (s.empty() || s.size() > 19) return false;
    out = 0;
    for (char c : s) {
        if (c < '0' || c > '9') return false;
        out = out * 10 + static_cast<uint64_t>(c - '0');
    }
    return true;
}

class Cutter {
public:
    explicit Cutter(EtDocument& doc) : doc_(doc) {
        std::vector<JsonValue>& nodes = doc_.nodes();
        for (size_t i = 0; i < nodes.size(); ++i) {
            int64_t id = EtDocument::id(nodes[i]);
            if (!index_of_.emplace(id, i).second)
                fail({doc_.path(), id, -1, "id"}, "two nodes have this id; a cut needs unique ids");
        }
        children_.resize(nodes.size());
        for (size_t i = 0; i < nodes.size(); ++i) {
            int64_t parent = doc_.parent(nodes[i]);
            auto p = index_of_.find(parent);
            if (p != index_of_.end() && p->second != i) children_[p->second].push_back(i);
        }
        // Execution order: by id, which the observer assigns at op start.
        order_.resize(nodes.size());
        for (size_t i = 0; i < order_.size(); ++i) order_[i] = i;
        std::sort(order_.begin(), order_.end(),
                  [&](size_t a, size_t b) { return EtDocument::id(nodes[a]) < EtDocument::id(nodes[b]); });
    }

    CutStats run(const CutSelection& selection) {
        CutStats stats;
        stats.nodes_before = doc_.nodes().size();
        std::vector<size_t> tops = select(selection, stats.description);
        stats.regions = tops.size();
        std::vector<bool> in(doc_.nodes().size(), false);
        for (size_t t : tops) take_subtree(t, in);
        stats.external_tensors = check_tensors(in);
        write_live_out(in, stats);
        keep_roots(in);
        std::vector<int64_t> new_parent(in.size(), -1);
        for (size_t i = 0; i < in.size(); ++i)
            if (in[i]) new_parent[i] = reparented(i, in);
        std::vector<JsonValue> kept;
        stats.first_id = UINT64_MAX;
        for (size_t i = 0; i < in.size(); ++i) {
            if (!in[i]) continue;
            JsonValue& node = doc_.nodes()[i];
            if (!is_root_label(EtDocument::name(node))) {
                uint64_t id = static_cast<uint64_t>(EtDocument::id(node));
                stats.first_id = std::min(stats.first_id, id);
                stats.last_id = std::max(stats.last_id, id);
            }
            if (new_parent[i] >= 0) doc_.set_parent(node, new_parent[i]);
            kept.push_back(std::move(node));
        }
        if (stats.first_id == UINT64_MAX) stats.first_id = 0;
        doc_.nodes() = std::move(kept);
        stats.nodes_after = doc_.nodes().size();
        return stats;
    }

private:
    [[noreturn]] void refuse(const std::string& field, const std::string& message, int64_t node = -1) const {
        fail({doc_.path(), node, -1, field}, message);
    }

    std::string describe(size_t i) const {
        const JsonValue& n = doc_.nodes()[i];
        return "node " + std::to_string(EtDocument::id(n)) + " '" + std::string(EtDocument::name(n)) + "'";
    }

    std::vector<size_t> select(const CutSelection& s, std::string& description) {
        switch (s.mode) {
            case CutSelection::Mode::Subtree: return select_subtree(s.argument, description);
            case CutSelection::Mode::Ops: return select_ops(s.argument, description);
            case CutSelection::Mode::Nodes: return select_range(s.argument, description);
            case CutSelection::Mode::Iteration: return select_iteration(s.argument, description);
        }
        return {};
    }

    std::vector<size_t> select_subtree(const std::string& what, std::string& description) {
        uint64_t id = 0;
        if (parse_uint(what, id)) {
            auto found = index_of_.find(static_cast<int64_t>(id));
            if (found == index_of_.end()) refuse("--subtree", "no node has id " + what);
            description = "subtree of " + describe(found->second);
            return {found->second};
        }
        std::vector<JsonValue>& nodes = doc_.nodes();
        size_t matches = 0, first = 0;
        for (size_t i : order_)
            if (EtDocument::name(nodes[i]) == what && matches++ == 0) first = i;
        if (matches == 0) refuse("--subtree", "no node is named '" + what + "' (give a node id or an exact name)");
        description = "subtree of " + describe(first) +
                      (matches > 1 ? " (first of " + std::to_string(matches) + " nodes of that name)" : "");
        return {first};
    }

    std::vector<size_t> select_ops(const std::string& pattern, std::string& description) {
        std::regex re;
        try {
            re = std::regex(pattern);
        } catch (const std::regex_error& e) {
            refuse("--ops", "not a valid regular expression: " + pattern + " (" + e.what() + ")");
        }
        std::vector<bool> matched(doc_.nodes().size(), false);
        for (size_t i = 0; i < matched.size(); ++i) {
            const std::string name(EtDocument::name(doc_.nodes()[i]));
            matched[i] = !is_root_label(name) && std::regex_search(name, re);
        }
        std::vector<size_t> tops;
        for (size_t i : order_)
            if (matched[i] && !has_matched_ancestor(i, matched)) tops.push_back(i);
        if (tops.empty()) refuse("--ops", "no node name matches '" + pattern + "'");
        description = std::to_string(tops.size()) + " ops matching '" + pattern + "' with what runs inside them";
        return tops;
    }

    std::vector<size_t> select_range(const std::string& range, std::string& description) {
        size_t dots = range.find("..");
        uint64_t a = 0, b = 0;
        if (dots == std::string::npos || !parse_uint(range.substr(0, dots), a) || !parse_uint(range.substr(dots + 2), b) || b < a)
            refuse("--nodes", "expected A..B with node ids A <= B, got '" + range + "'");
        std::vector<size_t> tops = select_ids(a, b);
        if (tops.empty()) refuse("--nodes", "no node has an id in " + range);
        description = "nodes " + range;
        return tops;
    }

    std::vector<size_t> select_ids(uint64_t a, uint64_t b) const {
        std::vector<size_t> tops;
        for (size_t i : order_) {
            uint64_t id = static_cast<uint64_t>(EtDocument::id(doc_.nodes()[i]));
            if (id < a || id > b || is_root_label(EtDocument::name(doc_.nodes()[i]))) continue;
            // Below another node of the range: taken with it.
            size_t p = parent_index(i);
            uint64_t parent_id = p == SIZE_MAX ? 0 : static_cast<uint64_t>(EtDocument::id(doc_.nodes()[p]));
            if (p != SIZE_MAX && parent_id >= a && parent_id <= b && !is_root_label(EtDocument::name(doc_.nodes()[p])))
                continue;
            tops.push_back(i);
        }
        return tops;
    }

    // As replay counts iterations: an iteration is the ids from its
    // ProfilerStep label to the next one (backward runs on the autograd
    // thread, outside the label's subtree).
    std::vector<size_t> select_iteration(const std::string& which, std::string& description) {
        std::vector<size_t> labels;
        for (size_t i : order_)
            if (EtDocument::name(doc_.nodes()[i]).rfind("ProfilerStep#", 0) == 0) labels.push_back(i);
        if (labels.empty()) refuse("--iteration", "the trace has no ProfilerStep# labels (cut a --subtree instead)");
        size_t pick = labels.size();
        for (size_t k = 0; k < labels.size(); ++k)
            if (EtDocument::name(doc_.nodes()[labels[k]]) == "ProfilerStep#" + which) pick = k;
        uint64_t k = 0;
        if (pick == labels.size() && parse_uint(which, k) && k < labels.size()) pick = static_cast<size_t>(k);
        if (pick == labels.size())
            refuse("--iteration", "no iteration '" + which + "' (the trace has " + std::to_string(labels.size()) +
                                      " ProfilerStep labels)");
        uint64_t first = static_cast<uint64_t>(EtDocument::id(doc_.nodes()[labels[pick]]));
        uint64_t last = pick + 1 < labels.size() ? static_cast<uint64_t>(EtDocument::id(doc_.nodes()[labels[pick + 1]])) - 1
                                                  : UINT64_MAX;
        std::vector<size_t> tops = select_ids(first, last);
        description = "iteration " + std::string(EtDocument::name(doc_.nodes()[labels[pick]]));
        return tops;
    }

    size_t parent_index(size_t i) const {
        auto p = index_of_.find(doc_.parent(doc_.nodes()[i]));
        return p == index_of_.end() || p->second == i ? SIZE_MAX : p->second;
    }

    bool has_matched_ancestor(size_t i, const std::vector<bool>& matched) const {
        size_t steps = 0;
        for (size_t p = parent_index(i); p != SIZE_MAX && steps < matched.size(); p = parent_index(p), ++steps)
            if (matched[p]) return true;
        return false;
    }

    void take_subtree(size_t top, std::vector<bool>& in) const {
        std::vector<size_t> stack{top};
        while (!stack.empty()) {
            size_t i = stack.back();
            stack.pop_back();
            if (in[i]) continue;
            in[i] = true;
            for (size_t c : children_[i]) stack.push_back(c);
        }
    }

    // Counts the tensors the region reads before (or without) making them;
    // each must have a recorded shape for replay to make it.
    uint64_t check_tensors(const std::vector<bool>& in) {
        std::set<std::pair<int64_t, int64_t>> made, external;
        for (size_t i : order_) {
            if (!in[i]) continue;
            JsonValue& node = doc_.nodes()[i];
            const int64_t id = EtDocument::id(node);
            visit_tensors(doc_.inputs(node), [&](const EtTensor& t) {
                std::pair<int64_t, int64_t> key{t.value.items()[0].as_int(), t.value.items()[1].as_int()};
                if (made.count(key) || external.count(key)) return;
                if (!t.shape || !t.shape->is_array())
                    refuse("inputs", "the cut would orphan tensor " + std::to_string(key.first) +
                                         ": it is made outside the cut and has no recorded shape to make it from",
                           id);
                external.insert(key);
            });
            visit_tensors(doc_.outputs(node), [&](const EtTensor& t) {
                made.insert({t.value.items()[0].as_int(), t.value.items()[1].as_int()});
            });
        }
        return external.size();
    }

    // The tensors the region makes that the rest of the trace reads later
    // (activations backward reads): the replay keeps them alive to the end,
    // so the region allocates on the memory it had inside the full replay
    // (Trace::live_out_tensors).
    void write_live_out(const std::vector<bool>& in, CutStats& stats) {
        std::set<std::pair<int64_t, int64_t>> made, live;
        for (size_t i : order_) {
            JsonValue& node = doc_.nodes()[i];
            if (in[i]) {
                visit_tensors(doc_.outputs(node), [&](const EtTensor& t) {
                    made.insert({t.value.items()[0].as_int(), t.value.items()[1].as_int()});
                });
                continue;
            }
            visit_tensors(doc_.inputs(node), [&](const EtTensor& t) {
                std::pair<int64_t, int64_t> key{t.value.items()[0].as_int(), t.value.items()[1].as_int()};
                if (made.count(key)) live.insert(key);
            });
        }
        stats.live_out_tensors = live.size();
        JsonValue list = JsonValue::array();
        for (const auto& [id, storage] : live) {
            JsonValue pair = JsonValue::array();
            pair.items().push_back(JsonValue::of_int(id));
            pair.items().push_back(JsonValue::of_int(storage));
            list.items().push_back(std::move(pair));
        }
        JsonValue marker = JsonValue::object();
        marker["region"] = JsonValue::of_string(stats.description);
        marker["live_out"] = std::move(list);
        doc_.root()["mimic_cut"] = std::move(marker);
    }

    // The process and thread roots above the region stay, so the cut has the
    // tree shape every reader expects.
    void keep_roots(std::vector<bool>& in) const {
        std::vector<bool> region = in;
        for (size_t i = 0; i < region.size(); ++i) {
            if (!region[i]) continue;
            size_t steps = 0;
            for (size_t p = parent_index(i); p != SIZE_MAX && steps < in.size(); p = parent_index(p), ++steps)
                if (is_root_label(EtDocument::name(doc_.nodes()[p]))) in[p] = true;
        }
    }

    // The parent a node takes in the cut: -1 when its own stays, else the
    // nearest ancestor kept (a root), 0 when there is none.
    int64_t reparented(size_t i, const std::vector<bool>& in) const {
        size_t p = parent_index(i);
        if (p == SIZE_MAX || in[p]) return -1;
        size_t steps = 0;
        while (p != SIZE_MAX && !in[p] && steps++ < in.size()) p = parent_index(p);
        return p == SIZE_MAX || !in[p] ? 0 : EtDocument::id(doc_.nodes()[p]);
    }

    EtDocument& doc_;
    std::unordered_map<int64_t, size_t> index_of_;
    std::vector<std::vector<size_t>> children_;
    std::vector<size_t> order_;  // node positions in execution order (read before run() moves the nodes)
};

}  // namespace

CutStats cut_trace(EtDocument& doc, const CutSelection& selection) { return Cutter(doc).run(selection); }

}  // namespace mimic::compose

#include "analysis/trace_diff.h"

#include <algorithm>
#include <cstdlib>
#include <map>

#include <fmt/format.h>

#include "support/error.h"
#include "support/json_writer.h"

namespace mimic::analysis {
namespace {

constexpr size_t kMaxAlignCells = 30'000'000;  // beyond this, compare counts only
constexpr size_t kShownMismatches = 20;

struct Side {
    std::string label;
    std::vector<NodeIndex> ops;
};

// The id range of the requested iteration: from its ProfilerStep label to the
// next one (backward runs on another thread, outside the label's subtree).
Side top_level_ops(const Trace& t, const DiffOptions& options) {
    Side side;
    uint64_t lo = 0, hi = UINT64_MAX;
    if (options.iteration != "all") {
        std::vector<NodeIndex> labels;
        for (NodeIndex i : t.execution_order())
            if (t.nodes[i.value].kind == NodeKind::Label && t.name(t.nodes[i.value]).rfind("ProfilerStep#", 0) == 0)
                labels.push_back(i);
        size_t pick = labels.size();
        if (options.iteration.empty()) {
            pick = labels.empty() ? 0 : 0;
        } else {
            for (size_t k = 0; k < labels.size(); ++k)
                if (t.name(t.nodes[labels[k].value]) == "ProfilerStep#" + options.iteration) pick = k;
            if (pick == labels.size()) {
                char* end = nullptr;
                unsigned long k = std::strtoul(options.iteration.c_str(), &end, 10);
                if (!end || *end != '\0' || k >= labels.size())
                    fail({t.source_path, -1, -1, "--iteration"}, "no iteration '" + options.iteration + "'");
                pick = k;
            }
        }
        if (pick < labels.size()) {
            side.label = std::string(t.name(t.nodes[labels[pick].value]));
            lo = t.nodes[labels[pick].value].id.value;
            if (pick + 1 < labels.size()) hi = t.nodes[labels[pick + 1].value].id.value - 1;
        }
    }
    for (NodeIndex i : t.execution_order()) {
        const Node& n = t.nodes[i.value];
        if (n.id.value < lo || n.id.value > hi || n.kind != NodeKind::Operator) continue;
        bool nested = false;
        for (NodeIndex p = t.parent_of(i); p != kNoNode && !nested; p = t.parent_of(p))
            nested = t.nodes[p.value].kind == NodeKind::Operator;
        if (!nested) side.ops.push_back(i);
    }
    return side;
}

std::string shapes_of(const Trace& t, NodeIndex i) {
    const Node& n = t.nodes[i.value];
    std::string s;
    auto tensor = [&](const Value& v) {
        const TensorMeta& m = t.tensor(v);
        if (m.undefined) return std::string("None");
        std::string out = "[";
        for (uint16_t d = 0; d < m.rank; ++d) out += (d ? "," : "") + std::to_string(t.shape(m)[d]);
        return out + "]";
    };
    for (uint32_t k = 0; k < n.inputs.count; ++k) {
        const Value& v = t.values[n.inputs.begin + k];
        if (k) s += ",";
        if (v.kind == ValueKind::Tensor) {
            s += tensor(v);
        } else if (v.kind == ValueKind::List) {
            s += "(";
            for (uint32_t e = 0; e < v.payload.range.count; ++e) {
                const Value& item = t.values[v.payload.range.begin + e];
                s += (e ? "," : "") + (item.kind == ValueKind::Tensor ? tensor(item) : std::string("_"));
            }
            s += ")";
        } else {
            s += "_";
        }
    }
    return s;
}

double duration(const Trace& t, NodeIndex i) {
    return t.timing.size() == t.nodes.size() && t.timing[i.value].linked() ? t.timing[i.value].duration_us : 0.0;
}

}  // namespace

TraceDiff diff_traces(const Trace& a, const Trace& b, const DiffOptions& options) {
    TraceDiff d;
    const Side sa = top_level_ops(a, options), sb = top_level_ops(b, options);
    d.label_a = sa.label;
    d.label_b = sb.label;
    d.ops_a = sa.ops.size();
    d.ops_b = sb.ops.size();

    std::map<std::string, NameDiff> names;
    for (NodeIndex i : sa.ops) {
        NameDiff& nd = names[std::string(a.name(a.nodes[i.value]))];
        ++nd.count_a;
        nd.time_a_us += duration(a, i);
    }
    for (NodeIndex i : sb.ops) {
        NameDiff& nd = names[std::string(b.name(b.nodes[i.value]))];
        ++nd.count_b;
        nd.time_b_us += duration(b, i);
    }
    for (auto& [name, nd] : names) {
        nd.name = name;
        d.names.push_back(nd);
    }
    std::stable_sort(d.names.begin(), d.names.end(), [](const NameDiff& x, const NameDiff& y) {
        return std::max(x.count_a, x.count_b) > std::max(y.count_a, y.count_b);
    });

    const size_t n = sa.ops.size(), m = sb.ops.size();
    if ((n + 1) * (m + 1) > kMaxAlignCells) {
        d.aligned_by_count_only = true;
        for (const NameDiff& nd : d.names) d.matched += std::min(nd.count_a, nd.count_b);
        return d;
    }
    // Longest common subsequence by name, then the matched pairs' shapes.
    auto name_a = [&](size_t i) { return a.nodes[sa.ops[i].value].name; };
    auto name_b = [&](size_t j) { return b.nodes[sb.ops[j].value].name; };
    // Names are interned per trace: compare the text.
    std::vector<std::string_view> ta(n), tb(m);
    for (size_t i = 0; i < n; ++i) ta[i] = a.str(name_a(i));
    for (size_t j = 0; j < m; ++j) tb[j] = b.str(name_b(j));
    std::vector<uint32_t> lcs((n + 1) * (m + 1), 0);
    auto at = [&](size_t i, size_t j) -> uint32_t& { return lcs[i * (m + 1) + j]; };
    for (size_t i = n; i-- > 0;)
        for (size_t j = m; j-- > 0;)
            at(i, j) = ta[i] == tb[j] ? at(i + 1, j + 1) + 1 : std::max(at(i + 1, j), at(i, j + 1));
    for (size_t i = 0, j = 0; i < n && j < m;) {
        if (ta[i] == tb[j]) {
            ++d.matched;
            std::string sha = shapes_of(a, sa.ops[i]), shb = shapes_of(b, sb.ops[j]);
            if (sha == shb) {
                ++d.same_shapes;
            } else {
                if (d.shape_mismatches.size() < kShownMismatches)
                    d.shape_mismatches.push_back({std::string(ta[i]), a.nodes[sa.ops[i].value].id.value,
                                                  b.nodes[sb.ops[j].value].id.value, sha, shb});
                ++d.shape_mismatch_count;
            }
            ++i;
            ++j;
        } else if (at(i + 1, j) >= at(i, j + 1)) {
            ++i;
        } else {
            ++j;
        }
    }
    return d;
}

std::string diff_to_json(const TraceDiff& d, const std::string& path_a, const std::string& path_b,
                         const MachinePair* machines) {
    JsonWriter w;
    w.begin_object();
    w.key("a").begin_object().field("path", path_a).field("iteration", d.label_a).field("ops", uint64_t(d.ops_a)).end_object();
    w.key("b").begin_object().field("path", path_b).field("iteration", d.label_b).field("ops", uint64_t(d.ops_b)).end_object();
    w.field("matched", uint64_t(d.matched)).field("same_shapes", uint64_t(d.same_shapes));
    w.field("shape_mismatches", uint64_t(d.shape_mismatch_count)).field("identical", d.identical());
    w.field("aligned_by_count_only", d.aligned_by_count_only);
    w.key("shape_mismatch_examples").begin_array();
    for (const ShapeMismatch& s : d.shape_mismatches)
        w.begin_object().field("name", s.name).field("node_a", uint64_t(s.node_id_a)).field("node_b", uint64_t(s.node_id_b))
            .field("shapes_a", s.shapes_a).field("shapes_b", s.shapes_b).end_object();
    w.end_array();
    w.key("per_name").begin_array();
    for (const NameDiff& nd : d.names)
        w.begin_object().field("name", nd.name).field("count_a", uint64_t(nd.count_a)).field("count_b", uint64_t(nd.count_b))
            .field("time_a_us", nd.time_a_us).field("time_b_us", nd.time_b_us).end_object();
    w.end_array();
    if (machines) {
        w.key("machines");
        write_machines_json(w, *machines);
    }
    w.end_object();
    return w.str() + "\n";
}

std::string diff_to_text(const TraceDiff& d, const std::string& path_a, const std::string& path_b, size_t max_rows,
                         const MachinePair* machines) {
    std::string out;
    auto line = [&](const std::string& s) { out += s + "\n"; };
    line(fmt::format("A: {} ({}), {} top-level ops", path_a, d.label_a.empty() ? "whole trace" : d.label_a, d.ops_a));
    line(fmt::format("B: {} ({}), {} top-level ops", path_b, d.label_b.empty() ? "whole trace" : d.label_b, d.ops_b));
    if (machines) out += machines_text(*machines);
    line(fmt::format("matched in order by name: {}{}; with the same input shapes: {}; shape mismatches: {}", d.matched,
                     d.aligned_by_count_only ? " (by count only: too long to align)" : "", d.same_shapes,
                     d.shape_mismatch_count));
    line(d.identical() ? "the traces ran the same operators with the same shapes" : "the traces differ");
    for (const ShapeMismatch& s : d.shape_mismatches)
        line(fmt::format("  shapes differ: {} (A node {}, B node {}): {} vs {}", s.name, s.node_id_a, s.node_id_b,
                         s.shapes_a.substr(0, 80), s.shapes_b.substr(0, 80)));
    size_t shown = 0;
    for (const NameDiff& nd : d.names) {
        if (nd.count_a == nd.count_b) continue;
        if (shown++ == 0) line(fmt::format("  {:<44} {:>8} {:>8}", "ops whose counts differ", "A", "B"));
        if (shown > max_rows) break;
        line(fmt::format("  {:<44} {:>8} {:>8}", nd.name.substr(0, 44), nd.count_a, nd.count_b));
    }
    return out;
}

}  // namespace mimic::analysis

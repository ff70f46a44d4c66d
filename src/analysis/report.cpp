#include "analysis/report.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <unordered_map>

#include "analysis/node_times.h"
#include "analysis/op_nesting.h"
#include "trace/split_pieces.h"

namespace mimic::analysis {
namespace {

std::string_view format_key(TraceFormat f) {
    switch (f) {
        case TraceFormat::PyTorchEt: return "pytorch_et";
        case TraceFormat::Chakra: return "chakra";
        case TraceFormat::KinetoProfile: return "kineto_profile";
        case TraceFormat::Unknown: break;
    }
    return "unknown";
}

void sort_operators(std::vector<OperatorStats>& ops) {
    std::sort(ops.begin(), ops.end(), [](const OperatorStats& a, const OperatorStats& b) {
        if (a.self_us != b.self_us) return a.self_us > b.self_us;
        if (a.count != b.count) return a.count > b.count;
        return a.name < b.name;
    });
}

void sort_blockers(std::vector<std::pair<std::string, uint64_t>>& blockers, size_t keep) {
    std::sort(blockers.begin(), blockers.end(),
              [](const auto& a, const auto& b) { return a.second != b.second ? a.second > b.second : a.first < b.first; });
    if (blockers.size() > keep) blockers.resize(keep);
}

// Joins distinct values in first-seen order: "1.1.0-chakra.0.0.4, 1.0.3-chakra.0.0.4".
void add_distinct(std::string& joined, std::string_view value) {
    if (value.empty()) return;
    size_t pos = 0;
    while (pos <= joined.size()) {
        size_t end = joined.find(", ", pos);
        if (end == std::string::npos) end = joined.size();
        if (joined.compare(pos, end - pos, value) == 0 && end - pos == value.size()) return;
        pos = end + 2;
    }
    if (!joined.empty()) joined += ", ";
    joined += value;
}

}  // namespace

Report analyze(const Trace& trace, const AnalysisOptions& options) {
    Report r;
    const std::vector<NodeClass> classes = classify_nodes(trace);
    const OpNesting nesting = compute_op_nesting(trace, classes);
    const NodeTimes times(trace, time_source_of(trace));

    r.schema_version = trace.schema_version;
    r.nodes = trace.nodes.size();
    r.time_source = std::string(time_source_key(times.source()));
    r.timed = times.timed();

    // Keyed by the op's own name: the pieces a Chakra converter cut one call
    // into (trace/split_pieces.h) are that one call, their times its time.
    std::unordered_map<std::string_view, OperatorStats> by_name;
    for (NodeIndex n : nesting.order) {
        const Node& node = trace.nodes[n.value];
        const OpCategory cat = classes[n.value].category;
        const NodeIndex owner = nesting.top_level_owner[n.value];
        CategoryStats& own = r.categories[static_cast<size_t>(cat)];
        ++own.count;
        if ((owner == n || owner == kNoNode) && !classes[n.value].later_piece) ++own.top_level;
        const double self = times.self_us(n);
        const OpCategory charged = owner == kNoNode ? cat : classes[owner.value].category;
        r.categories[static_cast<size_t>(charged)].self_us += self;
        r.total_self_us += self;
        if (!trace.str(node.op_schema).empty() && !classes[n.value].later_piece) ++r.operators_with_schema;
        if (!classes[n.value].is_host_operator()) continue;
        const std::string_view name = split_piece_base(trace.name(node));
        OperatorStats& op = by_name[name];
        if (op.name.empty()) {
            op.name = std::string(name);
            op.category = cat;
        }
        op.self_us += self;
        if (classes[n.value].later_piece) continue;
        ++r.operators;
        if (owner == n) ++r.top_level_operators;
        ++op.count;
    }
    r.operators_by_time.reserve(by_name.size());
    for (auto& [id, stats] : by_name) r.operators_by_time.push_back(std::move(stats));
    sort_operators(r.operators_by_time);

    IterationScan scan = find_iterations(trace, classes, times);
    r.iteration_method = scan.method;
    r.iteration_marker = scan.marker;
    r.iterations = std::move(scan.iterations);

    r.collectives = summarize_collectives(find_collectives(trace, classes, nesting, times), trace.rank);
    r.process_groups = trace.process_groups;
    r.replay = replay_coverage(trace, classes, nesting, options.oracle);
    r.memory = memory_timeline(trace, nesting);

    r.device_events = trace.device_events.size();
    for (const DeviceEvent& e : trace.device_events) r.device_busy_us += e.duration_us;

    InputSummary in;
    in.source = trace.source_path;
    in.format = std::string(format_key(trace.format));
    in.schema_version = trace.schema_version;
    in.rank = trace.rank;
    in.world_size = trace.world_size;
    in.rank_source = trace.rank_source;
    in.nodes = r.nodes;
    in.operators = r.operators;
    in.time_source = r.time_source;
    in.self_us = r.total_self_us;
    in.warnings = trace.warnings.size();
    r.inputs.push_back(std::move(in));
    return r;
}

Report merge_reports(std::vector<Report> reports) {
    if (reports.size() == 1) return std::move(reports.front());
    Report m;
    m.time_source.clear();
    m.iteration_method.clear();
    std::map<std::string, OperatorStats> ops;
    std::map<std::string, uint64_t> blockers;
    std::map<std::string, double> link_stats;
    std::vector<std::string> link_order;
    for (Report& r : reports) {
        for (InputSummary& in : r.inputs) m.inputs.push_back(std::move(in));
        add_distinct(m.schema_version, r.schema_version);
        m.nodes += r.nodes;
        m.operators += r.operators;
        m.top_level_operators += r.top_level_operators;
        m.operators_with_schema += r.operators_with_schema;
        add_distinct(m.time_source, r.time_source);
        m.timed = m.timed || r.timed;
        m.total_self_us += r.total_self_us;
        for (size_t c = 0; c < kCategoryCount; ++c) {
            m.categories[c].count += r.categories[c].count;
            m.categories[c].top_level += r.categories[c].top_level;
            m.categories[c].self_us += r.categories[c].self_us;
        }
        if (r.iteration_method != "none") {
            add_distinct(m.iteration_method, r.iteration_method);
            add_distinct(m.iteration_marker, r.iteration_marker);
        }
        for (Iteration& it : r.iterations) m.iterations.push_back(std::move(it));
        for (OperatorStats& op : r.operators_by_time) {
            auto [it, fresh] = ops.try_emplace(op.name, op);
            if (!fresh) {
                it->second.count += op.count;
                it->second.self_us += op.self_us;
            }
        }
        for (CollectiveStats& c : r.collectives) m.collectives.push_back(std::move(c));
        for (ProcessGroup& pg : r.process_groups) {
            const bool known = std::any_of(m.process_groups.begin(), m.process_groups.end(),
                                           [&](const ProcessGroup& p) { return p.name == pg.name; });
            if (!known) m.process_groups.push_back(std::move(pg));
        }
        m.replay.total += r.replay.total;
        m.replay.replayable += r.replay.replayable;
        m.replay.without_schema += r.replay.without_schema;
        m.replay.not_registered += r.replay.not_registered;
        m.replay.collectives += r.replay.collectives;
        for (MemoryTimeline& mt : r.memory) m.memory.push_back(std::move(mt));
        m.replay.kernels_checked = m.replay.kernels_checked || r.replay.kernels_checked;
        for (auto& [name, count] : r.replay.blockers) blockers[name] += count;
        m.device_events += r.device_events;
        m.device_busy_us += r.device_busy_us;
        if (r.link.present) {
            m.link.present = true;
            for (auto& [key, value] : r.link.stats) {
                if (!link_stats.count(key)) link_order.push_back(key);
                link_stats[key] += value;
            }
        }
    }
    if (m.time_source.find(',') != std::string::npos) m.time_source = "mixed";
    if (m.iteration_method.empty()) m.iteration_method = "none";
    for (auto& [name, stats] : ops) m.operators_by_time.push_back(std::move(stats));
    sort_operators(m.operators_by_time);
    for (auto& [name, count] : blockers) m.replay.blockers.emplace_back(name, count);
    sort_blockers(m.replay.blockers, 10);
    for (const std::string& key : link_order) m.link.stats.emplace_back(key, link_stats[key]);
    std::stable_sort(m.collectives.begin(), m.collectives.end(), [](const CollectiveStats& a, const CollectiveStats& b) {
        return std::tie(a.pg_name, a.collective, a.rank) < std::tie(b.pg_name, b.collective, b.rank);
    });
    return m;
}

}  // namespace mimic::analysis

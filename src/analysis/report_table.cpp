#include "analysis/report_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "analysis/collective_balance.h"
#include "analysis/text_table.h"

namespace mimic::analysis {
namespace {

using Align = TextTable::Align;
constexpr size_t kMaxNameChars = 64;  // kernel names run to hundreds of characters

std::string clip(std::string_view s) {
    if (s.size() <= kMaxNameChars) return std::string(s);
    return std::string(s.substr(0, kMaxNameChars - 3)) + "...";
}

std::string rank_text(int64_t rank) { return rank < 0 ? "?" : std::to_string(rank); }

std::string share_of(double part, double whole) { return whole > 0 ? percent(part / whole) : "-"; }

void header(std::string& out, const Report& r) {
    if (r.inputs.size() == 1) {
        const InputSummary& in = r.inputs.front();
        out += fmt::format("{} ({}, schema {})\n", in.source, in.format, in.schema_version.empty() ? "-" : in.schema_version);
        if (in.rank >= 0)
            out += fmt::format("  rank {} of {} (from its {})\n", in.rank, in.world_size < 0 ? "?" : std::to_string(in.world_size),
                               in.rank_source.empty() ? "?" : in.rank_source);
        if (!in.profile_pairing.empty()) out += fmt::format("  profile paired by {}\n", in.profile_pairing);
    } else {
        out += fmt::format("{} traces, {}\n", r.inputs.size(),
                           r.schema_version.empty() ? r.inputs.front().format : "schema " + r.schema_version);
        TextTable t({"rank", "source", "nodes", "operators", "time", "self_ms"},
                    {Align::Right, Align::Left, Align::Right, Align::Right, Align::Left, Align::Right});
        for (const InputSummary& in : r.inputs)
            t.add_row({rank_text(in.rank), in.source, std::to_string(in.nodes), std::to_string(in.operators),
                       in.time_source, ms_from_us(in.self_us)});
        out += t.render();
    }
    out += fmt::format("  nodes {}, operators {} ({} top-level, {} with schema), timed: {}{}\n", r.nodes, r.operators,
                       r.top_level_operators, r.operators_with_schema, r.timed ? "yes" : "no",
                       r.timed ? fmt::format(" ({}, {} ms self time)", r.time_source, ms_from_us(r.total_self_us)) : "");
}

void categories(std::string& out, const Report& r) {
    out += "\nCategories (time charged to each node's top-level operator)\n";
    TextTable t({"category", "nodes", "top-level", "self_ms", "time"},
                {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right});
    for (OpCategory c : kAllCategories) {
        const CategoryStats& s = r.category(c);
        t.add_row({std::string(category_key(c)), std::to_string(s.count), std::to_string(s.top_level),
                   r.timed ? ms_from_us(s.self_us) : "-", r.timed ? share_of(s.self_us, r.total_self_us) : "-"});
    }
    out += t.render();
}

void iterations(std::string& out, const Report& r) {
    if (r.iterations.empty()) {
        out += "\nIterations: none found (no ProfilerStep#N, no repeating label)\n";
        return;
    }
    out += fmt::format("\nIterations ({}: {})\n", r.iteration_method, r.iteration_marker);
    TextTable t({"iteration", "rank", "first_id", "last_id", "nodes", "duration_ms"},
                {Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
    for (const Iteration& it : r.iterations)
        t.add_row({clip(it.name), rank_text(it.rank), std::to_string(it.first_node_id), std::to_string(it.last_node_id),
                   std::to_string(it.nodes), it.timed ? ms_from_us(it.duration_us) : "-"});
    out += t.render();
}

void top_operators(std::string& out, const Report& r, size_t top_n) {
    const size_t n = std::min(top_n, r.operators_by_time.size());
    out += fmt::format("\nTop {} operators by {}\n", n, r.timed ? "self time" : "count (untimed trace)");
    TextTable t({"operator", "category", "count", "self_ms", "time"},
                {Align::Left, Align::Left, Align::Right, Align::Right, Align::Right});
    for (size_t i = 0; i < n; ++i) {
        const OperatorStats& op = r.operators_by_time[i];
        t.add_row({clip(op.name), std::string(category_key(op.category)), std::to_string(op.count),
                   r.timed ? ms_from_us(op.self_us) : "-", r.timed ? share_of(op.self_us, r.total_self_us) : "-"});
    }
    out += t.render();
}

// Across ranks, when there are several: how far apart they were per collective.
void balance(std::string& out, const Report& r) {
    const std::vector<CollectiveBalance> rows = collective_balance(r.collectives);
    if (std::none_of(rows.begin(), rows.end(), [](const CollectiveBalance& b) { return b.ranks > 1; })) return;
    out += "\nCollectives across ranks (per rank totals; the ranks that wait longest arrived first)\n";
    TextTable t({"process_group", "collective", "ranks", "bytes min..max", "bytes max/min", "ms min..max", "time max/min", "slowest"},
                {Align::Left, Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
    auto ratio = [](double x) { return x > 0 ? fmt::format("{:.2f}x", x) : std::string("-"); };
    for (const CollectiveBalance& b : rows) {
        if (b.ranks < 2) continue;
        t.add_row({clip(b.pg_name), b.collective, std::to_string(b.ranks),
                   human_bytes(double(b.min_bytes)) + ".." + human_bytes(double(b.max_bytes)), ratio(b.bytes_imbalance()),
                   b.timed ? ms_from_us(b.min_us) + ".." + ms_from_us(b.max_us) : "-", b.timed ? ratio(b.time_imbalance()) : "-",
                   b.timed ? rank_text(b.slowest_rank) : "-"});
    }
    out += t.render();
}

void collectives(std::string& out, const Report& r) {
    if (r.collectives.empty()) {
        out += "\nCollectives: none\n";
        return;
    }
    out += "\nCollectives by process group (bytes: each rank's input message)\n";
    TextTable t({"process_group", "collective", "rank", "count", "total", "max", "time_ms"},
                {Align::Left, Align::Left, Align::Right, Align::Right, Align::Right, Align::Right, Align::Right});
    for (const CollectiveStats& c : r.collectives) {
        std::string pg = c.pg_desc.empty() || c.pg_desc == c.pg_name ? c.pg_name : c.pg_name + " (" + c.pg_desc + ")";
        std::string total = human_bytes(double(c.total_bytes));
        if (c.unknown_size > 0) total += fmt::format(" +{} unsized", c.unknown_size);
        t.add_row({clip(pg), c.collective, rank_text(c.rank), std::to_string(c.count), total,
                   human_bytes(double(c.max_bytes)), r.timed ? ms_from_us(c.total_us) : "-"});
    }
    out += t.render();
    balance(out, r);
}

void replay(std::string& out, const Report& r) {
    const ReplayCoverage& c = r.replay;
    out += fmt::format("\nReplayable: {} of {} top-level operators ({}); {} without schema", c.replayable, c.total,
                       c.total ? percent(c.share()) : "-", c.without_schema);
    if (c.kernels_checked)
        out += fmt::format(", {} not registered with a CPU kernel in libtorch\n", c.not_registered);
    else
        out += "; CPU kernels not checked (built without libtorch)\n";
    if (c.collectives > 0)
        out += fmt::format("  {} of them collectives, which a multi-rank replay runs over Gloo (mimic replay DIR --nproc N)\n",
                           c.collectives);
    if (!c.blockers.empty()) {
        TextTable t({"cannot replay", "count"}, {Align::Left, Align::Right});
        for (const auto& [name, count] : c.blockers) t.add_row({clip(name), std::to_string(count)});
        out += t.render();
    }
}

void memory(std::string& out, const Report& r) {
    if (r.memory.empty()) return;
    out += "\nLive tensor memory (estimated from first to last use of each storage by top-level ops)\n";
    TextTable t({"rank", "device", "peak_MiB", "resident_MiB", "storages"}, {Align::Right, Align::Left, Align::Right, Align::Right, Align::Right});
    constexpr double kMiB = 1024.0 * 1024.0;
    for (const MemoryTimeline& m : r.memory)
        t.add_row({m.rank < 0 ? "?" : std::to_string(m.rank), m.device.empty() ? "?" : m.device,
                   fmt::format("{:.1f}", static_cast<double>(m.peak_bytes) / kMiB),
                   fmt::format("{:.1f}", static_cast<double>(m.resident_bytes) / kMiB), std::to_string(m.storages)});
    out += t.render();
}

void link(std::string& out, const Report& r) {
    if (r.device_events > 0)
        out += fmt::format("\nDevice: {} kernels/memcpys/memsets, {} ms busy\n", r.device_events, ms_from_us(r.device_busy_us));
    if (!r.link.present) return;
    out += "\nProfile link\n";
    TextTable t({"stat", "value"}, {Align::Left, Align::Right});
    for (const auto& [key, value] : r.link.stats) t.add_row({key, fmt::format("{}", value)});
    out += t.render();
}

}  // namespace

std::string report_to_table(const Report& r, size_t top_n) {
    std::string out;
    header(out, r);
    categories(out, r);
    iterations(out, r);
    top_operators(out, r, top_n);
    collectives(out, r);
    replay(out, r);
    memory(out, r);
    link(out, r);
    return out;
}

}  // namespace mimic::analysis

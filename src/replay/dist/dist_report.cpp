#include "replay/dist/dist_report.h"

#include <fmt/format.h>
#include <simdjson.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>

#include "analysis/collective_schedule.h"
#include "support/error.h"
#include "support/json_writer.h"
#include "support/machine_info.h"
#include "support/median.h"

namespace mimic::replay {
namespace {

struct RankCall {
    std::string collective, pg_name;
    int64_t group_size = 0;
    uint64_t bytes = 0;  // message size: the larger of input and output
    double latency_us = 0;
    std::optional<double> recorded_us;
    std::string emulation;
};

struct RankSummary {
    int rank = 0;
    double median_ms = 0;
    std::optional<double> original_ms, error_pct;
    uint64_t ops_total = 0, ops_replayed = 0, collectives_total = 0, collectives_replayed = 0;
    std::vector<RankCall> calls;
    std::vector<std::pair<std::string, std::string>> skipped_comm;  // name, reason
    std::string text;  // the report JSON as written
    MachinePair machines{std::nullopt, std::nullopt, "original", "replay"};
};

bool is_comm_name(std::string_view n) {
    return n.rfind("c10d::", 0) == 0 || n.rfind("gloo:", 0) == 0 || n.rfind("nccl:", 0) == 0 || n == "record_param_comms";
}

RankSummary read_rank(const RankReport& f) {
    RankSummary s;
    s.rank = f.rank;
    s.text = f.json;
    simdjson::dom::parser parser;
    simdjson::padded_string padded(s.text);
    simdjson::dom::object doc;
    if (parser.parse(padded).get_object().get(doc) != simdjson::SUCCESS)
        fail({f.source, -1, -1, ""}, "rank " + std::to_string(f.rank) + "'s report is not a JSON object");
    auto num = [&](simdjson::dom::object o, const char* key) -> std::optional<double> {
        double d = 0;
        if (o[key].get_double().get(d) == simdjson::SUCCESS) return d;
        int64_t i = 0;
        if (o[key].get_int64().get(i) == simdjson::SUCCESS) return double(i);
        uint64_t u = 0;
        if (o[key].get_uint64().get(u) == simdjson::SUCCESS) return double(u);
        return std::nullopt;
    };
    auto str = [](simdjson::dom::object o, const char* key) {
        std::string_view v;
        return o[key].get_string().get(v) == simdjson::SUCCESS ? std::string(v) : std::string();
    };
    s.median_ms = num(doc, "median_ms").value_or(0);
    s.original_ms = num(doc, "original_ms");
    s.error_pct = num(doc, "error_pct");
    s.ops_total = uint64_t(num(doc, "ops_total").value_or(0));
    s.ops_replayed = uint64_t(num(doc, "ops_replayed").value_or(0));
    s.collectives_total = uint64_t(num(doc, "collectives_total").value_or(0));
    s.collectives_replayed = uint64_t(num(doc, "collectives_replayed").value_or(0));
    simdjson::dom::array calls;
    if (doc["collectives"].get_array().get(calls) == simdjson::SUCCESS)
        for (simdjson::dom::element e : calls) {
            simdjson::dom::object c;
            if (e.get_object().get(c) != simdjson::SUCCESS) continue;
            RankCall rc;
            rc.collective = str(c, "collective");
            rc.pg_name = str(c, "pg_name");
            rc.group_size = int64_t(num(c, "group_size").value_or(0));
            rc.bytes = uint64_t(std::max(num(c, "input_bytes").value_or(0), num(c, "output_bytes").value_or(0)));
            rc.latency_us = num(c, "latency_us").value_or(0);
            rc.recorded_us = num(c, "recorded_us");
            rc.emulation = str(c, "emulation");
            s.calls.push_back(std::move(rc));
        }
    simdjson::dom::object machines;
    if (doc["machines"].get_object().get(machines) == simdjson::SUCCESS) {
        simdjson::dom::element m;
        if (machines["original"].get(m) == simdjson::SUCCESS && !m.is_null()) s.machines.a = machine_from_json(m, f.source);
        if (machines["replay"].get(m) == simdjson::SUCCESS && !m.is_null()) s.machines.b = machine_from_json(m, f.source);
    }
    simdjson::dom::array skipped;
    if (doc["ops_skipped"].get_array().get(skipped) == simdjson::SUCCESS)
        for (simdjson::dom::element e : skipped) {
            simdjson::dom::object o;
            if (e.get_object().get(o) != simdjson::SUCCESS) continue;
            const std::string name = str(o, "name");
            if (is_comm_name(name)) s.skipped_comm.emplace_back(name, str(o, "reason"));
        }
    return s;
}

// One (group, collective) across ranks.
struct CollectiveRow {
    std::string pg_name, collective;
    int64_t group_size = 0;
    std::vector<uint64_t> calls, bytes;  // per rank
    std::vector<double> latency_us;      // every call on every rank
    double latency_sum_us = 0;
    std::vector<double> recorded_us;
    uint64_t bytes_total = 0;
    std::string emulation;
};

}  // namespace

MergedReport merge_rank_reports(const std::vector<RankReport>& files) {
    std::vector<RankSummary> ranks;
    for (const RankReport& f : files) ranks.push_back(read_rank(f));
    const size_t n = ranks.size();

    std::map<std::pair<std::string, std::string>, CollectiveRow> rows;
    for (size_t r = 0; r < n; ++r)
        for (const RankCall& c : ranks[r].calls) {
            CollectiveRow& row = rows[{c.pg_name, c.collective}];
            if (row.calls.empty()) {
                row.pg_name = c.pg_name;
                row.collective = c.collective;
                row.calls.assign(n, 0);
                row.bytes.assign(n, 0);
            }
            row.group_size = std::max(row.group_size, c.group_size);
            ++row.calls[r];
            row.bytes[r] += c.bytes;
            row.bytes_total += c.bytes;
            row.latency_us.push_back(c.latency_us);
            row.latency_sum_us += c.latency_us;
            if (c.recorded_us) row.recorded_us.push_back(*c.recorded_us);
            if (row.emulation.empty()) row.emulation = c.emulation;
        }

    JsonWriter w;
    w.begin_object();
    w.field("world_size", int64_t(n));
    w.key("summary").begin_object();
    w.key("per_rank").begin_array();
    std::optional<double> worst_error;
    uint64_t coll_total = 0, coll_done = 0, ops_total = 0, ops_done = 0;
    for (const RankSummary& s : ranks) {
        w.begin_object().field("rank", int64_t(s.rank)).field("median_ms", s.median_ms);
        if (s.original_ms) w.field("original_ms", *s.original_ms); else w.key("original_ms").null();
        if (s.error_pct) w.field("error_pct", *s.error_pct); else w.key("error_pct").null();
        w.field("ops_total", s.ops_total).field("ops_replayed", s.ops_replayed);
        w.field("collectives_total", s.collectives_total).field("collectives_replayed", s.collectives_replayed);
        w.end_object();
        if (s.error_pct) worst_error = std::max(worst_error.value_or(0.0), std::fabs(*s.error_pct));
        coll_total += s.collectives_total;
        coll_done += s.collectives_replayed;
        ops_total += s.ops_total;
        ops_done += s.ops_replayed;
    }
    w.end_array();
    if (worst_error) w.field("max_abs_error_pct", *worst_error);
    else w.key("max_abs_error_pct").null();
    const double coll_cov = coll_total ? 100.0 * double(coll_done) / double(coll_total) : 100.0;
    w.field("collective_coverage_pct", coll_cov);
    w.field("op_coverage_pct", ops_total ? 100.0 * double(ops_done) / double(ops_total) : 0.0);
    w.key("collectives").begin_array();
    std::string table;
    for (const auto& [key, row] : rows) {
        uint64_t max_b = 0, sum_b = 0, members = 0;
        for (size_t r = 0; r < n; ++r)
            if (row.calls[r]) {
                max_b = std::max(max_b, row.bytes[r]);
                sum_b += row.bytes[r];
                ++members;
            }
        const double mean_b = members ? double(sum_b) / double(members) : 0;
        const double imbalance = mean_b > 0 ? double(max_b) / mean_b : 1.0;
        const double med = median(row.latency_us);
        const uint64_t calls = row.latency_us.size();
        // Bandwidth over all calls: bytes moved per rank over the time they took.
        const double alg = row.latency_sum_us > 0 ? double(row.bytes_total) / row.latency_sum_us / 1e3 : 0;
        const double bus = alg * analysis::bus_bandwidth_factor(collective_from_name(row.collective), row.group_size);
        w.begin_object().field("pg_name", row.pg_name).field("collective", row.collective);
        w.field("group_size", row.group_size);
        w.key("calls_per_rank").begin_array();
        for (uint64_t c : row.calls) w.value(c);
        w.end_array();
        w.key("bytes_per_rank").begin_array();
        for (uint64_t b : row.bytes) w.value(b);
        w.end_array();
        w.field("bytes_imbalance_max_over_mean", imbalance);
        w.field("latency_us_median", med).field("latency_us_total", row.latency_sum_us);
        if (!row.recorded_us.empty()) w.field("recorded_us_median", median(row.recorded_us));
        else w.key("recorded_us_median").null();
        w.field("algbw_GBps", alg).field("busbw_GBps", bus).field("emulation", row.emulation);
        w.end_object();
        table += fmt::format("  {:<16} {:<8} {:>6} {:>14} {:>9.2f} {:>12.1f} {:>10.3f} {:>10.3f}{}\n", row.collective,
                             row.pg_name, calls, sum_b, imbalance, med, alg, bus,
                             row.emulation.empty() ? "" : "  [" + row.emulation + "]");
    }
    w.end_array();
    w.key("skipped_collectives").begin_array();
    for (const RankSummary& s : ranks)
        for (const auto& [name, reason] : s.skipped_comm)
            w.begin_object().field("rank", int64_t(s.rank)).field("name", name).field("reason", reason).end_object();
    w.end_array();
    w.end_object();  // summary
    w.key("ranks").begin_array();
    for (const RankSummary& s : ranks) w.raw(s.text);
    w.end_array();
    w.end_object();

    MergedReport out;
    out.json = w.str() + "\n";
    std::string& t = out.text;
    t += fmt::format("replay of {} ranks\n", n);
    // The first rank's machines, and another rank's warnings where they are not the first's.
    if (!ranks.empty()) {
        t += machines_text(ranks.front().machines);
        const MachinePair& first = ranks.front().machines;
        const auto warnings = [](const MachinePair& p) {
            std::vector<std::string> out;
            if (p.a && p.b)
                for (const MachineDifference& d : compare_machines(*p.a, *p.b)) out.push_back(machine_warning(d, p.label_a, p.label_b));
            return out;
        };
        const std::vector<std::string> first_warnings = warnings(first);
        for (size_t r = 1; r < n; ++r)
            for (const std::string& w : warnings(ranks[r].machines))
                if (std::find(first_warnings.begin(), first_warnings.end(), w) == first_warnings.end())
                    t += fmt::format("  rank {}: {}\n", ranks[r].rank, w);
    }
    t += fmt::format("  {:>4} {:>12} {:>12} {:>9} {:>12} {:>14}\n", "rank", "replay_ms", "original_ms", "error",
                     "ops", "collectives");
    for (const RankSummary& s : ranks)
        t += fmt::format("  {:>4} {:>12.3f} {:>12} {:>9} {:>12} {:>14}\n", s.rank, s.median_ms,
                         s.original_ms ? fmt::format("{:.3f}", *s.original_ms) : "-",
                         s.error_pct ? fmt::format("{:+.1f}%", *s.error_pct) : "-",
                         fmt::format("{}/{}", s.ops_replayed, s.ops_total),
                         fmt::format("{}/{}", s.collectives_replayed, s.collectives_total));
    t += fmt::format("  collective coverage {:.1f}%{}\n", coll_cov,
                     worst_error ? fmt::format(", worst per-rank error {:.1f}%", *worst_error) : std::string());
    if (!rows.empty()) {
        t += fmt::format("  {:<16} {:<8} {:>6} {:>14} {:>9} {:>12} {:>10} {:>10}\n", "collective", "group", "calls",
                         "bytes", "imbalance", "median_us", "algbw_GBps", "busbw_GBps");
        t += table;
    }
    for (const RankSummary& s : ranks)
        for (const auto& [name, reason] : s.skipped_comm)
            t += fmt::format("  skipped on rank {}: {}: {}\n", s.rank, name, reason);
    return out;
}

}  // namespace mimic::replay

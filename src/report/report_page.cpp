#include "report/report_page.h"

#include <algorithm>
#include <cmath>
#include <map>

#include "analysis/collective_balance.h"
#include "model/op_family.h"
#include "report/html_page.h"
#include "report/html_text.h"
#include "report/svg_charts.h"

namespace mimic::report {
namespace {

using analysis::OpCategory;

std::string ms(double us) { return format_number(us / 1000.0); }
std::string pct(double v) { return (v > 0 ? "+" : "") + format_number(v) + "%"; }
std::string mib(uint64_t bytes) { return format_number(static_cast<double>(bytes) / (1024.0 * 1024.0)) + " MiB"; }

std::string rank_name(int64_t rank) { return rank < 0 ? "rank ?" : "rank " + std::to_string(rank); }

// The ranks a world size promises that no input brings ("" when none is missing).
std::string missing_ranks(const analysis::Report& a) {
    int64_t world = -1;
    std::vector<int64_t> have;
    for (const analysis::InputSummary& in : a.inputs) {
        world = std::max(world, in.world_size);
        if (in.rank >= 0) have.push_back(in.rank);
    }
    if (world <= 1 || static_cast<int64_t>(have.size()) >= world) return "";
    std::string out;
    size_t n = 0;
    for (int64_t r = 0; r < world; ++r)
        if (std::find(have.begin(), have.end(), r) == have.end() && n++ < 16) out += (out.empty() ? "" : ", ") + std::to_string(r);
    return std::to_string(have.size()) + " of " + std::to_string(world) + " ranks, missing " + out + (n > 16 ? "..." : "");
}

void summary_section(HtmlPage& page, const ReportData& d) {
    const analysis::Report& a = d.analysis;
    page.begin_section("summary", "Summary");
    std::string inputs;
    for (const std::string& in : d.inputs) inputs += (inputs.empty() ? "" : ", ") + in;
    std::vector<std::pair<std::string, std::string>> f = {
        {"input", inputs},
        {"traces", std::to_string(a.inputs.size())},
        {"format", a.inputs.empty() ? "?" : a.inputs.front().format},
        {"schema", a.schema_version},
        {"nodes", std::to_string(a.nodes)},
        {"operators (top-level)", std::to_string(a.operators) + " (" + std::to_string(a.top_level_operators) + ")"},
        {"times from", a.time_source},
    };
    std::string ranks;
    for (const analysis::InputSummary& in : a.inputs)
        if (in.rank >= 0) ranks += (ranks.empty() ? "" : ", ") + std::to_string(in.rank);
    if (!ranks.empty()) f.emplace_back("ranks", ranks + (a.inputs.front().world_size > 0 ? " of world size " + std::to_string(a.inputs.front().world_size) : ""));
    const std::string absent = missing_ranks(a);
    if (a.timed) f.emplace_back("operator time (exclusive, all ranks)", ms(a.total_self_us) + " ms");
    f.emplace_back("iterations", std::to_string(a.iterations.size()) + " (" + a.iteration_method +
                                     (a.iteration_marker.empty() ? "" : ", " + a.iteration_marker) + ")");
    if (a.device_events) f.emplace_back("device events (busy)", std::to_string(a.device_events) + " (" + ms(a.device_busy_us) + " ms)");
    page.facts(f);
    if (!absent.empty())
        page.missing("Not every rank is here: " + absent + ". Per-rank sections (collectives, memory) show only the ranks given.");
    if (!a.timed)
        page.missing("The trace carries no times (no profile linked, not a timed Chakra trace): times below are "
                     "counts instead. Give a recording directory, or a trace with --profile, to see time.");
    std::vector<std::vector<std::string>> rows;
    for (const analysis::Iteration& it : a.iterations)
        if (it.timed) rows.push_back({it.name, rank_name(it.rank), std::to_string(it.nodes), ms(it.duration_us)});
    if (!rows.empty()) page.table({"iteration", "rank", "nodes", "duration_ms"}, rows);
    page.end_section();
}

void breakdown_section(HtmlPage& page, const analysis::Report& a) {
    page.begin_section("breakdown", "Operator breakdown by kind and family");
    const std::string unit = a.timed ? "ms" : "calls";
    std::vector<Bar> kinds;
    for (OpCategory c : analysis::kAllCategories) {
        const analysis::CategoryStats& s = a.category(c);
        const double v = a.timed ? s.self_us / 1000.0 : static_cast<double>(s.count);
        if (v > 0) kinds.push_back({std::string(analysis::category_key(c)), v, ""});
    }
    std::sort(kinds.begin(), kinds.end(), [](const Bar& x, const Bar& y) { return x.value > y.value; });
    page.paragraph(a.timed ? "Exclusive time by kind of node (each node's own time, charged to its top-level operator's kind)."
                           : "Nodes by kind.");
    page.raw(bar_chart("breakdown-kind", kinds, unit));

    std::map<std::string, double> families;
    for (const analysis::OperatorStats& op : a.operators_by_time)
        families[model::family_name(model::family_of(op.name))] += a.timed ? op.self_us / 1000.0 : static_cast<double>(op.count);
    std::vector<Bar> fam;
    for (const auto& [name, v] : families)
        if (v > 0) fam.push_back({name, v, ""});
    std::sort(fam.begin(), fam.end(), [](const Bar& x, const Bar& y) { return x.value > y.value; });
    page.paragraph(a.timed ? "Operator exclusive time by family (the cost model's families: GEMM, convolution, elementwise...)."
                           : "Operator calls by family.");
    if (fam.empty()) page.missing("No operators in this trace.");
    else page.raw(bar_chart("breakdown-family", fam, unit));
    page.end_section();
}

void top_ops_section(HtmlPage& page, const analysis::Report& a) {
    page.begin_section("top-ops", "Top operators");
    constexpr size_t kTop = 15;
    std::vector<Bar> bars;
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < a.operators_by_time.size() && i < kTop; ++i) {
        const analysis::OperatorStats& op = a.operators_by_time[i];
        bars.push_back({op.name, a.timed ? op.self_us / 1000.0 : static_cast<double>(op.count), ""});
        rows.push_back({op.name, std::string(analysis::category_key(op.category)), std::to_string(op.count),
                        a.timed ? ms(op.self_us) : "-",
                        a.timed && a.total_self_us > 0 ? format_number(100.0 * op.self_us / a.total_self_us) + "%" : "-"});
    }
    if (bars.empty()) {
        page.missing("No operators in this trace.");
    } else {
        page.raw(bar_chart("top-ops", bars, a.timed ? "ms" : "calls"));
        page.table({"operator", "kind", "calls", "self_ms", "share"}, rows);
    }
    page.end_section();
}

std::string error_bin(double e) {
    static const double edges[] = {-50, -20, -10, -5, 5, 10, 20, 50};
    static const char* names[] = {"< -50%", "-50..-20", "-20..-10", "-10..-5", "±5%", "5..10", "10..20", "20..50", "> 50%"};
    size_t i = 0;
    while (i < std::size(edges) && e >= edges[i]) ++i;
    return names[i];
}

void replay_section(HtmlPage& page, const ReportData& d) {
    page.begin_section("replay", "Replay against the original");
    if (!d.replay) {
        page.missing("No replay result given. Run `mimic replay INPUT --json replay.json`, then "
                     "`mimic report INPUT --replay replay.json`.");
        page.end_section();
        return;
    }
    const ReplayResult& r = *d.replay;
    if (!r.problem.empty()) {
        page.missing("Replay not shown: " + r.problem);
        page.end_section();
        return;
    }
    std::vector<std::pair<std::string, std::string>> f = {{"replay result", r.path}, {"trace replayed", r.trace}};
    if (r.world_size > 1) f.emplace_back("ranks", std::to_string(r.world_size) + " (rank 0's report shown)");
    f.emplace_back("replay median", format_number(r.median_ms) + " ms");
    if (r.original_ms > 0) {
        f.emplace_back("original", format_number(r.original_ms) + " ms (" + r.original_source + ")");
        f.emplace_back("iteration error", pct(100.0 * (r.median_ms - r.original_ms) / r.original_ms));
    }
    f.emplace_back("coverage", std::to_string(r.ops_replayed) + " of " + std::to_string(r.ops_total) + " top-level ops");
    if (r.per_op_error_geomean_pct >= 0) f.emplace_back("per-op error (geomean of |error|)", format_number(r.per_op_error_geomean_pct) + "%");
    if (!r.blas_original.empty() || !r.blas_replay.empty())
        f.emplace_back("BLAS (original / replay)", r.blas_original + " / " + r.blas_replay);
    page.facts(f);
    if (!r.times_comparable)
        page.missing("The original ran on another device than the replay: the times compare different machines.");

    std::vector<Bar> iterations;
    for (size_t i = 0; i < r.iteration_ms.size(); ++i)
        iterations.push_back({"iter " + std::to_string(i + 1), r.iteration_ms[i], ""});
    page.paragraph("Replayed iterations; the dashed line is the original.");
    page.raw(column_chart("replay-iterations", iterations, "ms", r.original_ms, "original"));

    std::map<std::string, double> bins;
    static const char* order[] = {"< -50%", "-50..-20", "-20..-10", "-10..-5", "±5%", "5..10", "10..20", "20..50", "> 50%"};
    for (const char* b : order) bins[b] = 0;
    size_t with_error = 0;
    for (const ReplayOp& op : r.per_op)
        if (op.has_error) {
            bins[error_bin(op.error_pct)] += static_cast<double>(op.count);
            ++with_error;
        }
    if (with_error == 0) {
        page.missing("No per-operator errors: the replay had no profiled times of the original's ops to compare with.");
    } else {
        std::vector<Bar> hist;
        for (const char* b : order) hist.push_back({b, bins[b], std::string(b) + ": " + format_number(bins[b]) + " calls"});
        page.paragraph("Per-operator error of the replay against the original's profiled time, in calls.");
        page.raw(column_chart("replay-error-distribution", hist, "calls"));
    }
    std::vector<ReplayOp> ops = r.per_op;
    std::sort(ops.begin(), ops.end(), [](const ReplayOp& x, const ReplayOp& y) { return x.replay_us > y.replay_us; });
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < ops.size() && i < 20; ++i)
        rows.push_back({ops[i].name, std::to_string(ops[i].count), ops[i].original_us >= 0 ? format_number(ops[i].original_us) : "-",
                        format_number(ops[i].replay_us), ops[i].has_error ? pct(ops[i].error_pct) : "-"});
    if (!rows.empty()) page.table({"operator", "calls", "original_us", "replay_us", "error"}, rows);
    page.end_section();
}

void memory_section(HtmlPage& page, const analysis::Report& a) {
    page.begin_section("memory", "Memory over the iteration");
    if (a.memory.empty()) {
        page.missing("The trace records no tensor sizes (a Chakra trace without tensor info, or no top-level operators), "
                     "so live memory cannot be estimated.");
        page.end_section();
        return;
    }
    page.paragraph("Live tensor memory after each top-level operator, estimated from the trace: a storage lives from the "
                   "operator that writes it (from the start when it is first read: parameters, inputs, optimizer state) to "
                   "its last use. Temporaries inside an operator are not seen.");
    std::vector<Series> series;
    std::vector<std::vector<std::string>> rows;
    for (const analysis::MemoryTimeline& m : a.memory) {
        const std::string label = (a.inputs.size() > 1 ? rank_name(m.rank) + " " : "") + (m.device.empty() ? "device ?" : m.device);
        rows.push_back({label, mib(m.peak_bytes), std::to_string(m.peak_node_id), mib(m.resident_bytes), std::to_string(m.storages)});
        if (series.size() < 8) {
            Series s{label, {}};
            s.ys.reserve(m.points.size());
            for (const analysis::MemoryPoint& p : m.points) s.ys.push_back(static_cast<double>(p.live_bytes) / (1024.0 * 1024.0));
            series.push_back(std::move(s));
        }
    }
    page.raw(line_chart("memory", series, "top-level operator, in execution order", "MiB"));
    page.table({"device", "peak", "peak after node", "resident at start", "storages"}, rows);
    page.end_section();
}

std::string collective_key(const std::string& collective, const std::string& pg_name, const std::string& pg_desc) {
    return collective + " @" + (pg_desc.empty() ? pg_name : pg_desc);
}

void collectives_section(HtmlPage& page, const analysis::Report& a) {
    page.begin_section("collectives", "Collectives per rank");
    if (a.collectives.empty()) {
        page.missing("No collective calls in this trace.");
        page.end_section();
        return;
    }
    const std::vector<analysis::CollectiveBalance> balance = analysis::collective_balance(a.collectives);
    // Time where the calls were timed (a profile can leave collectives unlinked), else bytes.
    const bool timed = std::any_of(balance.begin(), balance.end(), [](const analysis::CollectiveBalance& b) { return b.timed; });
    std::vector<std::string> columns;
    for (const analysis::CollectiveBalance& b : balance) columns.push_back(collective_key(b.collective, b.pg_name, b.pg_desc));
    std::vector<int64_t> ranks;
    for (const analysis::CollectiveStats& c : a.collectives)
        if (std::find(ranks.begin(), ranks.end(), c.rank) == ranks.end()) ranks.push_back(c.rank);
    std::sort(ranks.begin(), ranks.end());
    std::vector<std::vector<double>> cells(ranks.size(), std::vector<double>(columns.size(), -1));
    for (const analysis::CollectiveStats& c : a.collectives) {
        const auto same = [&](const analysis::CollectiveBalance& b) { return b.pg_name == c.pg_name && b.collective == c.collective; };
        const size_t col = static_cast<size_t>(std::find_if(balance.begin(), balance.end(), same) - balance.begin());
        const size_t row = static_cast<size_t>(std::find(ranks.begin(), ranks.end(), c.rank) - ranks.begin());
        const double v = timed ? c.total_us / 1000.0 : static_cast<double>(c.total_bytes) / (1024.0 * 1024.0);
        cells[row][col] = std::max(cells[row][col], 0.0) + v;
    }
    std::vector<std::string> row_names;
    for (int64_t r : ranks) row_names.push_back(rank_name(r));
    page.paragraph(timed ? "Time in each collective per rank (darker is longer). The ranks that wait longest arrived first: "
                           "a straggler shows as the others' long times."
                         : "Bytes each rank put into each collective (its calls carry no times).");
    page.raw(heatmap("collectives-heatmap", row_names, columns, cells, timed ? "ms" : "MiB"));
    std::vector<std::vector<std::string>> rows;
    for (size_t i = 0; i < balance.size(); ++i) {
        const analysis::CollectiveBalance& b = balance[i];
        auto ratio = [](double r) { return r > 0 ? format_number(r) + "x" : std::string("-"); };
        rows.push_back({columns[i], std::to_string(b.ranks), std::to_string(b.calls), mib(b.min_bytes) + " .. " + mib(b.max_bytes),
                        ratio(b.bytes_imbalance()), b.timed ? ms(b.min_us) + " .. " + ms(b.max_us) : "-",
                        b.timed ? ratio(b.time_imbalance()) + " (slowest " + rank_name(b.slowest_rank) + ")" : "-"});
    }
    page.table({"collective @ group", "ranks", "calls", "bytes per rank", "bytes max/min", "ms per rank", "time max/min"}, rows);
    page.end_section();
}

void unsupported_section(HtmlPage& page, const ReportData& d) {
    const analysis::ReplayCoverage& c = d.analysis.replay;
    page.begin_section("unsupported", "Skipped and unsupported operators");
    page.facts({{"top-level operators", std::to_string(c.total)},
                {"replayable", std::to_string(c.replayable) + " (" + format_number(100.0 * c.share()) + "%)"},
                {"of those, collectives (run with --nproc)", std::to_string(c.collectives)},
                {"without a schema", std::to_string(c.without_schema)},
                {"no CPU kernel here", c.kernels_checked ? std::to_string(c.not_registered) : "not checked (no op table)"}});
    std::vector<std::vector<std::string>> rows;
    for (const auto& [name, n] : c.blockers) rows.push_back({name, std::to_string(n), "no schema, or no CPU kernel in this libtorch"});
    if (d.replay && d.replay->problem.empty())
        for (const ReplaySkip& s : d.replay->skipped) rows.push_back({s.name, std::to_string(s.count), "replay skipped: " + s.reason});
    if (rows.empty()) page.paragraph("Every top-level operator can be replayed on this machine.");
    else page.table({"operator", "calls", "why"}, rows);
    page.end_section();
}

void prediction_section(HtmlPage& page, const ReportData& d) {
    page.begin_section("prediction", "Prediction and critical path");
    if (!d.predict) {
        page.missing("No prediction given. Run `mimic predict INPUT --json predict.json`, then pass --predict predict.json.");
        page.end_section();
        return;
    }
    const PredictResult& p = *d.predict;
    if (!p.problem.empty()) {
        page.missing("Prediction not shown: " + p.problem);
        page.end_section();
        return;
    }
    std::vector<std::pair<std::string, std::string>> f = {{"prediction", p.path}, {"predicted iteration", format_number(p.iteration_ms) + " ms"}};
    if (p.original_ms > 0) {
        f.emplace_back("original (untraced)", format_number(p.original_ms) + " ms");
        f.emplace_back("error", pct(100.0 * (p.iteration_ms - p.original_ms) / p.original_ms));
    }
    page.facts(f);
    std::vector<Bar> parts;
    for (const auto& [name, v] : p.breakdown_ms)
        if (v > 0) parts.push_back({name, v, ""});
    if (parts.empty()) page.missing("The prediction has no breakdown.");
    else page.raw(bar_chart("prediction-breakdown", parts, "ms"));
    std::vector<Bar> fam;
    for (const auto& [name, v] : p.compute_by_family_ms)
        if (v > 0) fam.push_back({name, v, ""});
    std::sort(fam.begin(), fam.end(), [](const Bar& x, const Bar& y) { return x.value > y.value; });
    if (!fam.empty()) {
        page.paragraph("Predicted compute by operator family.");
        page.raw(bar_chart("prediction-families", fam, "ms"));
    }
    // The ops that weigh most on the path, largest share first.
    std::vector<CriticalOp> path = p.critical_path;
    std::sort(path.begin(), path.end(), [](const CriticalOp& x, const CriticalOp& y) { return x.share > y.share; });
    constexpr size_t kShown = 20;
    if (path.size() > kShown) path.resize(kShown);
    std::vector<std::vector<std::string>> rows;
    for (const CriticalOp& op : path)
        rows.push_back({op.name, std::to_string(op.node_id), op.family, format_number(op.op_us), format_number(op.host_us),
                        format_number(100.0 * op.share) + "%"});
    if (rows.empty()) page.missing("The prediction lists no critical path (a multi-rank prediction reports per-rank times instead).");
    else page.table({"critical path (top ops)", "node", "family", "op_us", "host_us", "share"}, rows);
    if (p.critical_path.size() > kShown)
        page.paragraph("(the " + std::to_string(kShown) + " largest of the " + std::to_string(p.critical_path.size()) +
                       " ops on the critical path)");
    page.end_section();
}

void simulation_section(HtmlPage& page, const ReportData& d) {
    page.begin_section("simulation", "Simulation per rank");
    if (!d.simulate) {
        page.missing("No simulation given. Run `mimic simulate INPUT --network NET.yml --system SYS.json --json sim.json`, "
                     "then pass --simulate sim.json.");
        page.end_section();
        return;
    }
    const SimulateResult& s = *d.simulate;
    if (!s.problem.empty()) {
        page.missing("Simulation not shown: " + s.problem);
        page.end_section();
        return;
    }
    page.facts({{"simulation", s.path}, {"ranks", std::to_string(s.ranks.size())},
                {"iteration", format_number(static_cast<double>(s.iteration_ns) / 1e6) + " ms"}});
    std::vector<Bar> finish;
    for (const SimRank& r : s.ranks) {
        const double exposed = static_cast<double>(r.exposed_comm_ns) / 1e6;
        finish.push_back({std::to_string(r.rank), static_cast<double>(r.finish_ns) / 1e6,
                          rank_name(r.rank) + ": finish " + format_number(static_cast<double>(r.finish_ns) / 1e6) +
                              " ms, exposed communication " + format_number(exposed) + " ms"});
    }
    page.paragraph("Finish time of each rank.");
    page.raw(column_chart("simulation-ranks", finish, "ms"));
    std::vector<std::vector<std::string>> rows;
    constexpr size_t kRows = 64;
    for (size_t i = 0; i < s.ranks.size() && i < kRows; ++i) {
        const SimRank& r = s.ranks[i];
        auto m = [](uint64_t ns) { return format_number(static_cast<double>(ns) / 1e6); };
        rows.push_back({rank_name(r.rank), m(r.finish_ns), m(r.exposed_comm_ns), m(r.gpu_compute_ns), m(r.cpu_compute_ns), m(r.comm_ns), m(r.overlap_ns)});
    }
    page.table({"rank", "finish_ms", "exposed_comm_ms", "gpu_compute_ms", "cpu_compute_ms", "comm_ms", "overlap_ms"}, rows);
    if (s.ranks.size() > kRows) page.paragraph("(first " + std::to_string(kRows) + " of " + std::to_string(s.ranks.size()) + " ranks; the chart shows all)");
    page.end_section();
}

}  // namespace

const std::vector<std::string>& section_ids() {
    static const std::vector<std::string> ids = {"summary", "breakdown", "top-ops", "replay", "memory",
                                                 "collectives", "unsupported", "prediction", "simulation"};
    return ids;
}

std::string render_report(const ReportData& d) {
    std::string title = "mimic report";
    if (!d.inputs.empty()) title += ": " + d.inputs.front();
    HtmlPage page(title);
    page.raw("<p class=\"generated\">" + escape_html(d.generated_by) + "</p>\n");
    summary_section(page, d);
    breakdown_section(page, d.analysis);
    top_ops_section(page, d.analysis);
    replay_section(page, d);
    memory_section(page, d.analysis);
    collectives_section(page, d.analysis);
    unsupported_section(page, d);
    prediction_section(page, d);
    simulation_section(page, d);
    return page.finish();
}

}  // namespace mimic::report

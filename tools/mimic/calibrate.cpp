// mimic calibrate TRACE... [--out costs.db] [--quick] [--threads N] [--no-sweeps]
// mimic calibrate --collectives [TRACE...] [--out DIR]
// Measures what `mimic predict` needs on this machine: each distinct operator
// signature of the given traces and of a shape sweep per op family
// (compose/calibration_sweep.h), timed through the replayer (its per-op
// pass), and, from recordings whose untraced iteration time is known, the
// host time around each op; or, with --collectives, Gloo's collectives,
// fitted to a network for `mimic simulate` and `mimic predict`.
// Built into mimic-torch only: the op timings come from its replayer.
#ifdef MIMIC_HAVE_TORCH
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <simdjson.h>

#include "analysis/collectives_used.h"
#include "calibrate_collectives.h"
#include "command.h"
#include "compose/calibration_sweep.h"
#include "compose/scale_batch.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "model/cost_db.h"
#include "model/op_signature.h"
#include "model/predictor.h"
#include "support/error.h"
#include "support/temp_dir.h"
#include "support/json_file.h"
#include "support/page_fault_cost.h"
#include "support/subprocess.h"
#include "replay/replay_machine.h"

namespace mimic::cli {
namespace {

struct CalibrateArgs {
    std::vector<std::string> traces;
    std::string out = "costs.db";
    bool quick = false;
    int threads = 0;
    bool collectives = false;
    std::vector<int> ranks = {2, 4};
    bool ranks_given = false;
    uint64_t max_bytes = 64ull << 20;
    bool max_bytes_given = false;
    std::vector<double> batch_scales;
    bool no_sweeps = false;
};

// What calibrate times: a trace as given, or one rewritten at another batch
// (--batch-scales), whose threads are still its recording's.
struct CalibrationInput {
    std::string path;
    std::string threads_from;  // the meta.json whose threads it runs at ("" : --threads or this machine's)
    bool sweep = false;        // calibrate's shape sweep, not a trace's step
};

// Each trace as given, then each at every --batch-scales factor (written
// into `dir` as `mimic scale` writes it), so that the shapes a batch what-if
// predicts are measured, not modelled.
std::vector<CalibrationInput> calibration_inputs(const CalibrateArgs& args, const TempDir& dir) {
    std::vector<CalibrationInput> out;
    for (const std::string& t : args.traces) out.push_back({t, ""});
    std::string first_meta;  // the first trace's meta.json: the sweep runs at its threads
    for (size_t k = 0; k < args.traces.size(); ++k) {
        const std::vector<TraceInput> expanded = expand_trace_inputs({args.traces[k]});
        if (expanded.size() != 1) fail({args.traces[k], -1, -1, ""}, "calibrate takes one rank's trace or recording per argument");
        if (k == 0) first_meta = expanded[0].meta_path;
        for (double factor : args.batch_scales) {
            char name[64];
            std::snprintf(name, sizeof name, "/%zu_x%g.json", k, factor);
            const std::string path = dir.path() + name;
            const compose::ScaleStats st = compose::scale_batch_file(expanded[0].trace_path, {factor, 0}, path);
            std::fprintf(stderr, "mimic calibrate: %s at batch %lld (x%g) -> %s\n", args.traces[k].c_str(),
                         static_cast<long long>(st.batch_after), factor, path.c_str());
            out.push_back({path, expanded[0].meta_path});
        }
    }
    if (!args.no_sweeps && !args.traces.empty()) {
        // The family models' points across shapes the traces never reach, at
        // the first trace's thread count.
        const std::string path = dir.path() + "/shape_sweep.json";
        const compose::SweepStats st = compose::write_calibration_sweep(path, args.quick);
        std::string families;
        for (const auto& [family, n] : st.ops_per_family) families += (families.empty() ? "" : ", ") + std::to_string(n) + " " + family;
        std::fprintf(stderr, "mimic calibrate: shape sweep of %zu ops (%s)\n", st.ops, families.c_str());
        out.push_back({path, first_meta, true});
    }
    return out;
}

std::string self_binary() {
    std::error_code ec;
    const auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
    if (ec) fail({"/proc/self/exe", -1, -1, ""}, "cannot find this program's path");
    return exe.string();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    const size_t n = v.size();
    return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

// What `replay --op-times` wrote: per node id, the replay's time of the op
// and, when the replay estimated the original's untraced host time from the
// profile (a trace recorded without mimic: --host-gaps instrumented), the
// gap before it.
struct ReplayedOps {
    std::map<uint64_t, double> times;
    std::map<uint64_t, double> estimated_gaps;
};

ReplayedOps read_op_times(const std::string& path) {
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object root = parse_json_object_file(path, parser, text);
    ReplayedOps out;
    simdjson::dom::array ops;
    if (root["ops"].get(ops) != simdjson::SUCCESS) fail({path, -1, -1, "ops"}, "missing");
    std::string_view mode;
    const bool estimated = root["host_gaps"].get(mode) == simdjson::SUCCESS && mode == "instrumented";
    for (auto op : ops) {
        uint64_t id;
        double us, gap;
        if (op["node_id"].get(id) != simdjson::SUCCESS || op["replay_us"].get(us) != simdjson::SUCCESS) continue;
        out.times[id] = us;
        if (estimated && op["host_gap_us"].get(gap) == simdjson::SUCCESS) out.estimated_gaps[id] = gap;
    }
    return out;
}

struct HostRow {
    std::string name;
    double python_ops = 0, autograd_ops = 0, residual_us = 0;
};

// Host time measured directly: the gaps before each top-level op in the
// untraced calls the recorder timed (op_gaps.json), summed per kind of op.
struct GapSums {
    double python_us = 0, autograd_us = 0;
    size_t python_ops = 0, autograd_ops = 0;
    double faults = 0, fresh_pages = 0;  // over ops with a fresh-sized output
    std::map<std::string, std::vector<double>> by_op;  // HostCosts::key -> gaps
    std::vector<std::string> names;

    // The gap before one call of op `name`, from Python or (backward) the autograd engine.
    void add(const std::string& name, bool backward, double gap_us) {
        by_op[model::HostCosts::key(name, backward)].push_back(gap_us);
        (backward ? autograd_us : python_us) += gap_us;
        ++(backward ? autograd_ops : python_ops);
    }
};

// Mean after dropping what lies outside 1.5 interquartile ranges.
double trimmed_mean(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    if (v.size() < 4) {
        double s = 0;
        for (double x : v) s += x;
        return v.empty() ? 0 : s / static_cast<double>(v.size());
    }
    const double q1 = v[v.size() / 4], q3 = v[(3 * v.size()) / 4];
    const double lo = q1 - 1.5 * (q3 - q1), hi = q3 + 1.5 * (q3 - q1);
    double s = 0;
    size_t n = 0;
    for (double x : v)
        if (x >= lo && x <= hi) {
            s += x;
            ++n;
        }
    return n ? s / static_cast<double>(n) : 0;
}

// The host gaps a replay estimated for a trace recorded without mimic,
// summed as add_gaps sums a recording's measured ones (no fault counts).
void add_estimated_gaps(const std::string& name, const std::map<uint64_t, double>& gaps, const Trace& trace,
                        const std::vector<model::TopLevelOp>& tops, GapSums& sums) {
    if (gaps.empty()) return;
    for (const auto& t : tops) {
        const Node& n = trace.nodes[t.node];
        const auto g = gaps.find(n.id.value);
        if (g == gaps.end()) continue;
        sums.add(std::string(trace.name(n)), t.backward, g->second);
    }
    sums.names.push_back(name + " (its profile's gaps, less the instrumentation measured here)");
}

void add_gaps(const std::string& gaps_path, const Trace& trace, const std::vector<model::TopLevelOp>& tops, GapSums& sums) {
    std::map<uint64_t, std::pair<bool, std::string>> backward;
    std::map<uint64_t, double> fresh_pages;  // ops the fault model would charge: their output pages
    for (const auto& t : tops) {
        const Node& n = trace.nodes[t.node];
        backward[n.id.value] = {t.backward, std::string(trace.name(n))};
        model::HostCosts unit;
        unit.fresh_page_share = 1;
        unit.fault_us = 1;
        const double pages = model::fresh_output_fault_us(model::op_facts(trace, n), unit);
        if (pages > 0) fresh_pages[n.id.value] = pages;
    }
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object root = parse_json_object_file(gaps_path, parser, text);
    simdjson::dom::array gaps;
    if (root["gaps"].get(gaps) != simdjson::SUCCESS) fail({gaps_path, -1, -1, "gaps"}, "missing");
    for (auto g : gaps) {
        simdjson::dom::array row;
        if (g.get(row) != simdjson::SUCCESS || row.size() < 2) continue;
        uint64_t id;
        double gap;
        if (row.at(0).get(id) != simdjson::SUCCESS || row.at(1).get(gap) != simdjson::SUCCESS) continue;
        auto it = backward.find(id);
        if (it == backward.end()) continue;
        // The thread's CPU time in the gap, where the recorder read it: the
        // host work. The wall time can hold waits no op records (DDP's reducer
        // waiting for its buckets' all-reduces, 1.4-13 ms before the copies
        // out of the buckets on 4 ranks, 20-42 us of CPU), which predict's
        // engine simulates as the collectives themselves; and where ranks
        // share cores, the time the thread was descheduled, which the engine
        // adds as it shares them. Alone on a core the two agree.
        double cpu = -1;
        if (row.size() >= 4 && row.at(3).get(cpu) == simdjson::SUCCESS && cpu >= 0) gap = std::min(gap, cpu);
        if (auto f = fresh_pages.find(id); f != fresh_pages.end() && row.size() >= 5) {
            double faults = 0;
            int64_t n = 0;
            if (row.at(4).get(faults) == simdjson::SUCCESS || row.at(4).get(n) == simdjson::SUCCESS) {
                sums.faults += faults > 0 ? faults : static_cast<double>(n);
                sums.fresh_pages += f->second;
            }
        }
        sums.add(it->second.second, it->second.first, gap);
    }
    sums.names.push_back(gaps_path);
}

// Host time per op of each kind, from recordings: untraced iteration time
// less the replay's op times, over the ops Python and the autograd engine
// called. Least squares over both kinds when the recordings tell them apart,
// else one figure for every op.
model::HostCosts fit_host(const std::vector<HostRow>& rows) {
    model::HostCosts host;
    if (rows.empty()) return host;
    double spp = 0, saa = 0, spa = 0, spr = 0, sar = 0;
    for (const HostRow& r : rows) {
        // Each recording weighs by its relative error, not its length.
        const double w = 1.0 / std::max(1.0, r.residual_us + 1.0);
        spp += w * r.python_ops * r.python_ops;
        saa += w * r.autograd_ops * r.autograd_ops;
        spa += w * r.python_ops * r.autograd_ops;
        spr += w * r.python_ops * r.residual_us;
        sar += w * r.autograd_ops * r.residual_us;
        host.fitted_on.push_back(r.name);
    }
    const double det = spp * saa - spa * spa;
    double p = 0, a = 0;
    if (rows.size() >= 2 && std::abs(det) > 1e-9 * spp * saa) {
        p = (spr * saa - sar * spa) / det;
        a = (sar * spp - spr * spa) / det;
    }
    if (rows.size() < 2 || p < 0 || a < 0) {
        double ops = 0, res = 0;
        for (const HostRow& r : rows) {
            ops += r.python_ops + r.autograd_ops;
            res += std::max(0.0, r.residual_us);
        }
        p = a = ops > 0 ? res / ops : 0;
    }
    host.python_op_us = p;
    host.autograd_op_us = a;
    return host;
}

int run(const CalibrateArgs& args) {
    if (args.collectives) {
        CollectiveCalibrationOptions options;
        options.out_dir = args.out == "costs.db" ? "calibrated_network" : args.out;
        options.ranks = args.ranks;
        options.quick = args.quick;
        options.max_bytes = args.max_bytes;
        if (!args.traces.empty()) {
            analysis::CollectivesUsed used;
            for (const TraceInput& in : expand_trace_inputs(args.traces)) {
                Trace trace = load_trace(in.trace_path);
                if (!in.meta_path.empty()) apply_recording_meta(trace, in.meta_path);
                analysis::add_collectives_used(used, trace);
            }
            focus_on_collectives_used(options, used, args.traces, args.ranks_given, args.max_bytes_given);
        }
        return run_collective_calibration(options);
    }
    if (args.traces.empty()) fail({"calibrate", -1, -1, ""}, "give traces or recordings to calibrate on (or --collectives)");
    model::CostDb db;
    if (std::filesystem::exists(args.out)) {
        db = model::read_cost_db(args.out);
        std::fprintf(stderr, "mimic calibrate: adding to %s (%zu signatures)\n", args.out.c_str(), db.ops.size());
    }
    const MachineInfo here = replay::describe_replay_machine();
    if (db.has_machine) {
        for (const auto& d : compare_machines(db.machine, here))
            std::fprintf(stderr, "mimic: %s\n", machine_warning(d, "database", "this machine").c_str());
    }
    db.machine = here;
    db.has_machine = true;

    const std::string binary = self_binary();
    std::vector<HostRow> host_rows;
    GapSums gap_sums;
    GapSums estimated_gap_sums;  // traces recorded without mimic: their replays' estimates
    size_t added = 0, skipped = 0;
    const TempDir scaled_dir("mimic-calibrate");
    const std::vector<CalibrationInput> inputs = calibration_inputs(args, scaled_dir);
    for (size_t k = 0; k < inputs.size(); ++k) {
        const std::string& input = inputs[k].path;
        const std::vector<TraceInput> expanded = expand_trace_inputs({input});
        if (expanded.size() != 1) fail({input, -1, -1, ""}, "calibrate takes one rank's trace or recording per argument");
        Trace trace = load_trace(expanded[0].trace_path);
        if (!expanded[0].meta_path.empty()) apply_recording_meta(trace, expanded[0].meta_path);
        const std::vector<model::TopLevelOp> tops = model::top_level_ops(trace);
        // The replay runs at --threads, else at the recording's own count.
        int threads = args.threads;
        const std::string& threads_meta = inputs[k].threads_from.empty() ? expanded[0].meta_path : inputs[k].threads_from;
        if (threads <= 0 && !threads_meta.empty())
            if (auto m = read_machine_from_meta(threads_meta)) threads = static_cast<int>(m->intra_op_threads.value_or(0));
        if (threads <= 0) threads = static_cast<int>(here.intra_op_threads.value_or(1));
        if (!expanded[0].meta_path.empty())
            if (auto gaps = recording_file_beside(expanded[0].meta_path, "op_gaps.json")) add_gaps(*gaps, trace, tops, gap_sums);
        std::vector<model::OpFacts> facts;
        bool all_known = true;
        for (const auto& t : tops) {
            facts.push_back(model::op_facts(trace, trace.nodes[t.node]));
            all_known = all_known && db.find(facts.back().signature, threads);
        }
        double untraced_ms = 0;
        if (!expanded[0].meta_path.empty()) {
            simdjson::dom::parser parser;
            simdjson::padded_string text;
            const auto meta = parse_json_object_file(expanded[0].meta_path, parser, text);
            double v;
            if (meta["untraced_median_ms"].get(v) == simdjson::SUCCESS) untraced_ms = v;
        }
        if (all_known) {
            // Every signature is in the database for this machine: nothing is
            // measured again; a recording still adds its host-time row.
            std::fprintf(stderr, "mimic calibrate: [%zu/%zu] %s: every signature already measured on this machine\n", k + 1,
                         inputs.size(), input.c_str());
            ++skipped;
            if (untraced_ms > 0) {
                HostRow row;
                row.name = input;
                double op_sum = 0;
                for (size_t i = 0; i < tops.size(); ++i) {
                    op_sum += db.find(facts[i].signature, threads)->time_us;
                    (tops[i].backward ? row.autograd_ops : row.python_ops) += 1;
                }
                row.residual_us = untraced_ms * 1000.0 - op_sum;
                host_rows.push_back(row);
            }
            continue;
        }
        std::fprintf(stderr, "mimic calibrate: [%zu/%zu] %s: timing %zu ops through the replayer\n", k + 1, inputs.size(),
                     input.c_str(), tops.size());
        const std::string tmp = args.out + ".op-times.tmp.json";
        std::vector<std::string> argv = {"/bin/sh", "-c", "exec \"$0\" \"$@\" > /dev/null", binary, "replay", input,
                                         "--op-times", tmp, "--no-profiled-pass", "--iters", "1", "--warmup", "1",
                                         "--op-passes", args.quick ? "3" : "5",
                                         // An op's own time: the faults a foreign trace cannot tell are the fault model's.
                                         "--page-faults", "none"};
        argv.push_back("--threads");
        argv.push_back(std::to_string(threads));
        const SubprocessResult r = run_subprocess(argv, {{"MIMIC_NO_PROGRESS", "1"}});
        if (r.exit_code != 0 || r.term_signal != 0)
            fail({input, -1, -1, ""}, "the replay that times its ops failed (exit " + std::to_string(r.exit_code) + ")");
        const ReplayedOps replayed = read_op_times(tmp);
        const std::map<uint64_t, double>& times = replayed.times;
        std::filesystem::remove(tmp);
        add_estimated_gaps(input, replayed.estimated_gaps, trace, tops, estimated_gap_sums);
        std::map<std::string, std::vector<double>> samples;
        double op_sum = 0;
        HostRow row;
        row.name = input;
        for (size_t i = 0; i < tops.size(); ++i) {
            const uint64_t id = trace.nodes[tops[i].node].id.value;
            auto it = times.find(id);
            if (it == times.end()) continue;  // not replayed here (no CPU kernel)
            samples[facts[i].signature].push_back(it->second);
            op_sum += it->second;
            (tops[i].backward ? row.autograd_ops : row.python_ops) += 1;
        }
        for (size_t i = 0; i < tops.size(); ++i) {
            auto s = samples.find(facts[i].signature);
            if (s == samples.end() || s->second.empty()) continue;
            model::OpCost c;
            c.signature = facts[i].signature;
            c.name = facts[i].name;
            c.family = model::family_of(c.name);
            c.flops = facts[i].flops;
            c.bytes = facts[i].bytes;
            c.time_us = median(s->second);
            c.samples = static_cast<int>(s->second.size());
            c.threads = threads;
            c.from_sweep = inputs[k].sweep;
            // A step's own measurement of a signature stands over the sweep's.
            if (const model::OpCost* known = db.find(c.signature, threads); c.from_sweep && known && !known->from_sweep) continue;
            db.add(c);
            s->second.clear();
            ++added;
        }
        if (untraced_ms > 0) {
            row.residual_us = untraced_ms * 1000.0 - op_sum;
            host_rows.push_back(row);
        }
    }
    // Measured gaps first; a trace recorded without mimic gives its replay's
    // estimate only where no recording gives measured ones.
    if (gap_sums.python_ops + gap_sums.autograd_ops == 0 && host_rows.empty()) gap_sums = std::move(estimated_gap_sums);
    if (gap_sums.python_ops + gap_sums.autograd_ops > 0) {
        // Measured gaps beat a fit on iteration times: those carry every
        // op's run-to-run spread, the gaps only the host's own time.
        const double all = (gap_sums.python_us + gap_sums.autograd_us) / static_cast<double>(gap_sums.python_ops + gap_sums.autograd_ops);
        db.host.python_op_us = gap_sums.python_ops ? gap_sums.python_us / static_cast<double>(gap_sums.python_ops) : all;
        db.host.autograd_op_us = gap_sums.autograd_ops ? gap_sums.autograd_us / static_cast<double>(gap_sums.autograd_ops) : all;
        db.host.fitted_on = gap_sums.names;
        db.host.fresh_page_share = gap_sums.fresh_pages > 0 ? gap_sums.faults / gap_sums.fresh_pages : 0;
        db.host.per_op_us.clear();
        for (const auto& [key, gaps] : gap_sums.by_op) db.host.per_op_us[key] = trimmed_mean(gaps);
    } else if (!host_rows.empty()) {
        db.host = fit_host(host_rows);
    }
    db.host.fault_us = measure_page_fault_us();
    model::write_cost_db(db, args.out);
    std::printf("%s: %zu signatures (%zu measured now, %zu inputs already measured)\n", args.out.c_str(), db.ops.size(), added,
                skipped);
    if (db.host.fitted())
        std::printf("host time per op: %.2f us before an op called from Python, %.2f us before a backward op (fitted on %zu recordings or traces)\n",
                    db.host.python_op_us, db.host.autograd_op_us, db.host.fitted_on.size());
    else
        std::printf("host time per op: not fitted (give recordings made by `mimic record`, which know their untraced time, or traces with their profiles)\n");
    std::printf("page faults: %.2f us each here; large fresh outputs fault on %.1f%% of their pages\n", db.host.fault_us,
                100 * db.host.fresh_page_share);
    return 0;
}

const Registrar registrar{{
    "calibrate",
    "Measure operator costs (and Gloo collectives) on this machine for predict",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<CalibrateArgs>();
        app.footer("Example: mimic calibrate rec/mlp rec/cnn --out costs.db && mimic predict rec/mlp --costs costs.db");
        app.add_option("traces", args->traces, "ETs or `mimic record` directories whose operators to measure");
        app.add_option("-o,--out", args->out, "cost database to write or add to (default costs.db)");
        app.add_flag("--quick", args->quick, "fewer timing passes");
        app.add_option("--threads", args->threads, "intra-op threads to measure with (default: each recording's)");
        app.add_option("--batch-scales", args->batch_scales,
                       "also measure each trace rewritten at these multiples of its batch (e.g. 0.5,2), for "
                       "predict --batch-scale")
            ->delimiter(',')
            ->check(above_zero());
        app.add_flag("--no-sweeps", args->no_sweeps,
                     "time only the traces' own ops, not the shape sweep per op family (GEMM, conv, embedding, norms, softmax, "
                     "elementwise, reductions, optimizer updates, copies) that family models fit on");
        app.add_flag("--collectives", args->collectives,
                     "measure Gloo collectives on this machine and fit ASTRA-sim network and system files (--out DIR, default "
                     "calibrated_network); given traces, only the collectives, sizes and world size they run");
        CLI::Option* ranks =
            app.add_option("--ranks", args->ranks,
                           "with --collectives: rank counts to measure (default: the traces' world size, else 2 4)")
                ->delimiter(',');
        CLI::Option* max_bytes = app.add_option(
            "--max-bytes", args->max_bytes, "with --collectives: largest message (default: 4x the traces' largest, else 64 MiB)");
        return [args, ranks, max_bytes] {
            args->ranks_given = ranks->count() > 0;
            args->max_bytes_given = max_bytes->count() > 0;
            return run(*args);
        };
    },
}};

}  // namespace
}  // namespace mimic::cli
#endif  // MIMIC_HAVE_TORCH

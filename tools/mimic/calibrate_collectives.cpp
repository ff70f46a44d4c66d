// `mimic calibrate --collectives` (see calibrate_collectives.h), and the
// hidden subcommand that runs one rank of its measurement.
#include "calibrate_collectives.h"

#include "support/error.h"

#ifdef MIMIC_HAVE_TORCH
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>

#include "command.h"
#include "replay/dist/collective_bench.h"
#include "sim/network_fit.h"
#include "support/json_writer.h"
#include "support/machine_info.h"
#include "support/output.h"
#include "support/text.h"

namespace mimic::cli {
namespace {

std::string self_exe() {
    char self[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) fail({"/proc/self/exe", -1, -1, ""}, "cannot find this program to start the ranks");
    self[n] = '\0';
    return self;
}

std::string load_average() {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a.empty() ? std::string("unknown") : a + " " + b + " " + c;
}


std::string fmt(const char* f, double v) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), f, v);
    return buf;
}

std::string today() {
    const std::time_t t = std::time(nullptr);
    char buf[32];
    std::strftime(buf, sizeof(buf), "%Y-%m-%d %H:%M", std::localtime(&t));
    return buf;
}

std::string params_text(const sim::NetworkFitParams& p) {
    std::string s = std::string(sim::topology_name(p.topology)) + ", " + fmt("%.4g", p.bandwidth_GBps) + " GB/s, latency " +
                    fmt("%.0f", p.latency_ns) + " ns, endpoint delay " + fmt("%.0f", p.endpoint_delay_ns) +
                    " ns, local-mem-bw " + fmt("%.4g", p.local_mem_bw_GBps) + " GB/s;";
    for (int c = 0; c < sim::kCollectiveKinds; ++c)
        s += std::string(c ? "," : "") + " " + sim::collective_name(static_cast<sim::CollectiveKind>(c)) + " " +
             sim::algorithm_name(p.implementation[c]);
    return s;
}

void write_params(JsonWriter& w, const sim::NetworkFitParams& p) {
    w.key("parameters").begin_object();
    w.field("topology", sim::topology_name(p.topology));
    w.field("bandwidth_GBps", p.bandwidth_GBps);
    w.field("latency_ns", p.latency_ns);
    w.field("endpoint_delay_ns", p.endpoint_delay_ns);
    w.field("local_mem_bw_GBps", p.local_mem_bw_GBps);
    w.key("implementations").begin_object();
    for (int c = 0; c < sim::kCollectiveKinds; ++c)
        w.field(sim::collective_name(static_cast<sim::CollectiveKind>(c)), sim::algorithm_name(p.implementation[c]));
    w.end_object();
    w.end_object();
}

void write_fit(JsonWriter& w, const sim::NetworkFit& fit) {
    w.begin_object();
    w.key("ranks").begin_array();
    for (int r : fit.ranks) w.value(r);
    w.end_array();
    write_params(w, fit.params);
    w.field("mean_abs_error_pct", fit.mean_abs_error_pct);
    w.field("max_abs_error_pct", fit.max_abs_error_pct);
    w.key("notes").begin_array();
    for (const std::string& n : fit.notes) w.value(n);
    w.end_array();
    w.key("points").begin_array();
    for (const sim::FitPoint& p : fit.points) {
        w.begin_object();
        w.field("collective", sim::collective_name(p.measured.collective));
        w.field("ranks", p.measured.ranks);
        w.field("bytes", p.measured.bytes);
        w.field("measured_us", p.measured.median_us);
        w.field("simulated_us", p.simulated_us);
        w.field("error_pct", p.error_pct);
        w.end_object();
    }
    w.end_array();
    w.end_object();
}

void write_focus(JsonWriter& w, const CollectiveCalibrationOptions& o) {
    w.key("fitted_to").begin_object();
    w.key("traces").begin_array();
    for (const std::string& t : o.traces) w.value(t);
    w.end_array();
    w.key("collectives").begin_array();
    for (const std::string& c : o.collectives) w.value(c);
    w.end_array();
    w.field("min_bytes", o.min_bytes);
    w.field("max_bytes", o.max_bytes);
    w.key("notes").begin_array();
    for (const std::string& n : o.focus) w.value(n);
    w.end_array();
    w.end_object();
}

}  // namespace

void focus_on_collectives_used(CollectiveCalibrationOptions& o, const analysis::CollectivesUsed& used,
                               const std::vector<std::string>& traces, bool ranks_given, bool max_bytes_given) {
    o.traces = traces;
    o.collectives.clear();
    o.focus.clear();
    uint64_t lo = UINT64_MAX, hi = 0;
    std::string skipped;
    for (const auto& [name, use] : used.by_collective) {
        if (!replay::is_bench_collective(name)) {
            skipped += (skipped.empty() ? "" : ", ") + name + " (" + std::to_string(use.calls) + " calls)";
            continue;
        }
        std::string line = name + ": " + std::to_string(use.calls) + " calls";
        if (use.sized_calls > 0) {
            lo = std::min(lo, use.min_bytes);
            hi = std::max(hi, use.max_bytes);
            line += ", " + replay::size_text(use.min_bytes) + " to " + replay::size_text(use.max_bytes);
        }
        o.focus.push_back(line);
    }
    // In the bench's order, which is the order the table lists them.
    for (const char* c : replay::kBenchCollectives)
        if (used.by_collective.count(c)) o.collectives.push_back(c);
    if (o.collectives.empty())
        fail({join(traces, ", "), -1, -1, ""}, std::string("no collective calibrate can time (all_reduce, all_gather, all_to_all, "
                                              "reduce_scatter) in these traces") +
                                      (skipped.empty() ? "" : "; they run " + skipped) +
                                      ": give no traces to time all four");
    if (!skipped.empty()) o.focus.push_back("not timed (Gloo's bench times the four above): " + skipped);
    if (hi > 0) {
        // A quarter of the smallest to 4x the largest, on the grid of 1 KiB x 4^k,
        // so that each size the job sends lies between two measured ones.
        uint64_t min_bytes = 1024;
        while (min_bytes * 4 <= lo / 4) min_bytes *= 4;
        uint64_t max_bytes = min_bytes * 4;
        while (max_bytes < hi * 4 && max_bytes < (1ull << 40)) max_bytes *= 4;
        o.min_bytes = min_bytes;
        if (!max_bytes_given) o.max_bytes = max_bytes;
        if (o.max_bytes <= o.min_bytes) o.min_bytes = std::max<uint64_t>(1024, o.max_bytes / 16);
    } else {
        o.focus.push_back("no call gives its size: every size is timed");
    }
    if (!ranks_given) {
        const int64_t world = used.world_size > 1 ? used.world_size : static_cast<int64_t>(used.traces);
        if (world > 1) o.ranks = {static_cast<int>(world)};
        else o.focus.push_back("the traces name no world size: timed on 2 and 4 ranks");
    }
}

int run_collective_calibration(const CollectiveCalibrationOptions& o) {
    if (o.out_dir.empty()) fail({"", -1, -1, "--out"}, "no output directory given");
    if (o.ranks.empty()) fail({"", -1, -1, "--ranks"}, "no rank counts given");
    std::error_code ec;
    std::filesystem::create_directories(o.out_dir, ec);
    if (ec) fail({o.out_dir, -1, -1, ""}, "cannot create the output directory: " + ec.message());

    const auto began = std::chrono::steady_clock::now();
    const std::string load_before = load_average();
    replay::CollectiveBenchOptions bench;
    bench.ranks = o.ranks;
    bench.quick = o.quick;
    bench.min_bytes = o.min_bytes;
    bench.max_bytes = o.max_bytes;
    if (!o.collectives.empty()) bench.collectives = o.collectives;
    if (!o.traces.empty()) {
        std::string ranks;
        for (int n : o.ranks) ranks += (ranks.empty() ? "" : " and ") + std::to_string(n);
        std::fprintf(stderr, "mimic calibrate: timing the collectives the traces run, %s to %s, on %s ranks\n",
                     replay::size_text(o.min_bytes).c_str(), replay::size_text(o.max_bytes).c_str(), ranks.c_str());
        for (const std::string& line : o.focus) std::fprintf(stderr, "mimic calibrate:   %s\n", line.c_str());
    }
    bench.timeout_s = o.timeout_s;
    bench.rank_command = {self_exe(), kCollectiveRankCommand};
    const std::vector<replay::CollectiveBenchTiming> timings = replay::measure_collectives(bench);
    const double measure_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();
    const std::string load_after = load_average();

    std::vector<sim::CollectiveMeasurement> measured;
    for (const replay::CollectiveBenchTiming& t : timings) {
        sim::CollectiveMeasurement m;
        if (!sim::parse_collective_kind(t.collective, m.collective)) fail({}, "unknown collective " + t.collective);
        m.ranks = t.ranks;
        m.bytes = t.bytes;
        m.median_us = t.median_us;
        m.p10_us = t.p10_us;
        m.p90_us = t.p90_us;
        measured.push_back(m);
    }

    // One fit per rank count; one set of parameters for all when it fits
    // each nearly as well (mean |error| within 1.25x + 1 point of its own).
    std::fprintf(stderr, "mimic calibrate: fitting the simulator's network and system to the measurements\n");
    std::map<int, sim::NetworkFit> own;
    for (int n : o.ranks) own[n] = sim::fit_network(measured, {n});
    std::unique_ptr<sim::NetworkFit> joint;
    bool use_joint = false;
    if (o.ranks.size() > 1) {
        joint = std::make_unique<sim::NetworkFit>(sim::fit_network(measured, o.ranks));
        use_joint = true;
        for (int n : o.ranks)
            use_joint = use_joint && joint->mean_abs_error_pct_of(n) <= 1.25 * own[n].mean_abs_error_pct + 1.0;
    }
    const double total_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - began).count();

    const MachineInfo machine = describe_this_process();
    std::vector<std::string> written;
    std::map<int, const sim::NetworkFit*> used;
    for (int n : o.ranks) {
        const sim::NetworkFit& fit = use_joint ? *joint : own[n];
        used[n] = &fit;
        const std::string comment =
            "mimic calibrate --collectives: Gloo over loopback, " + std::to_string(n) + " ranks, on " + machine.hostname +
            " (" + machine.cpu_model + "), " + today() + "\n" +
            (use_joint ? "one set of parameters for every rank count measured; " : "fitted to the " + std::to_string(n) +
                                                                                        "-rank measurements; ") +
            "mean |error| of simulate against them " + fmt("%.1f", fit.mean_abs_error_pct_of(n)) + "% (collectives.json)" +
            (o.traces.empty() ? std::string() : "\nfitted to the collectives the traces run: " + join(o.collectives, ", "));
        const std::string net = o.out_dir + "/network_" + std::to_string(n) + "ranks.yml";
        const std::string sys = o.out_dir + "/system_" + std::to_string(n) + "ranks.json";
        write_output(net, sim::fitted_network_yaml(fit.params, n, comment));
        write_output(sys, sim::fitted_system_json(fit.params));
        written.push_back(net);
        written.push_back(sys);
    }

    JsonWriter w;
    w.begin_object();
    w.key("machine");
    write_machine_json(w, machine);
    w.field("load_average_before", load_before);
    w.field("load_average_after", load_after);
    w.field("quick", o.quick);
    w.field("measure_seconds", measure_s);
    w.field("total_seconds", total_s);
    w.field("timing",
            "per call, from the last rank's issue to the last rank's completion (CLOCK_MONOTONIC, shared by the ranks), "
            "each call after a barrier; median, p10 and p90 over the timed calls. bytes: each rank's buffer (all_gather: "
            "each rank's input), as the simulator reads comm_size");
    w.field("error", "(simulated - measured) / measured, simulating the written files");
    w.key("measurements");
    w.raw(replay::collective_timings_json(timings));
    w.key("fits").begin_array();
    for (int n : o.ranks) write_fit(w, own[n]);
    w.end_array();
    if (joint) {
        w.key("joint_fit");
        write_fit(w, *joint);
    }
    w.field("written", use_joint ? "joint_fit" : "fits");
    if (!o.traces.empty()) write_focus(w, o);
    w.end_object();
    const std::string json_path = o.out_dir + "/collectives.json";
    write_output(json_path, w.str() + "\n");
    written.push_back(json_path);

    std::string out;
    out += "collective      ranks      size    measured us  (p10 .. p90)            simulated us    error\n";
    for (int n : o.ranks)
        for (const sim::FitPoint& p : used[n]->points) {
            if (p.measured.ranks != n) continue;
            char line[256];
            std::snprintf(line, sizeof(line), "%-15s %5d %9s %14.1f  (%9.1f .. %9.1f) %14.1f %+7.1f%%\n",
                          sim::collective_name(p.measured.collective), n, replay::size_text(p.measured.bytes).c_str(),
                          p.measured.median_us, p.measured.p10_us, p.measured.p90_us, p.simulated_us, p.error_pct);
            out += line;
        }
    out += "\n";
    for (int n : o.ranks) {
        const sim::NetworkFit& fit = *used[n];
        out += std::to_string(n) + " ranks: " + params_text(fit.params) + "\n";
        double max_err = 0;
        for (const sim::FitPoint& p : fit.points)
            if (p.measured.ranks == n) max_err = std::max(max_err, std::fabs(p.error_pct));
        out += "  mean |error| " + fmt("%.1f", fit.mean_abs_error_pct_of(n)) + "%, max " + fmt("%.1f", max_err) + "%";
        if (!use_joint) out += " (fitted to these ranks alone)";
        out += "\n";
    }
    if (joint) {
        std::string errors;
        for (int n : o.ranks)
            errors += std::string(errors.empty() ? "" : ", ") + std::to_string(n) + " ranks " +
                      fmt("%.1f", joint->mean_abs_error_pct_of(n)) + "%";
        out += use_joint ? "one set of parameters fits every rank count (mean |error| " + errors + "): written for each\n"
                         : "one set for all rank counts fits worse (mean |error| " + errors +
                               "): each rank count has its own files\n";
    }
    out += "measured in " + fmt("%.0f", measure_s) + " s, fitted in " + fmt("%.1f", total_s - measure_s) +
           " s; load average " + load_before + " before, " + load_after + " after\n";
    for (const std::string& f : written) out += "wrote " + f + "\n";
    std::fwrite(out.data(), 1, out.size(), stdout);
    return 0;
}

namespace {

std::vector<std::string> split_list(const std::string& text) {
    std::vector<std::string> out;
    size_t at = 0;
    while (at <= text.size()) {
        size_t end = text.find(',', at);
        if (end == std::string::npos) end = text.size();
        if (end > at) out.push_back(text.substr(at, end - at));
        at = end + 1;
    }
    return out;
}

struct RankArgs {
    std::string sizes, collectives, json;
    int timeout_s = 120;
    bool quick = false;
};

const Registrar rank_registrar{{
    kCollectiveRankCommand,
    "",
    [](CLI::App& app) -> RunFn {
        app.group("");  // hidden: run by `mimic calibrate --collectives`, one process per rank
        auto a = std::make_shared<RankArgs>();
        app.add_option("--sizes", a->sizes, "comma-separated sizes in bytes")->required();
        app.add_option("--collectives", a->collectives, "comma-separated collectives")->required();
        app.add_option("--json", a->json, "where this rank writes its timestamps")->required();
        app.add_option("--timeout-s", a->timeout_s, "how long to wait for a peer")->check(CLI::Range(1, 86400));
        app.add_flag("--quick", a->quick, "fewer calls per size");
        return [a] {
            replay::CollectiveBenchRankArgs r;
            for (const std::string& s : split_list(a->sizes)) {
                try {
                    r.sizes.push_back(std::stoull(s));
                } catch (const std::exception&) {
                    fail({"", -1, -1, "--sizes"}, "'" + s + "' is not a size in bytes");
                }
            }
            r.collectives = split_list(a->collectives);
            r.quick = a->quick;
            r.timeout_s = a->timeout_s;
            r.json_path = a->json;
            return replay::run_collective_bench_rank(r);
        };
    },
}};

}  // namespace
}  // namespace mimic::cli

#endif  // MIMIC_HAVE_TORCH

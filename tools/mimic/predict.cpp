// mimic predict TRACE --costs costs.db [--json FILE]
// Predicts an iteration's time from its execution trace alone (no profile):
// each top-level op from the cost database `mimic calibrate` measured on
// this machine (or its family's model), plus the host time around each op.
#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>
#include <filesystem>
#include <cstdio>
#include <memory>
#include <string>

#include <simdjson.h>

#include "analysis/text_table.h"
#include "command.h"
#include "io/kineto/kineto_devices.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "link/link_profile.h"
#include "model/gpu_estimate.h"
#include "sim/critical_path.h"
#include "sim/sim_report.h"
#include "sim/simulator.h"
#include "sim/trace_workload.h"
#include "compose/scale_batch.h"
#include "io/trace_loader.h"
#include "model/op_signature.h"
#include "model/predictor.h"
#include "predict_what_if.h"
#include "support/chrome_trace.h"
#include "support/error.h"
#include "support/json_file.h"
#include "support/json_writer.h"
#include "support/output.h"
#include "support/temp_dir.h"

namespace mimic::cli {
namespace {

struct PredictArgs {
    std::string trace;
    std::string profile;
    std::string device = "auto";
    std::string network, system, memory;
    int ranks = 0;
    int ranks_per_host = 0;     // 0: as the recordings say
    int collectives_in_flight = 0;  // per rank; 0: as sim::collectives_in_flight_for says
    double cores_per_host = 0;  // 0: as the recordings say
    int threads = 0;
    bool unseen = false;
    std::string costs = "costs.db";
    std::string json;
    std::string timeline;
    double batch_scale = 1;
    int top = 10;
    std::string what_if;  // SETTING=V1,V2,...
    bool quiet = false;   // the JSON report only (one value of a what-if)
};

// --batch-scale: the trace rewritten at X times its batch, as `mimic scale`
// writes it (compose/scale_batch.h), read back as the trace to predict.
Trace load_at_batch_scale(const std::string& path, double factor) {
    const TempDir dir("mimic-predict");
    const std::string scaled = dir.path() + "/et.json";
    const compose::ScaleStats s = compose::scale_batch_file(path, {factor, 0}, scaled);
    std::fprintf(stderr, "mimic predict: batch %lld -> %lld (%llu tensor shapes, %llu size lists rewritten)\n",
                 static_cast<long long>(s.batch_before), static_cast<long long>(s.batch_after),
                 static_cast<unsigned long long>(s.scaled_tensors), static_cast<unsigned long long>(s.rewritten_lists));
    Trace trace = load_trace(scaled);
    trace.source_path = path;
    return trace;
}

// One thread's predicted iteration as a Chrome/Perfetto trace: each op's host
// overhead, then the op, end to end, as the predictor walks them.
std::string prediction_timeline(const model::Prediction& p, int64_t rank) {
    ChromeTrace t;
    const int64_t pid = rank >= 0 ? rank : 0;
    t.process(pid, "prediction, rank " + std::to_string(pid));
    t.thread(pid, 1, "predicted thread (host overhead, then op)");
    double now_us = 0;
    for (const model::PredictedOp& op : p.ops) {
        if (op.host_us > 0) t.complete(pid, 1, "host", now_us, op.host_us);
        now_us += op.host_us;
        t.complete(pid, 1, op.name, now_us, op.op_us,
                   {{"node", static_cast<double>(op.node_id)}, {"op_us", op.op_us}, {"host_us", op.host_us}});
        now_us += op.op_us;
    }
    return t.finish();
}


std::string devices_dir() { return std::string(MIMIC_SOURCE_DIR) + "/data/devices"; }

// --device: a spec file, a name in data/devices (file name or the spec's
// name), or "auto" (the profile's own GPU).
model::DeviceSpec choose_device(const std::string& device, const std::string& profile) {
    if (device.find('/') != std::string::npos || (device.size() > 5 && device.substr(device.size() - 5) == ".json"))
        return model::read_device_spec(device);
    const std::vector<model::DeviceSpec> specs = model::read_device_specs(devices_dir());
    if (device == "auto") {
        const std::vector<std::string> names = kineto_device_names(profile);
        if (names.empty()) fail({profile, -1, -1, "deviceProperties"}, "names no GPU; give --device");
        if (const model::DeviceSpec* s = model::match_device(specs, names[0])) return *s;
        fail({profile, -1, -1, "deviceProperties"}, "GPU '" + names[0] + "' has no spec in " + devices_dir() + "; give --device FILE");
    }
    for (const auto& s : specs) {
        const std::string file = std::filesystem::path(s.source).stem().string();
        if (file == device || s.name == device) return s;
    }
    fail({"--device", -1, -1, ""}, "no device spec named '" + device + "' in " + devices_dir());
}

int run_gpu(const PredictArgs& args, Trace& trace) {
    if (!args.timeline.empty())
        fail({"--timeline", -1, -1, ""}, "a GPU kernel estimate is per op family, not a schedule, so it has no timeline; "
                                         "`mimic timeline TRACE --profile " + args.profile + "` draws the recorded one");
    const model::DeviceSpec spec = choose_device(args.device, args.profile);
    const model::GpuEstimate e = model::estimate_gpu_kernels(trace, spec);
    std::vector<std::string> recorded_on = kineto_device_names(args.profile);
    if (!args.json.empty()) {
        JsonWriter w;
        w.begin_object().field("trace", args.trace).field("profile", args.profile).field("estimate", true);
        w.field("device", e.device).field("recorded_on", recorded_on.empty() ? std::string() : recorded_on[0]);
        w.field("kernels", e.kernels).field("ops", e.ops).field("recorded_kernel_ms", e.recorded_us / 1000).field("estimated_kernel_ms", e.estimated_us / 1000);
        w.key("by_family").begin_object();
        for (const auto& [f, x] : e.by_family)
            w.key(model::family_name(f)).begin_object().field("ops", x.ops).field("kernels", x.kernels).field("recorded_ms", x.recorded_us / 1000)
                .field("estimated_ms", x.estimated_us / 1000).field("geomean_abs_error_pct", x.geomean_abs_error_pct).end_object();
        w.end_object().end_object();
        write_output(args.json, w.str() + "\n");
        if (args.json == "-" || args.quiet) return 0;
    }
    std::printf("GPU kernel time ESTIMATED for %s from nominal peaks (data/devices), not measured: %s ms over %zu ops, %zu kernels\n",
                e.device.c_str(), analysis::fixed(e.estimated_us / 1000).c_str(), e.ops, e.kernels);
    if (!recorded_on.empty())
        std::printf("recorded on %s: %s ms of kernels\n", recorded_on[0].c_str(), analysis::fixed(e.recorded_us / 1000).c_str());
    using analysis::TextTable;
    const auto R = TextTable::Align::Right;
    TextTable t({"family", "ops", "kernels", "recorded_ms", "estimated_ms", "total_error", "per_op_geomean_error"},
                {TextTable::Align::Left, R, R, R, R, R, R});
    for (const auto& [f, x] : e.by_family)
        t.add_row({model::family_name(f), std::to_string(x.ops), std::to_string(x.kernels), analysis::fixed(x.recorded_us / 1000), analysis::fixed(x.estimated_us / 1000),
                   x.recorded_us > 0 ? analysis::fixed(100 * (x.estimated_us / x.recorded_us - 1), 1) + "%" : "", analysis::fixed(x.geomean_abs_error_pct, 1) + "%"});
    std::printf("%s", t.render().c_str());
    return 0;
}

// Many ranks: every rank's ops costed as for one rank, then run through the
// simulator on the given network, which adds the collectives and the waits.
// The thread count to predict at: --threads, else the recording's, else the
// one the database has most of.
int threads_for(const PredictArgs& args, const model::CostDb& db, const std::string& meta_path) {
    if (args.threads > 0) return args.threads;
    if (!meta_path.empty())
        if (auto m = read_machine_from_meta(meta_path))
            if (m->intra_op_threads) return static_cast<int>(*m->intra_op_threads);
    const std::vector<int> counts = db.thread_counts();
    if (counts.empty()) return 1;
    return counts.front();
}

void check_threads(const model::CostDb& db, int threads) {
    const std::vector<int> counts = db.thread_counts();
    if (std::find(counts.begin(), counts.end(), threads) != counts.end()) return;
    std::string have;
    for (int c : counts) have += (have.empty() ? "" : ", ") + std::to_string(c);
    fail({db.source, -1, -1, "threads"}, "has no measurements at " + std::to_string(threads) + " threads (it has " +
                                             (have.empty() ? std::string("none") : have) + "); run mimic calibrate --threads " +
                                             std::to_string(threads));
}

// Which ranks share a host's cores, and how many it has: as given, else as the
// recordings' meta.json say (every rank on one host name: all of them, on its
// usable cores). A what-if of --ranks N has one recording, so its ranks have
// hosts of their own unless --ranks-per-host says otherwise. Traces without
// a meta.json (PyTorch's own tools) say nothing of their hosts: a warning
// says what was assumed.
sim::HostCores host_cores_for(const PredictArgs& args, const std::vector<TraceInput>& inputs, int ranks, int threads,
                              std::string& how, std::vector<std::string>& warnings) {
    sim::HostCores h;
    h.compute_threads = threads;
    std::vector<MachineInfo> machines;
    for (const TraceInput& in : inputs)
        if (!in.meta_path.empty())
            if (auto m = read_machine_from_meta(in.meta_path)) machines.push_back(*m);
    h.ranks_per_host = args.ranks_per_host;
    how = "as given";
    if (h.ranks_per_host == 0 && args.ranks == 0 && ranks > 1 && machines.size() == inputs.size()) {
        bool one_host = !machines[0].hostname.empty();
        for (const MachineInfo& m : machines) one_host = one_host && m.hostname == machines[0].hostname;
        if (one_host) {
            h.ranks_per_host = ranks;
            how = "recorded on one host, " + machines[0].hostname;
        }
    }
    // Chakra traces (protobuf or JSON) are excluded: ASTRA-sim's workloads
    // have no hosts to share. Last in the test, so only then is a file opened.
    if (h.ranks_per_host == 0 && args.ranks == 0 && ranks > 1 && machines.size() != inputs.size() &&
        detect_file_kind(inputs[0].trace_path) != FileKind::Chakra)
        warnings.push_back("the ranks' hosts are not recorded (no meta.json with a host name): each rank is given cores "
                           "of its own; if K ranks shared a host's C cores, --ranks-per-host K --cores-per-host C");
    h.cores = args.cores_per_host;
    if (h.cores <= 0 && !machines.empty()) {
        const MachineInfo& m = machines[0];
        const std::optional<int64_t> cores = m.usable_cores ? m.usable_cores : m.logical_cores;
        if (cores) h.cores = static_cast<double>(*cores);
    }
    if (h.enabled() && h.cores <= 0)
        fail({"--cores-per-host", -1, -1, ""}, "ranks share a host (--ranks-per-host " + std::to_string(h.ranks_per_host) +
                                                   ") but its cores are not recorded; give --cores-per-host");
    return h;
}

// The critical path of the rank that finished last (rank 0 when one rank stood
// for all), each node named as in its trace.
struct RankCriticalPath {
    int rank = 0;
    sim::Tick finish_ns = 0;
    struct Step {
        uint64_t node_id;
        std::string name, family;
        double start_us, duration_us;
    };
    std::vector<Step> steps;
};

RankCriticalPath rank_critical_path(const sim::SimulationResult& r, const sim::SimulationInput& input, const sim::TraceWorkload& w) {
    RankCriticalPath out;
    // A rank that never finishes (the errors say why) has no path to its end.
    for (const sim::RankResult& x : r.ranks)
        if (!x.finished) return out;
    for (const sim::RankResult& x : r.ranks)
        if (x.finish_ns > out.finish_ns && (!r.simulated_once || x.rank == 0)) {
            out.rank = x.rank;
            out.finish_ns = x.finish_ns;
        }
    const sim::RankGraph& graph = *input.graphs[static_cast<size_t>(out.rank)];
    // --ranks N copies one trace, whose names are under its own rank.
    auto names = w.node_names.find(out.rank);
    if (names == w.node_names.end()) names = w.node_names.begin();
    for (const sim::CriticalStep& s : sim::critical_path(r, graph, out.rank)) {
        const uint64_t id = graph.nodes[s.node].id;
        std::string name;
        if (names != w.node_names.end())
            if (auto it = names->second.find(id); it != names->second.end()) name = it->second;
        const std::string family = s.kind == sim::NodeClass::Comm ? "communication"
                                   : s.kind == sim::NodeClass::Gpu ? "gpu"
                                                                   : model::family_name(model::family_of(name));
        out.steps.push_back({id, name, family, static_cast<double>(s.start_ns) / 1e3, static_cast<double>(s.end_ns - s.start_ns) / 1e3});
    }
    return out;
}

// Its time by family, then its longest nodes.
void print_rank_critical_path(const RankCriticalPath& path, int top) {
    if (path.steps.empty()) return;
    std::map<std::string, double> by_family;
    double on_path_us = 0;
    for (const auto& s : path.steps) {
        by_family[s.family] += s.duration_us;
        on_path_us += s.duration_us;
    }
    const double finish_us = static_cast<double>(path.finish_ns) / 1e3;
    std::printf("critical path of rank %d: %zu nodes, %s of its %s ms (the rest idle between them):", path.rank, path.steps.size(),
                analysis::fixed(on_path_us / 1e3).c_str(), analysis::fixed(finish_us / 1e3).c_str());
    for (const auto& [family, us] : by_family) std::printf(" %s %s ms", family.c_str(), analysis::fixed(us / 1e3).c_str());
    std::printf("\n");
    std::vector<const RankCriticalPath::Step*> longest;
    for (const auto& s : path.steps) longest.push_back(&s);
    std::sort(longest.begin(), longest.end(), [](auto* a, auto* b) { return a->duration_us > b->duration_us; });
    for (size_t i = 0; i < longest.size() && static_cast<int>(i) < top; ++i)
        std::printf("  %8s ms  %5.1f%%  %s (node %llu, %s)\n", analysis::fixed(longest[i]->duration_us / 1e3, 3).c_str(),
                    100 * longest[i]->duration_us / std::max(finish_us, 1e-9), longest[i]->name.c_str(),
                    static_cast<unsigned long long>(longest[i]->node_id), longest[i]->family.c_str());
}

int run_ranks(const PredictArgs& args, const model::CostDb& db) {
    const std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    const int threads = threads_for(args, db, inputs.empty() ? "" : inputs[0].meta_path);
    check_threads(db, threads);
    const model::CostModel costs(db, threads);
    sim::HostOpTime op_time = [&](const Trace& trace, uint32_t node) {
        return static_cast<uint64_t>(std::llround(model::predicted_op_us(trace, node, costs, db.host) * 1000.0));
    };
    sim::SimulationInput input;
    std::vector<std::string> warnings;
    input.network = sim::read_network_config(args.network, warnings);
    input.system = sim::read_system_config(args.system, warnings);
    if (!args.memory.empty()) input.memory = sim::read_remote_memory_config(args.memory, warnings);
    sim::TraceWorkload w = sim::read_trace_workload({args.trace}, "", op_time);
    if (args.ranks > 0) {
        if (w.graphs.size() != 1) fail({"--ranks", -1, -1, ""}, "scales one rank's trace; " + std::to_string(w.graphs.size()) + " ranks were given");
        input.graphs = sim::replicate_ranks(w.graphs[0], args.ranks, warnings);
    } else {
        for (auto& g : w.graphs) input.graphs.push_back(std::make_shared<const sim::RankGraph>(std::move(g)));
        input.comm_groups = w.comm_groups;
        input.comm_groups_source = args.trace;
    }
    std::string hosts_from;
    input.options.host_cores = host_cores_for(args, inputs, static_cast<int>(input.graphs.size()), threads, hosts_from,
                                                warnings);
    const sim::HostCores& hc = input.options.host_cores;
    input.options.collectives_in_flight = sim::collectives_in_flight_for(w, args.collectives_in_flight, input.system, warnings);
    sim::SimulationOptions options;
    options.record_spans = true;  // for the critical path
    sim::SimulationResult r = sim::simulate(input, options);
    const RankCriticalPath path = rank_critical_path(r, input, w);
    if (!args.timeline.empty()) write_output(args.timeline, sim::format_timeline(r, input));
    r.warnings.insert(r.warnings.begin(), warnings.begin(), warnings.end());
    sim::Tick last = 0;
    for (const auto& x : r.ranks) last = std::max(last, x.finish_ns);
    if (!args.json.empty()) {
        JsonWriter jw;
        jw.begin_object().field("trace", args.trace).field("costs", args.costs).field("iteration_ms", static_cast<double>(last) / 1e6);
        jw.key("breakdown").begin_object();
        jw.field("compute_and_host_ms", static_cast<double>(r.ranks[0].cpu_compute_ns + r.ranks[0].gpu_compute_ns) / 1e6);
        jw.field("communication_ms", static_cast<double>(r.ranks[0].comm_ns) / 1e6);
        jw.field("exposed_communication_ms", static_cast<double>(r.ranks[0].finish_ns - std::min(r.ranks[0].finish_ns, r.ranks[0].cpu_compute_ns + r.ranks[0].gpu_compute_ns)) / 1e6);
        jw.end_object();
        jw.key("critical_path_rank").value(path.rank);
        jw.key("critical_path").begin_array();
        for (const auto& s : path.steps)
            jw.begin_object().field("node_id", s.node_id).field("name", s.name).field("family", s.family).field("start_us", s.start_us)
                .field("op_us", s.duration_us).field("host_us", 0.0).field("share", s.duration_us * 1e3 / std::max<double>(1.0, static_cast<double>(path.finish_ns)))
                .end_object();
        jw.end_array();
        jw.key("host_cores").begin_object().field("ranks_per_host", hc.enabled() ? hc.ranks_per_host : 1).field("cores", hc.cores).field("threads_per_op", hc.compute_threads).field("threads_per_collective", hc.comm_threads).end_object();
        jw.key("simulation").raw(sim::format_json(r, 0));
        jw.end_object();
        write_output(args.json, jw.str() + "\n");
        // One value of a what-if prints no table: its warnings go to stderr instead.
        if (args.quiet)
            for (const auto& warning : r.warnings) std::fprintf(stderr, "mimic predict: warning: %s\n", warning.c_str());
        if (args.json == "-" || args.quiet) return r.errors.empty() ? 0 : 1;
    }
    std::printf("predicted iteration: %s ms over %zu ranks (ops from %s, collectives simulated on %s)\n", analysis::fixed(static_cast<double>(last) / 1e6).c_str(),
                r.ranks.size(), args.costs.c_str(), args.network.c_str());
    if (hc.enabled())
        std::printf("ranks share hosts (%s): %d per host on %s cores; ops slow down while their threads (%s each) and "
                    "collectives in flight (%s each) outnumber the cores (--ranks-per-host 1: a host per rank)\n",
                    hosts_from.c_str(), hc.ranks_per_host, analysis::fixed(hc.cores, 0).c_str(), analysis::fixed(hc.compute_threads, 0).c_str(),
                    analysis::fixed(hc.comm_threads, 0).c_str());
    std::printf("%s", sim::format_table(r).c_str());
    print_rank_critical_path(path, args.top);
    return r.errors.empty() ? 0 : 1;
}

int run(const PredictArgs& args) {
    const std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    for (const TraceInput& in : inputs)
        if (in.is_profile_alone())
            fail({in.trace_path, -1, -1, ""},
                 "a profile alone has no operator inputs to cost; predict needs the execution trace (give the ET, with "
                 "--profile for a GPU trace's kernels)");
    if (inputs.size() != 1 && args.network.empty())
        fail({args.trace, -1, -1, ""}, std::to_string(inputs.size()) + " ranks: give --network and --system to predict them together");
    if (args.batch_scale != 1 && (!args.network.empty() || !args.profile.empty()))
        fail({args.trace, -1, -1, "--batch-scale"}, "goes with one CPU trace (not with --network or --profile)");
    Trace trace = args.batch_scale != 1 ? load_at_batch_scale(inputs[0].trace_path, args.batch_scale)
                                        : load_trace(inputs[0].trace_path);
    if (!args.profile.empty() && !kineto_device_names(args.profile).empty()) {
        link_profile(trace, read_kineto_trace(args.profile));
        return run_gpu(args, trace);
    }
    if (model::top_level_ops(trace).empty())
        fail({inputs[0].trace_path, -1, -1, ""},
             "no operator to cost: none of its " + std::to_string(trace.nodes.size()) +
                 " nodes is an operator whose inputs the trace gives (Chakra's JSON feeder format, for one, keeps "
                 "names and durations only); predict needs an execution trace, or a Chakra trace converted with its inputs");
    if (!std::filesystem::exists(args.costs))
        fail({args.costs, -1, -1, "--costs"},
             "no cost database here: measure this machine first with 'mimic calibrate " + args.trace + " --out " + args.costs +
                 "' (--quick takes about two minutes), or give one with --costs FILE");
    const model::CostDb db = model::read_cost_db(args.costs);
    if (!args.network.empty() || !args.system.empty()) {
        if (args.network.empty() || args.system.empty()) fail({"--network", -1, -1, ""}, "many ranks need both --network and --system");
        return run_ranks(args, db);
    }
    double untraced_ms = 0;
    if (!inputs[0].meta_path.empty()) {
        apply_recording_meta(trace, inputs[0].meta_path);
        simdjson::dom::parser parser;
        simdjson::padded_string text;
        double v;
        // At another batch the original's time is not the truth to compare with.
        if (args.batch_scale == 1 &&
            parse_json_object_file(inputs[0].meta_path, parser, text)["untraced_median_ms"].get(v) == simdjson::SUCCESS)
            untraced_ms = v;
        if (db.has_machine)
            if (auto m = read_machine_from_meta(inputs[0].meta_path))
                for (const auto& d : compare_machines(*m, db.machine))
                    std::fprintf(stderr, "mimic: %s\n", machine_warning(d, "trace", "cost database").c_str());
    }
    if (!db.host.fitted())
        std::fprintf(stderr, "mimic: warning: %s has no fitted host time: the prediction is operator time alone\n", args.costs.c_str());
    const int threads = threads_for(args, db, inputs[0].meta_path);
    check_threads(db, threads);
    std::set<std::string> signatures;
    auto hide = [&](const Trace& t) {
        for (const auto& top : model::top_level_ops(t)) signatures.insert(model::op_signature(t, t.nodes[top.node]));
    };
    // At another batch, the trace at the recorded one: its shapes are hidden too
    // under --unseen, and its ops bound the rescaled ones (hold_batch_order).
    std::optional<Trace> recorded;
    if (args.batch_scale != 1) {
        recorded = load_trace(inputs[0].trace_path);
        if (!inputs[0].meta_path.empty()) apply_recording_meta(*recorded, inputs[0].meta_path);
    }
    if (args.unseen) hide(trace);
    // At another batch the recorded shapes are hidden too: the family models
    // are then the same at every --batch-scale, so two scales compare batches,
    // not one fit with the trace's own points against one without them.
    if (args.unseen && recorded) hide(*recorded);
    const model::CostModel costs = args.unseen ? model::CostModel(db, threads, signatures) : model::CostModel(db, threads);
    model::Prediction p = model::predict_iteration(trace, costs, db.host);
    if (recorded) model::hold_batch_order(p, model::predict_iteration(*recorded, costs, db.host), args.batch_scale);
    // With --unseen, how the family models did against the ops' own measurements.
    std::map<model::OpFamily, std::vector<double>> unseen_log_errors;
    if (args.unseen)
        for (const auto& op : p.ops) {
            const Node& node = trace.nodes[trace.find(NodeId{op.node_id}).value];
            const model::OpCost* measured = db.find(model::op_signature(trace, node), threads);
            if (!measured || measured->time_us <= 0) continue;
            const double modelled = op.op_us - op.fault_us;
            unseen_log_errors[op.family].push_back(std::log(std::max(std::abs(modelled / measured->time_us - 1) * 100, 0.01)));
        }
    auto geomean = [](const std::vector<double>& logs) {
        double s = 0;
        for (double x : logs) s += x;
        return logs.empty() ? 0.0 : std::exp(s / static_cast<double>(logs.size()));
    };
    const double iteration_ms = p.iteration_us / 1000.0;
    if (!args.timeline.empty()) write_output(args.timeline, prediction_timeline(p, trace.rank));

    // Ops on the critical path (one thread: all of them), largest first.
    std::vector<const model::PredictedOp*> ranked;
    for (const auto& op : p.ops) ranked.push_back(&op);
    std::sort(ranked.begin(), ranked.end(), [](auto* a, auto* b) { return a->op_us + a->host_us > b->op_us + b->host_us; });

    if (!args.json.empty()) {
        JsonWriter w;
        w.begin_object().field("trace", args.trace).field("costs", args.costs).field("iteration", p.iteration).field("batch_scale", args.batch_scale);
        w.field("iteration_ms", iteration_ms).field("threads", threads);
        if (untraced_ms > 0) w.field("original_untraced_ms", untraced_ms).field("error_pct", 100.0 * (iteration_ms - untraced_ms) / untraced_ms);
        w.key("breakdown").begin_object().field("compute_ms", p.compute_us / 1000.0).field("host_overhead_ms", p.host_us / 1000.0);
        w.field("page_faults_ms", p.fault_us / 1000.0);
        w.field("communication_ms", 0.0).field("exposed_communication_ms", 0.0).field("idle_ms", 0.0);
        w.key("compute_by_family_ms").begin_object();
        for (const auto& [f, us] : p.compute_by_family_us) w.field(model::family_name(f), us / 1000.0);
        w.end_object().end_object();
        w.key("ops").begin_object().field("total", p.ops.size()).field("measured", p.measured).field("family_model", p.modelled);
        if (args.batch_scale != 1) w.field("held_to_recorded_batch", p.held_to_recorded_batch);
        w.field("fallback", p.fallback).key("fallback_names").begin_object();
        for (const auto& [name, n] : p.fallback_ops) w.field(name, n);
        w.end_object().end_object();
        if (args.unseen) {
            w.key("unseen_per_op_error_pct").begin_object();
            std::vector<double> all;
            for (const auto& [f, logs] : unseen_log_errors) {
                w.key(model::family_name(f)).begin_object().field("ops", logs.size()).field("geomean_abs_error_pct", geomean(logs)).end_object();
                all.insert(all.end(), logs.begin(), logs.end());
            }
            w.key("all").begin_object().field("ops", all.size()).field("geomean_abs_error_pct", geomean(all)).end_object();
            w.end_object();
        }
        w.key("critical_path").begin_array();
        for (const auto* op : ranked) {
            w.begin_object().field("node_id", op->node_id).field("name", op->name).field("family", model::family_name(op->family));
            w.field("op_us", op->op_us).field("host_us", op->host_us).field("share", (op->op_us + op->host_us) / std::max(p.iteration_us, 1e-9));
            w.field("source", model::cost_source_name(op->source)).field("backward", op->backward).end_object();
        }
        w.end_array().end_object();
        write_output(args.json, w.str() + "\n");
        if (args.json == "-" || args.quiet) return 0;
    }
    if (args.batch_scale != 1) std::printf("what if the batch were %gx the recorded one:\n", args.batch_scale);
    std::printf("predicted iteration at %d intra-op thread%s: %s ms (compute %s ms, host overhead %s ms) over %zu ops%s\n", threads,
                threads == 1 ? "" : "s", analysis::fixed(iteration_ms).c_str(),
                analysis::fixed(p.compute_us / 1000).c_str(), analysis::fixed(p.host_us / 1000).c_str(), p.ops.size(),
                p.iteration.empty() ? "" : (" of " + p.iteration).c_str());
    if (untraced_ms > 0)
        std::printf("original, untraced (meta.json): %s ms, prediction %+.1f%%\n", analysis::fixed(untraced_ms).c_str(),
                    100.0 * (iteration_ms - untraced_ms) / untraced_ms);
    if (p.fault_us > 0) std::printf("page faults on fresh outputs: %s ms of the compute\n", analysis::fixed(p.fault_us / 1000).c_str());
    if (p.held_to_recorded_batch > 0)
        std::printf("%zu op%s held at the time at the recorded batch: the family models put %s %s at %gx "
                    "(a batch %s never makes an op %s)\n",
                    p.held_to_recorded_batch, p.held_to_recorded_batch == 1 ? "" : "s",
                    p.held_to_recorded_batch == 1 ? "it" : "them", args.batch_scale > 1 ? "faster" : "slower", args.batch_scale,
                    args.batch_scale > 1 ? "grown" : "shrunk", args.batch_scale > 1 ? "faster" : "slower");
    if (args.unseen) {
        std::printf("as if unseen: each op from its family's model, against its own measurement (geometric mean |error| per op):\n");
        std::vector<double> all;
        for (const auto& [f, logs] : unseen_log_errors) {
            std::printf("  %-12s %5zu ops %7.1f%%\n", model::family_name(f), logs.size(), geomean(logs));
            all.insert(all.end(), logs.begin(), logs.end());
        }
        std::printf("  %-12s %5zu ops %7.1f%%\n", "all", all.size(), geomean(all));
    }
    std::printf("ops: %zu measured signatures, %zu from their family's model, %zu fallback%s\n", p.measured, p.modelled, p.fallback,
                p.fallback ? " (no model: the database's median op time)" : "");
    for (const auto& [name, n] : p.fallback_ops) std::printf("  fallback: %s x%zu\n", name.c_str(), n);
    using analysis::TextTable;
    const auto R = TextTable::Align::Right;
    TextTable fam({"family", "compute_ms", "share"}, {TextTable::Align::Left, R, R});
    std::vector<std::pair<double, model::OpFamily>> fams;
    for (const auto& [f, us] : p.compute_by_family_us) fams.push_back({us, f});
    std::sort(fams.rbegin(), fams.rend());
    for (const auto& [us, f] : fams) fam.add_row({model::family_name(f), analysis::fixed(us / 1000), analysis::percent(us / std::max(p.iteration_us, 1e-9))});
    fam.add_row({"host overhead", analysis::fixed(p.host_us / 1000), analysis::percent(p.host_us / std::max(p.iteration_us, 1e-9))});
    std::printf("%s", fam.render().c_str());
    TextTable crit({"critical path (top ops)", "node", "op_us", "host_us", "share", "source"}, {TextTable::Align::Left, R, R, R, R, TextTable::Align::Left});
    for (size_t i = 0; i < ranked.size() && static_cast<int>(i) < args.top; ++i) {
        const auto* op = ranked[i];
        crit.add_row({op->name, std::to_string(op->node_id), analysis::fixed(op->op_us, 1), analysis::fixed(op->host_us, 1),
                      analysis::percent((op->op_us + op->host_us) / std::max(p.iteration_us, 1e-9)), model::cost_source_name(op->source)});
    }
    std::printf("%s", crit.render().c_str());
    return 0;
}

// --what-if: the ordinary prediction once per value, each writing its JSON
// report for the driver to rank.
int run_what_if_values(const PredictArgs& args) {
    const WhatIf what_if = parse_what_if(args.what_if);
    if (what_if.setting == "device" && args.profile.empty())
        fail({"--what-if", -1, -1, "device"}, "estimates a GPU trace's kernels: give its --profile");
    if (what_if.setting != "device" && !args.profile.empty())
        fail({"--what-if", -1, -1, what_if.setting}, "goes with CPU predictions (with --profile, only device)");
    if (!args.timeline.empty()) fail({"--what-if", -1, -1, ""}, "writes no --timeline: predict one value to see its timeline");
    if ((what_if.setting == "batch-scale" && args.batch_scale != 1) || (what_if.setting == "threads" && args.threads > 0) ||
        (what_if.setting == "ranks" && args.ranks > 0))
        fail({"--what-if", -1, -1, what_if.setting}, "--" + what_if.setting + " is given too: give the values in --what-if alone");
    if (what_if.setting == "ranks" && (args.network.empty() || args.system.empty()))
        fail({"--what-if", -1, -1, "ranks"}, "many ranks need --network and --system");
    return run_what_if(what_if, [&](const std::string& value, const std::string& json_path) {
        PredictArgs one = args;
        one.what_if.clear();
        one.json = json_path;
        one.quiet = true;
        if (what_if.setting == "batch-scale") one.batch_scale = std::stod(value);
        if (what_if.setting == "threads") one.threads = std::stoi(value);
        if (what_if.setting == "device") one.device = value;
        if (what_if.setting == "ranks") {
            one.ranks = std::stoi(value);
            // A network describes a number of NPUs: one file per rank count,
            // named with {ranks} (calibrate --collectives writes network_<N>ranks.yml).
            for (std::string* path : {&one.network, &one.system, &one.memory})
                for (size_t at = path->find("{ranks}"); at != std::string::npos; at = path->find("{ranks}"))
                    path->replace(at, 7, value);
        }
        if (run(one) != 0) fail({args.trace, -1, -1, ""}, "the prediction did not finish (its messages are above)");
    }, args.json);
}

const Registrar registrar{{
    "predict",
    "Predict an iteration's time from its trace alone, with costs measured by calibrate",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<PredictArgs>();
        app.footer("Example: mimic calibrate rec/mlp --out costs.db && mimic predict rec/mlp --costs costs.db --json p.json");
        app.add_option("trace", args->trace, "ET or `mimic record` directory")->required();
        app.add_option("--profile", args->profile, "a GPU trace's Kineto profile: estimate its kernels from a device spec");
        app.add_option("--device", args->device, "GPU spec for --profile: auto (the profile's GPU), a name in data/devices, or a spec FILE");
        app.add_option("--network", args->network, "many ranks: ASTRA-sim network YAML (e.g. from mimic calibrate --collectives)");
        app.add_option("--system", args->system, "many ranks: ASTRA-sim system JSON");
        app.add_option("--memory", args->memory, "many ranks: ASTRA-sim remote-memory JSON");
        app.add_option("--threads", args->threads, "predict at N intra-op threads (measured by calibrate --threads N; default: the recording's)");
        app.add_flag("--unseen", args->unseen,
                     "predict as if this trace's op signatures (at its recorded batch and at --batch-scale) had never been measured (family models only), and report their per-op error");
        app.add_option("--ranks", args->ranks, "run one data-parallel rank's trace on N ranks");
        app.add_option("--ranks-per-host", args->ranks_per_host,
                       "many ranks: K consecutive ranks share a host's cores, their ops slowing while more threads want "
                       "them than it has (default: all ranks when the recordings name one host; 1: a host per rank)")
            ->check(CLI::Range(1, 1 << 20));
        app.add_option("--cores-per-host", args->cores_per_host, "cores of a host that ranks share (default: the recording's usable cores)")
            ->check(above_zero());
        app.add_option("--collectives-in-flight", args->collectives_in_flight,
                       "many ranks: collectives one rank runs at once (default: 2 where they are on CPU tensors, Gloo's worker "
                       "threads; else 1)")
            ->check(CLI::Range(1, 1024));
        app.add_option("--costs", args->costs, "cost database from mimic calibrate (default costs.db)");
        app.add_option("--json", args->json, "also write the prediction as JSON to FILE ('-': JSON alone on stdout)");
        app.add_option("--top", args->top, "critical-path ops to list (default 10)");
        app.add_option("--batch-scale", args->batch_scale,
                       "what if the batch were X times larger: predict the trace rewritten as `mimic scale --batch X` "
                       "writes it (shapes the cost database has not measured use their family's model)")
            ->check(above_zero());
        app.add_option("--timeline", args->timeline,
                       "write the predicted iteration as a Chrome/Perfetto trace (one process per rank); opens beside "
                       "the original's (mimic timeline) and the replay's (mimic replay --timeline)");
        app.add_option("--what-if", args->what_if,
                       "predict at several values of one setting and rank them: batch-scale=0.5,1,2, threads=1,2, "
                       "(with --network and --system) ranks=2,4, where {ranks} in their paths takes each value "
                       "(--network net/network_{ranks}ranks.yml, as calibrate --collectives names them), or (with "
                       "--profile) device=a100_40gb,h100_sxm,h200_sxm");
        return [args] { return args->what_if.empty() ? run(*args) : run_what_if_values(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

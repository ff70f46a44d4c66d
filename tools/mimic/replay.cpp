// mimic replay: runs a trace's operators through libtorch as a benchmark and
// compares the result with the original (see src/replay/).
#ifdef MIMIC_HAVE_TORCH
#include <ATen/Parallel.h>

#include <cstdio>
#include <memory>
#include <regex>

#include "command.h"
#include "io/kineto_reader.h"
#include "io/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "replay/host_gaps.h"
#include "replay/recording_meta.h"
#include "replay/replay_recording.h"
#include "replay/replay_report.h"
#include "replay/replayer.h"
#include "support/error.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct ReplayArgs {
    std::string trace;
    std::string profile, meta, json, include, exclude, iteration, host_gaps = "none", device = "cpu", record_replay;
    int warmup = 1, iters = 5, threads = 0;
    size_t max_ops = 0;
    bool lazy = true;
};

std::regex compile(const std::string& re, const char* flag) {
    try {
        return std::regex(re, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        fail({"", -1, -1, flag}, "bad regular expression '" + re + "': " + e.what());
    }
}

int run(const ReplayArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (inputs.size() != 1) fail({args.trace, -1, -1, ""}, "replay takes one rank's trace; got " + std::to_string(inputs.size()));
    TraceInput input = inputs.front();
    if (!args.profile.empty()) input.profile_path = args.profile;
    if (!args.meta.empty()) input.meta_path = args.meta;
    if (args.device != "cpu") fail({"", -1, -1, "--device"}, "this libtorch build replays on cpu only");

    Trace trace = load_trace(input.trace_path);
    if (!input.profile_path.empty()) link_profile(trace, read_kineto_trace(input.profile_path));
    std::optional<replay::RecordingMeta> meta;
    if (!input.meta_path.empty()) meta = replay::read_recording_meta(input.meta_path);

    int threads = args.threads;
    if (threads <= 0 && meta && meta->intra_op_threads) threads = *meta->intra_op_threads;
    if (threads > 0) at::set_num_threads(threads);

    replay::ReplayOptions options;
    options.selection.iteration = args.iteration;
    options.selection.max_ops = args.max_ops;
    if (!args.include.empty()) options.selection.include = compile(args.include, "--include");
    if (!args.exclude.empty()) options.selection.exclude = compile(args.exclude, "--exclude");
    options.lazy = args.lazy;
    replay::Replayer replayer(trace, options);
    replayer.plan();
    replayer.check();
    if (replayer.replayed_count() == 0) {
        std::string why = replayer.skipped().empty() ? "no top-level operator in the selected range"
                                                     : "first skip: " + replayer.skipped().front().name + ": " +
                                                           replayer.skipped().front().reason;
        fail({input.trace_path, -1, -1, ""}, "nothing to replay (" + why + ")");
    }

    // Host gaps between the ops that run; skipped ops' recorded time falls into the next gap.
    replay::HostGapModel gaps;
    std::vector<double> gap_per_step;
    if (args.host_gaps == "recorded") {
        if (trace.timing.size() != trace.nodes.size())
            std::fprintf(stderr, "mimic: warning: --host-gaps recorded needs a profile; replaying without gaps\n");
        std::vector<NodeIndex> ran;
        for (const replay::Step& s : replayer.steps())
            if (!s.skipped) ran.push_back(s.node);
        const double per_event = meta ? replay::per_event_overhead_us(meta->traced_iteration_ms, meta->untraced_median_ms,
                                                                      replayer.selection().nodes_in_range)
                                       : 0.0;
        gaps = replay::host_gaps(trace, ran, per_event);
        size_t k = 0;
        for (const replay::Step& s : replayer.steps()) gap_per_step.push_back(s.skipped ? 0.0 : gaps.gap_us[k++]);
    }

    for (int i = 0; i < args.warmup; ++i) replayer.run_iteration(gap_per_step);
    std::vector<double> iteration_ms;
    for (int i = 0; i < args.iters; ++i) iteration_ms.push_back(replayer.run_iteration(gap_per_step));
    replayer.time_ops();
    if (!args.record_replay.empty()) {
        std::string path = replay::record_replay(replayer, args.record_replay);
        std::fprintf(stderr, "mimic: replay recorded to %s\n", path.c_str());
    }

    replay::ReplaySettings settings;
    settings.trace_path = input.trace_path;
    settings.device = args.device;
    settings.threads = at::get_num_threads();
    settings.warmup = args.warmup;
    settings.iters = args.iters;
    settings.lazy = args.lazy;
    settings.host_gaps = args.host_gaps;
    replay::ReplayReport report = replay::make_report(trace, replayer, settings, iteration_ms, meta, gaps);
    if (!args.json.empty()) write_output(args.json, replay::report_json(report));
    if (args.json != "-") {
        std::string text = replay::report_text(report);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    return 0;
}

const Registrar registrar{{
    "replay",
    "Replays a trace's operators through libtorch as a benchmark and compares with the original",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<ReplayArgs>();
        app.add_option("trace", a->trace, "ET file or a `mimic record` directory")->required();
        app.add_option("--profile", a->profile, "profiler trace to link (a recording directory brings profile.json)");
        app.add_option("--meta", a->meta, "meta.json of the recording (untraced times, threads)");
        app.add_option("--warmup", a->warmup, "untimed iterations first (default 1)")->check(CLI::Range(0, 100000));
        app.add_option("--iters", a->iters, "timed iterations (default 5)")->check(CLI::Range(1, 100000));
        app.add_option("--json", a->json, "also write the report as JSON to FILE ('-': JSON alone on stdout)");
        app.add_option("--include", a->include, "replay only ops whose name matches this regex");
        app.add_option("--exclude", a->exclude, "leave out ops whose name matches this regex");
        app.add_option("--iteration", a->iteration,
                       "ProfilerStep#N (give N), or the N-th iteration label; 'all' = whole trace (default: the first)");
        app.add_option("--threads", a->threads, "intra-op threads (default: meta.json's, else libtorch's)");
        app.add_flag("--lazy,!--no-lazy", a->lazy,
                     "free each produced tensor after its last use, as PyTorch frees it (default); --no-lazy keeps "
                     "every output until the next iteration overwrites it");
        app.add_option("--host-gaps", a->host_gaps, "recorded: reproduce the host time between ops; none: op time only")
            ->check(CLI::IsMember({"recorded", "none"}));
        app.add_option("--device", a->device, "device to replay on (cpu)");
        app.add_option("--max-ops", a->max_ops, "replay at most this many top-level ops (quick looks)");
        app.add_option("--record-replay", a->record_replay, "record the replay itself as an ET into DIR/et.json");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli
#endif  // MIMIC_HAVE_TORCH

// mimic replay: runs a trace's operators through libtorch as a benchmark and
// compares the result with the original (see src/replay/).
#ifdef MIMIC_HAVE_TORCH
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <regex>

#include "command.h"
#include "io/recording/recording_dir.h"
#include "replay/dist/dist_report.h"
#include "replay/dist/local_launch.h"
#include "replay/replay_session.h"
#include "replay/replay_timeline.h"
#include "support/chrome_trace.h"
#include "support/error.h"
#include "support/launcher_env.h"
#include "support/memory_budget.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct ReplayArgs {
    std::string trace;
    std::string profile, meta, json, include, exclude, iteration, host_gaps = "auto", device = "cpu", record_replay,
                page_faults = "recorded", op_times, timeline, pace, denormals = "flush", channels_last = "auto", max_memory;
    int warmup = 1, iters = 5, op_passes = 5, profiled_sessions = 3, threads = 0, nproc = 0, timeout_s = 60;
    size_t max_ops = 0;
    bool lazy = true;
    bool profiled_pass = true;
};

std::regex compile(const std::string& re, const char* flag) {
    try {
        return std::regex(re, std::regex::ECMAScript);
    } catch (const std::regex_error& e) {
        fail({"", -1, -1, flag}, "bad regular expression '" + re + "': " + e.what());
    }
}

replay::SessionOptions session_options(const ReplayArgs& args, TraceInput input) {
    replay::SessionOptions o;
    if (!args.profile.empty()) input.profile_path = args.profile;
    if (!args.meta.empty()) input.meta_path = args.meta;
    o.input = std::move(input);
    o.iteration = args.iteration;
    if (!args.include.empty()) o.include = compile(args.include, "--include");
    if (!args.exclude.empty()) o.exclude = compile(args.exclude, "--exclude");
    o.max_ops = args.max_ops;
    o.lazy = args.lazy;
    o.profiled_pass = args.profiled_pass;
    o.host_gaps = args.host_gaps;
    o.page_faults = args.page_faults;
    o.denormals = args.denormals;
    o.channels_last = args.channels_last;
    o.device = args.device;
    o.threads = args.threads;
    o.warmup = args.warmup;
    o.iters = args.iters;
    o.op_passes = args.op_passes;
    o.profiled_sessions = args.profiled_sessions;
    o.count_op_faults = !args.op_times.empty();
    o.record_replay = args.record_replay;
    o.pace = args.pace;
    if (!args.max_memory.empty()) o.max_memory_bytes = parse_memory_size(args.max_memory, "--max-memory");
    // Ranks started here share this machine's memory.
    if (args.nproc > 0) o.ranks_on_machine = args.nproc;
    else if (const char* local = std::getenv("LOCAL_WORLD_SIZE")) o.ranks_on_machine = std::max(1, std::atoi(local));
    return o;
}

// A rank's --op-times file: times.json -> times.rank1.json.
std::string rank_file(const std::string& path, int rank) {
    const size_t slash = path.find_last_of('/');
    size_t dot = path.find_last_of('.');
    if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1) dot = path.size();
    return path.substr(0, dot) + ".rank" + std::to_string(rank) + path.substr(dot);
}

void print_report(const ReplayArgs& args, const replay::ReplayReport& report) {
    if (!args.op_times.empty()) write_output(args.op_times, replay::op_times_json(report));
    if (!args.timeline.empty()) write_output(args.timeline, replay::replay_timeline_json(report));
    if (!args.json.empty()) write_output(args.json, replay::report_json(report));
    if (args.json != "-") {
        std::string text = replay::report_text(report);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
}

// One rank of many, started by a launcher (torchrun, mpirun, srun, or ours).
int run_as_rank(const ReplayArgs& args, const LauncherEnv& env) {
    if (args.nproc > 0 && args.nproc != env.world_size)
        fail({"", -1, -1, "--nproc"}, "--nproc " + std::to_string(args.nproc) + " but the launcher (" + env.launcher +
                                          ") started " + std::to_string(env.world_size) + " ranks");
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    TraceInput input;
    if (inputs.size() == size_t(env.world_size)) input = inputs[size_t(env.rank)];
    else if (inputs.size() == 1) input = inputs.front();  // every rank replays the same (symmetric) trace
    else
        fail({args.trace, -1, -1, ""}, "holds " + std::to_string(inputs.size()) + " rank traces but " + env.launcher +
                                           " started " + std::to_string(env.world_size) + " ranks");
    replay::SessionOptions o = session_options(args, input);
    replay::DistOptions d;
    d.rank = env.rank;
    d.world_size = env.world_size;
    d.master_addr = env.master_addr;
    d.master_port = env.master_port;
    d.timeout = std::chrono::seconds(args.timeout_s);
    o.dist = d;
    const bool launched_by_us = std::getenv(replay::kLaunchedByMimic) != nullptr;
    o.gather_reports = !launched_by_us;
    try {
        replay::SessionResult result = replay::run_replay_session(o);
        if (!args.op_times.empty()) write_output(rank_file(args.op_times, env.rank), replay::op_times_json(result.report));
        if (!args.timeline.empty()) write_output(rank_file(args.timeline, env.rank), replay::replay_timeline_json(result.report));
        if (launched_by_us) {
            write_output(args.json, replay::report_json(result.report));
        } else if (env.rank == 0) {
            // Under a cluster launcher rank 0 prints the merged report for all ranks.
            std::vector<replay::RankReport> reports;
            for (size_t r = 0; r < result.rank_reports_json.size(); ++r)
                reports.push_back({int(r), "the rendezvous store", result.rank_reports_json[r]});
            replay::MergedReport merged = replay::merge_rank_reports(reports);
            if (!args.json.empty()) write_output(args.json, merged.json);
            if (args.json != "-") std::fwrite(merged.text.data(), 1, merged.text.size(), stdout);
        } else {
            std::printf("rank %d of %d: replayed; rank 0 prints the report\n", env.rank, env.world_size);
        }
    } catch (const replay::PortBusy& e) {
        std::fprintf(stderr, "mimic: error: %s\n", e.what());
        return launched_by_us ? replay::kExitPortBusy : 1;
    }
    return 0;
}

// `--nproc N`, or a directory of ranks: one process per rank on this machine.
int run_local_ranks(const ReplayArgs& args, int nproc) {
    char self[PATH_MAX];
    const ssize_t n = ::readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0) fail({"/proc/self/exe", -1, -1, ""}, "cannot find this program to start the ranks");
    self[n] = '\0';
    replay::LocalLaunch launch;
    launch.nproc = nproc;
    auto& a = launch.argv;
    a = {self, "replay", args.trace, "--warmup", std::to_string(args.warmup), "--iters", std::to_string(args.iters),
         "--host-gaps", args.host_gaps, "--page-faults", args.page_faults, "--denormals", args.denormals, "--channels-last", args.channels_last, "--device", args.device, "--timeout-s", std::to_string(args.timeout_s),
         "--nproc", std::to_string(nproc), args.lazy ? "--lazy" : "--no-lazy",
         args.profiled_pass ? "--profiled-pass" : "--no-profiled-pass"};
    auto opt = [&](const char* flag, const std::string& v) {
        if (!v.empty()) a.insert(a.end(), {flag, v});
    };
    opt("--profile", args.profile);
    opt("--meta", args.meta);
    opt("--include", args.include);
    opt("--exclude", args.exclude);
    opt("--iteration", args.iteration);
    opt("--op-times", args.op_times);
    opt("--pace", args.pace);
    if (args.threads > 0) opt("--threads", std::to_string(args.threads));
    if (args.max_ops > 0) opt("--max-ops", std::to_string(args.max_ops));
    opt("--op-passes", std::to_string(args.op_passes));
    opt("--profiled-sessions", std::to_string(args.profiled_sessions));
    if (!args.record_replay.empty()) {
        const std::string base = args.record_replay;
        launch.per_rank_args = [base](int r) {
            return std::vector<std::string>{"--record-replay", base + "/rank" + std::to_string(r)};
        };
    }
    opt("--timeline", args.timeline);
    opt("--max-memory", args.max_memory);
    replay::MergedReport merged = replay::launch_local(launch);
    if (!args.timeline.empty()) {
        // Each rank wrote its own; one file with a process per rank opens as one picture.
        std::vector<std::string> parts;
        for (int r = 0; r < nproc; ++r) parts.push_back(rank_file(args.timeline, r));
        merge_chrome_trace_parts(parts, args.timeline);
    }
    if (!args.json.empty()) write_output(args.json, merged.json);
    if (args.json != "-") std::fwrite(merged.text.data(), 1, merged.text.size(), stdout);
    return 0;
}

int run(const ReplayArgs& args) {
    if (std::optional<LauncherEnv> env = read_launcher_env()) return run_as_rank(args, *env);
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (args.nproc > 0 && inputs.size() > 1 && size_t(args.nproc) != inputs.size())
        fail({args.trace, -1, -1, "--nproc"}, "holds " + std::to_string(inputs.size()) + " rank traces; --nproc " +
                                                  std::to_string(args.nproc) + " would need as many (or give one trace, "
                                                  "which every rank replays)");
    if (args.nproc > 0) return run_local_ranks(args, args.nproc);
    if (inputs.size() > 1) return run_local_ranks(args, int(inputs.size()));
    print_report(args, replay::run_replay_session(session_options(args, inputs.front())).report);
    return 0;
}

const Registrar registrar{{
    "replay",
    "Replays a trace's operators through libtorch as a benchmark and compares with the original",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<ReplayArgs>();
        app.add_option("trace", a->trace, "ET file, a `mimic record` directory, or a directory of rank directories")
            ->required();
        app.add_option("--profile", a->profile, "profiler trace to link (a recording directory brings profile.json)");
        app.add_option("--meta", a->meta, "meta.json of the recording (untraced times, threads)");
        app.add_option("--warmup", a->warmup, "untimed iterations first (default 1)")->check(CLI::Range(0, 100000));
        app.add_option("--iters", a->iters, "timed iterations (default 5)")->check(CLI::Range(1, 100000));
        app.add_option("--op-passes", a->op_passes,
                       "per-op timing passes, each op's time its median over them (default 5, as the recorder "
                       "profiles five calls; more passes run after more work than those calls had)")
            ->check(CLI::Range(1, 10000));
        app.add_option("--profiled-sessions", a->profiled_sessions,
                       "sessions of --op-passes passes under torch's profiler, each op's time its median over "
                       "all (default 3, as the recorder profiles three sessions)")
            ->check(CLI::Range(1, 100));
        app.add_option("--json", a->json, "also write the report as JSON to FILE ('-': JSON alone on stdout)");
        app.add_option("--include", a->include, "replay only ops whose name matches this regex");
        app.add_option("--exclude", a->exclude, "leave out ops whose name matches this regex");
        app.add_option("--iteration", a->iteration,
                       "ProfilerStep#N (give N), or the N-th iteration label; 'all' = whole trace (default: the first)");
        app.add_option("--threads", a->threads, "intra-op threads (default: meta.json's, else libtorch's)");
        app.add_flag("--lazy,!--no-lazy", a->lazy,
                     "free each produced tensor after its last use, as PyTorch frees it (default); --no-lazy keeps "
                     "every output until the next iteration overwrites it");
        app.add_flag("--profiled-pass,!--no-profiled-pass", a->profiled_pass,
                     "with a profile of this kind of device: time the ops once more under torch's own profiler, set up "
                     "as the recorder's, and compare with the profile's durations as recorded (default)");
        app.add_option("--host-gaps", a->host_gaps,
                       "host time between ops: auto (the default: untraced, else measured, else instrumented, "
                       "else none, as the inputs allow; measured first for many ranks), "
                       "measured (the gaps of untraced calls the recorder timed, op_gaps.json), "
                       "untraced (the recorded gaps scaled so ops + gaps + the page faults the untraced calls took beyond "
                       "the profiled ones = meta.json's untraced time), "
                       "instrumented (any ET + profile: the profile's time less what the recording's observer and "
                       "profiler cost, measured by replaying the trace's events under them here), "
                       "recorded (the traced iteration's gaps, less the instrumentation meta.json gives), "
                       "none (op time only)")
            ->check(CLI::IsMember({"auto", "measured", "untraced", "instrumented", "recorded", "none"}));
        app.add_option("--page-faults", a->page_faults,
                       "recorded (the default): each op allocates on as many fresh pages as it page-faulted on in "
                       "the original (the recording's op_faults.json), as allocator state shapes CPU op time; "
                       "none: no fault is made on purpose (libtorch's allocator as it is, glibc keeping its heap)")
            ->check(CLI::IsMember({"recorded", "none"}));
        app.add_option("--denormals", a->denormals,
                       "flush (the default): subnormal floats are flushed to zero, as the replay's synthetic values "
                       "produce them where the original's did not (each costs a microcode assist on x86); keep: "
                       "IEEE arithmetic, as PyTorch runs by default")
            ->check(CLI::IsMember({"flush", "keep"}));
        app.add_option("--channels-last", a->channels_last,
                       "auto (the default): where a trace without strides converts tensors to channels-last (a model "
                       "moved to torch.channels_last), the step's 4-D (5-D) tensors from outside it are made "
                       "channels-last; yes: always; no: contiguous, as the trace reads")
            ->check(CLI::IsMember({"auto", "yes", "no"}));
        app.add_option("--device", a->device, "device to replay on (cpu)");
        app.add_option("--max-ops", a->max_ops, "replay at most this many top-level ops (quick looks)");
        app.add_option("--record-replay", a->record_replay, "record the replay itself as an ET into DIR/et.json");
        app.add_option("--op-times", a->op_times,
                       "write every replayed op's time in the per-op pass, its profiled duration and its untraced "
                       "duration (op_gaps.json) as JSON to FILE ('-': stdout); each rank of many writes its own, rank N before the extension (ops.json: ops.rankN.json)");
        app.add_option("--max-memory", a->max_memory,
                       "refuse to start when the trace's estimated peak live set is above this (4G, 512M, bytes; "
                       "default: the memory this machine has available, shared by the ranks started on it)");
        app.add_option("--timeline", a->timeline,
                       "write the replayed iteration as a Chrome/Perfetto trace (ops end to end with the host gaps "
                       "spent before them; one process per rank); open beside `mimic timeline` of the original");
        app.add_option("--pace", a->pace,
                       "run the timed iterations in blocks when a benchmark driver says so, over the FIFOs "
                       "PREFIX.go.rankN and PREFIX.done.rankN, instead of --iters at once (bench/replay_paired.py: "
                       "it alternates the replay with the original so both are timed in the same seconds)");
        app.add_option("--nproc", a->nproc,
                       "replay N ranks on this machine, one process each, over Gloo (default: one per rank directory; "
                       "one trace given is replayed by every rank)")
            ->check(CLI::Range(1, 1024));
        app.add_option("--timeout-s", a->timeout_s,
                       "how long a rank waits for its peers (rendezvous, each collective) before it fails (default 60)")
            ->check(CLI::Range(1, 86400));
        app.footer("Example: mimic replay rec/ --json replay.json   (ranks: mimic replay ddp_rec/ --nproc 2)");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli
#endif  // MIMIC_HAVE_TORCH

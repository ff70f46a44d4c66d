// `mimic record`: runs the Python recorder (python/mimic_record) under Debian's
// torch. Recording has to happen inside the training process, in Python, so
// this command only finds the interpreter and the package, passes the options
// on, streams the recorder's output and returns its exit code.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "command.h"
#include "support/error.h"
#include "support/subprocess.h"

namespace mimic::cli {
namespace {

namespace fs = std::filesystem;

constexpr const char* kDefaultPython = "/usr/bin/python3";  // Debian's, where python3-torch lives
constexpr int kRecorderNoTorch = 3;                         // mimic_record's exit code without torch

struct RecordOptions {
    std::string workload;
    std::string script;
    std::string out;
    bool force = false;
    bool list = false;
    int warmup = 3;
    int iters = 10;
    int profiled_iters = 5;
    int profiled_sessions = 3;
    int nproc = 0;
    int seed = 0;
    int threads = 0;
    double timeout_s = 600;
    std::string label;
    std::string pace;  // "" = exit after recording
};

bool has_package(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "mimic_record" / "__main__.py", ec);
}

// The directory holding the mimic_record package: $MIMIC_PYTHON_DIR, else
// next to the binary (build trees sit in the source tree; installs put it in
// share/mimic/python), else the source tree this binary was built from.
std::string python_package_dir() {
    if (const char* env = std::getenv("MIMIC_PYTHON_DIR"); env && *env) {
        if (!has_package(env))
            fail({env, -1, -1, ""}, "(from MIMIC_PYTHON_DIR) no mimic_record package in this directory");
        return env;
    }
    std::vector<fs::path> candidates;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (!ec) {
        for (fs::path dir = exe.parent_path(); !dir.empty() && dir != dir.root_path(); dir = dir.parent_path()) {
            candidates.push_back(dir / "python");
            candidates.push_back(dir / "share" / "mimic" / "python");
            if (candidates.size() >= 8) break;  // a few levels up is enough
        }
    }
#ifdef MIMIC_SOURCE_DIR
    candidates.push_back(fs::path(MIMIC_SOURCE_DIR) / "python");
#endif
    for (const auto& dir : candidates)
        if (has_package(dir)) return dir.string();
    fail({}, "cannot find the mimic_record Python package (looked next to the mimic binary and in the "
             "source tree); set MIMIC_PYTHON_DIR to the repository's python/ directory");
}

// The page-fault probe library built next to this binary
// (libmimic_fault_probe.so, with libtorch), or $MIMIC_FAULT_PROBE; "" when
// there is none: the recording then has no op_faults.json.
std::string fault_probe_library() {
    if (const char* env = std::getenv("MIMIC_FAULT_PROBE")) return env;
    std::error_code ec;
    const fs::path exe = fs::read_symlink("/proc/self/exe", ec);
    if (ec) return "";
    const fs::path lib = exe.parent_path() / "libmimic_fault_probe.so";
    return fs::is_regular_file(lib, ec) ? lib.string() : "";
}

std::string python_interpreter() {
    const char* env = std::getenv("MIMIC_PYTHON");
    const std::string python = env && *env ? env : kDefaultPython;
    if (!is_executable_file(python))
        fail({python, -1, -1, ""},
             std::string(env && *env ? "(from MIMIC_PYTHON) " : "") +
                 "Python interpreter not found or not executable; install python3-torch "
                 "(apt-get install python3-torch) or set MIMIC_PYTHON");
    return python;
}

std::vector<std::string> recorder_args(const std::string& python, const RecordOptions& o) {
    std::vector<std::string> a = {python, "-m", "mimic_record"};
    if (o.list) {
        a.push_back("--list");
        return a;
    }
    if (!o.workload.empty()) a.insert(a.end(), {"--workload", o.workload});
    if (!o.script.empty()) a.insert(a.end(), {"--script", o.script});
    a.insert(a.end(), {"--out", o.out, "--warmup", std::to_string(o.warmup), "--iters", std::to_string(o.iters),
                       "--profiled-iters", std::to_string(o.profiled_iters),
                       "--profiled-sessions", std::to_string(o.profiled_sessions), "--seed", std::to_string(o.seed), "--threads", std::to_string(o.threads),
                       "--timeout", std::to_string(o.timeout_s)});
    if (o.nproc > 0) a.insert(a.end(), {"--nproc", std::to_string(o.nproc)});
    if (!o.label.empty()) a.insert(a.end(), {"--label", o.label});
    if (o.force) a.push_back("--force");
    if (!o.pace.empty()) a.insert(a.end(), {"--pace", o.pace});
    return a;
}

int run_record(const RecordOptions& o) {
    if (!o.list && o.workload.empty() == o.script.empty())
        fail({}, "record: give exactly one of --workload NAME or --script FILE.py:FUNCTION");
    if (!o.list && o.out.empty()) fail({}, "record: --out DIR is required");
    const std::string python = python_interpreter();
    const std::string package_dir = python_package_dir();
    std::string pythonpath = package_dir;
    if (const char* old = std::getenv("PYTHONPATH"); old && *old) pythonpath += std::string(":") + old;

    std::vector<std::pair<std::string, std::string>> env = {{"PYTHONPATH", pythonpath}, {"PYTHONUNBUFFERED", "1"}};
    if (const std::string probe = fault_probe_library(); !probe.empty()) {
        env.emplace_back("MIMIC_FAULT_PROBE", probe);
#ifdef MIMIC_FAULT_PROBE_TORCH_LIBRARY
        env.emplace_back("MIMIC_FAULT_PROBE_TORCH", MIMIC_FAULT_PROBE_TORCH_LIBRARY);
#endif
    }
    const SubprocessResult r = run_subprocess(recorder_args(python, o), env);
    if (r.term_signal != 0) {
        std::fprintf(stderr, "mimic: error: recorder (%s) killed by signal %d\n", python.c_str(), r.term_signal);
    } else if (r.exit_code == kRecorderNoTorch) {
        std::fprintf(stderr,
                     "mimic: error: %s cannot import torch; install Debian's python3-torch or set MIMIC_PYTHON\n",
                     python.c_str());
    } else if (r.exit_code != 0) {
        std::fprintf(stderr, "mimic: error: recording failed (recorder exit code %d)\n", r.exit_code);
    }
    return r.exit_code;
}

const Registrar registrar{Command{
    "record",
    "record one training iteration of a built-in workload or a script: ET, profile and timings",
    [](CLI::App& app) -> RunFn {
        auto o = std::make_shared<RecordOptions>();
        auto* workload = app.add_option("--workload", o->workload,
                                        "built-in workload: mlp, transformer, dlrm, cnn, ddp_mlp, dlrm_dist");
        auto* script = app.add_option("--script", o->script,
                                      "FILE.py:FUNCTION returning a step callable (or being the step)");
        workload->excludes(script);
        app.add_option("-o,--out", o->out, "output directory (DIR/rank<N>/ per rank with --nproc)");
        app.add_flag("--force", o->force, "overwrite a previous recording in --out");
        app.add_flag("--list", o->list, "list the built-in workloads");
        app.add_option("--warmup", o->warmup, "untimed iterations before timing (default 3)")
            ->check(zero_or_more());
        app.add_option("--iters", o->iters, "timed untraced iterations, the ground truth (default 10)")
            ->check(above_zero());
        app.add_option("--profiled-iters", o->profiled_iters,
                       "iterations under the profiler, the first the ET's; a replay compares each op with its "
                       "median over them (default 5 per session)")
            ->check(CLI::Range(1, 50));
        app.add_option("--profiled-sessions", o->profiled_sessions,
                       "profiler sessions of --profiled-iters iterations each, pooled in profile.json: one "
                       "session's per-op medians move with its state (default 3)")
            ->check(CLI::Range(1, 10));
        app.add_option("--nproc", o->nproc, "ranks to launch locally over Gloo (distributed workloads)")
            ->check(zero_or_more());
        app.add_option("--seed", o->seed, "seed of the built-in workloads (default 0)");
        app.add_option("--threads", o->threads, "torch intra-op threads (default: torch's)")
            ->check(zero_or_more());
        app.add_option("--label", o->label, "label of the traced iteration (default ProfilerStep#<n>)");
        app.add_option("--pace", o->pace,
                       "after recording, stay and time more untraced iterations in blocks when a benchmark driver "
                       "says so, over the FIFOs PREFIX.go.rankN / PREFIX.done.rankN (bench/replay_paired.py)");
        app.add_option("--timeout", o->timeout_s, "seconds before a distributed recording is stopped (default 600)")
            ->check(above_zero());
        app.footer("Example: mimic record --workload cnn --out rec/ && mimic replay rec/   (your own step: --script train.py:make_step)");
        return [o] { return run_record(*o); };
    }}};

}  // namespace
}  // namespace mimic::cli

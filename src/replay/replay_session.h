// One process's whole replay: load and link the trace, plan, check, run the
// warmup and timed iterations and the per-op pass, and make the report. With
// DistOptions it is one rank of a multi-rank replay: it joins the process
// groups, checks that every rank is about to make the same calls, and
// replays the collectives between the ops as recorded.
#pragma once

#include <optional>
#include <regex>
#include <string>

#include "io/recording/recording_dir.h"
#include "replay/dist/process_groups.h"
#include "replay/replay_report.h"
#include "support/error.h"

namespace mimic::replay {

struct SessionOptions {
    TraceInput input;
    std::string iteration;
    std::optional<std::regex> include, exclude;
    size_t max_ops = 0;
    bool lazy = true;
    std::string host_gaps = "auto";  // see tools/mimic/replay.cpp --host-gaps
    std::string page_faults = "recorded";  // or "none": see replay/timing/fresh_page_allocator.h
    std::string denormals = "flush";  // or "keep": subnormal floats flushed to zero (see replay_session.cpp)
    std::string channels_last = "auto";  // "yes" / "no": the step's 4-D inputs channels-last (analysis/channels_last.h)
    std::string device = "cpu";
    int threads = 0;
    int warmup = 1;
    int iters = 5;
    // Per-op timing passes, each op's time its median over them. Five, as the
    // recorder profiles five calls right after its untraced ones: passes
    // beyond them run after more work than the original's calls had, faster
    // (fresh A/B: 25 passes against 5 were further from the profile on 18 of
    // 24 recordings, 21.2% against 18.1%).
    int op_passes = 5;
    // With a linked profile recorded on the replay's kind of device (times
    // that compare): the per-op passes once more under torch's own
    // profiler, compared with the profile's durations as recorded
    // (torch_profiler_pass.h).
    bool profiled_pass = true;
    // Profiler sessions of that pass, `op_passes` passes each, each op's time
    // its median over all: three, as the recorder profiles three sessions
    // (one session's per-op medians move with its state).
    int profiled_sessions = 3;
    // Refuse to start when the trace's peak live set is above this; 0: the
    // memory this machine has available, shared by the ranks started on it.
    uint64_t max_memory_bytes = 0;
    int ranks_on_machine = 1;
    // One more iteration counting each op's page faults (--op-times lists them).
    bool count_op_faults = false;
    std::string record_replay;  // "" = do not record
    // Not "": the timed iterations run in blocks when a benchmark says so,
    // over the FIFOs PREFIX.go.rankN / PREFIX.done.rankN (support/paced_runs.h).
    std::string pace;
    std::optional<DistOptions> dist;
    // A rank started by a cluster launcher: every rank hands its report to
    // rank 0 through the rendezvous store, and rank 0 returns them all.
    bool gather_reports = false;
};

struct SessionResult {
    ReplayReport report;
    std::vector<std::string> rank_reports_json;  // rank 0 with gather_reports: every rank's, in rank order
};

// Throws mimic::Error when the trace cannot be replayed at all, a rank
// cannot join, the ranks' calls differ, or a collective fails.
SessionResult run_replay_session(const SessionOptions& options);

// Thrown when rank 0 cannot serve the rendezvous on its port (taken by
// another program): a local launcher picks another port and starts again.
struct PortBusy : mimic::Error {
    using mimic::Error::Error;
};

}  // namespace mimic::replay

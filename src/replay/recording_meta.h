// The parts of a recording's meta.json (written by mimic's recorder) that a
// replay needs: the untraced iteration time it is judged against, the traced
// time (their difference is what instrumentation cost), and the machine the
// original ran on (its threads are the replay's by default).
#pragma once

#include <optional>
#include <string>

#include "support/machine_info.h"

namespace mimic::replay {

struct RecordingMeta {
    std::optional<double> untraced_median_ms;
    std::optional<double> traced_iteration_ms;
    std::optional<double> probe_cost_per_op_us;    // the page-fault probe's, inside each top-level op's interval
    std::optional<double> profiler_event_cost_us;  // measured by the recorder; preferred to the spread estimate
    std::optional<double> untraced_cpu_share;      // the step thread's CPU time / wall time, untraced
    std::optional<double> untraced_page_faults_per_iter;  // minor faults of the whole process
    std::optional<int> intra_op_threads;  // the machine's
    std::optional<int> inter_op_threads;
    std::optional<MachineInfo> machine;  // meta.json's `machine` (schema 1: its top-level keys)
    std::string iteration_label;
    std::string workload;
};

// Throws mimic::Error naming the file and field when meta.json is malformed.
RecordingMeta read_recording_meta(const std::string& path);

}  // namespace mimic::replay

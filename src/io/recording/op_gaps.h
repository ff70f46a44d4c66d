// op_gaps.json, which `mimic record` writes next to meta.json: the host time
// before each top-level operator (Python, autograd: from the previous
// top-level op's end, or the call's start) and the op's duration, measured in
// untraced calls of the step by the probe's timing mode, medians over the
// calls, with the CPU time of each gap where the recorder read the thread's
// CPU clock; and the tail after the last op (python/mimic_record/fault_probe.py).
// `mimic replay --host-gaps measured` spends these gaps between its ops.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

namespace mimic {

struct OpGap {
    double gap_before_us = 0;
    double duration_us = 0;
    // The thread's CPU time in the gap (host work; the rest it waited or was
    // descheduled), or < 0 when the file does not give it.
    double gap_cpu_us = -1;
    // The op's page faults in the untraced calls (since the previous op
    // ended, as op_faults.json counts the profiled call's), or < 0.
    int64_t faults = -1;
};

struct OpGaps {
    std::unordered_map<uint64_t, OpGap> by_node;  // ET node id ->
    double tail_us = 0;
    double tail_cpu_us = -1;  // < 0: not given
    // What the probe's timing mode added per operator event: a duration
    // carries it once for each op nested in it (0 when the file does not say).
    double probe_cost_per_event_us = 0;

    bool has_faults() const;  // every op gives its page faults
};

// Throws mimic::Error naming the file and field when it is not such a file.
OpGaps read_op_gaps(const std::string& path);
// The op_gaps.json in the directory of `meta_path`, if there is one.
std::optional<OpGaps> read_op_gaps_beside(const std::string& meta_path);

}  // namespace mimic

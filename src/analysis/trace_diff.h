// Compares two traces operator by operator: the top-level operators of one
// iteration of each (ProfilerStep#N label to the next, else the whole trace)
// are aligned in order by name, and the report says how many matched, which
// matched ops were called with other input shapes, which ops only one side
// ran, and per op name the counts and (when linked) the times of each side.
// The check that a replay ran what the original ran.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "support/machine_info.h"
#include "trace/trace.h"

namespace mimic::analysis {

struct DiffOptions {
    std::string iteration;  // "" first ProfilerStep label (else whole trace), "all", or N as in replay
};

struct NameDiff {
    std::string name;
    uint64_t count_a = 0;
    uint64_t count_b = 0;
    double time_a_us = 0;  // sum of linked durations; 0 when untimed
    double time_b_us = 0;
};

struct ShapeMismatch {
    std::string name;
    uint64_t node_id_a = 0;
    uint64_t node_id_b = 0;
    std::string shapes_a;
    std::string shapes_b;
};

struct TraceDiff {
    std::string label_a, label_b;   // the iteration compared on each side ("" = whole trace)
    uint64_t ops_a = 0, ops_b = 0;  // top-level operators compared
    uint64_t matched = 0;           // aligned pairs with the same name
    uint64_t same_shapes = 0;       // of those, called with the same input shapes
    std::vector<ShapeMismatch> shape_mismatches;  // the first few
    uint64_t shape_mismatch_count = 0;
    std::vector<NameDiff> names;    // every name seen, most frequent first
    bool aligned_by_count_only = false;  // sequences too long to align in order
    bool identical() const { return matched == ops_a && matched == ops_b && shape_mismatch_count == 0; }
};

// Throws mimic::Error when a requested iteration is not in a trace.
TraceDiff diff_traces(const Trace& a, const Trace& b, const DiffOptions& options = {});

// `machines`, when given (recordings with meta.json): both machines and the
// fields they differ in, under "machines" and as warning lines.
std::string diff_to_json(const TraceDiff& d, const std::string& path_a, const std::string& path_b,
                         const MachinePair* machines = nullptr);
std::string diff_to_text(const TraceDiff& d, const std::string& path_a, const std::string& path_b, size_t max_rows = 20,
                         const MachinePair* machines = nullptr);

}  // namespace mimic::analysis

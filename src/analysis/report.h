// The analysis of one trace, or of several ranks merged: counts, categories
// with time, iterations, busiest operators, collectives per process group and
// rank, and how much a replay could run. Pure data; report_json.h and
// report_table.h print it.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "analysis/categories.h"
#include "analysis/collectives.h"
#include "analysis/iterations.h"
#include "analysis/memory_timeline.h"
#include "analysis/replayability.h"
#include "trace/trace.h"

namespace mimic::analysis {

struct CategoryStats {
    uint64_t count = 0;      // every node of the category
    uint64_t top_level = 0;  // of those, the ones with no host operator above them
    // Time charged to the category: each node's exclusive time goes to the
    // category of its top-level operator (its own when it has none), so the
    // categories add up to the trace's total without counting nesting twice.
    double self_us = 0;
};

struct OperatorStats {
    std::string name;
    OpCategory category = OpCategory::Label;
    uint64_t count = 0;
    double self_us = 0;  // sum of the exclusive times of its calls
};

// One input of the report (one rank, usually).
struct InputSummary {
    std::string source;
    std::string format;  // "pytorch_et", "chakra"
    std::string schema_version;
    int64_t rank = -1;
    int64_t world_size = -1;
    std::string rank_source;  // Trace::rank_source
    std::string profile_pairing;  // how a directory's profile was paired with this trace ("" when given or none)
    uint64_t nodes = 0;
    uint64_t operators = 0;
    std::string time_source;  // "none", "profile", "chakra"
    double self_us = 0;
    size_t warnings = 0;
};

// Counts from linking a profile to the trace, as the linker reports them
// (name -> count); the analysis carries them to the output and adds them up
// over ranks, so only counts belong here, never ratios.
struct LinkSummary {
    bool present = false;
    std::vector<std::pair<std::string, double>> stats;
};

struct Report {
    std::vector<InputSummary> inputs;
    std::string schema_version;  // the inputs' version(s), comma separated when they differ
    uint64_t nodes = 0;
    uint64_t operators = 0;            // host operators: nodes in an operator category, not on a device
    uint64_t top_level_operators = 0;
    uint64_t operators_with_schema = 0;
    std::string time_source = "none";  // "none", "profile", "chakra" or "mixed"
    bool timed = false;
    double total_self_us = 0;
    std::array<CategoryStats, kCategoryCount> categories{};
    std::string iteration_method = "none";
    std::string iteration_marker;
    std::vector<Iteration> iterations;
    std::vector<OperatorStats> operators_by_time;  // all operators, busiest first (by count when untimed)
    std::vector<CollectiveStats> collectives;
    std::vector<ProcessGroup> process_groups;
    ReplayCoverage replay;
    std::vector<MemoryTimeline> memory;  // per rank and device, estimated from tensor lives
    uint64_t device_events = 0;  // kernels, memcpys, memsets linked from a profile
    double device_busy_us = 0;
    LinkSummary link;

    const CategoryStats& category(OpCategory c) const { return categories[static_cast<size_t>(c)]; }
};

struct AnalysisOptions {
    SchemaOracle oracle;  // empty: replayability only checks for a schema
};

Report analyze(const Trace& trace, const AnalysisOptions& options = {});

// One report over several ranks: counts and times add up, operators merge by
// name, collectives and iterations keep their rank.
Report merge_reports(std::vector<Report> reports);

}  // namespace mimic::analysis

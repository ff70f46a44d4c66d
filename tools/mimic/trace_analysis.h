// What `analyze` and `report` both do with their inputs: read each trace (one
// in memory at a time), apply a recording's meta.json, link its profile,
// analyse, and merge the ranks into one report.
#pragma once

#include <vector>

#include "analysis/report.h"
#include "io/recording/recording_dir.h"

namespace mimic::cli {

analysis::Report analyze_inputs(const std::vector<TraceInput>& inputs, const analysis::AnalysisOptions& options);

// The CPU-kernel oracle of the torch-free binary: the table the build wrote
// from libtorch (mimic-cpu-ops.tsv); empty when the table is absent.
analysis::SchemaOracle op_table_oracle();

}  // namespace mimic::cli

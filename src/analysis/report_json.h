// The analysis report as JSON for scripts. Keys are stable: schema_version,
// nodes, operators, categories (each count, top_level, self_us), iterations,
// collectives, top_operators, replayable (ops, total, share), link, and more.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/report.h"

namespace mimic::analysis {

std::string report_to_json(const Report& report, size_t top_n = 20);

}  // namespace mimic::analysis

// The analysis report as aligned text tables for a terminal.
#pragma once

#include <cstddef>
#include <string>

#include "analysis/report.h"

namespace mimic::analysis {

std::string report_to_table(const Report& report, size_t top_n = 20);

}  // namespace mimic::analysis

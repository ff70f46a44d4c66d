// `mimic report`: one self-contained HTML page (inline CSS and SVG, no script,
// no network) about a trace and what mimic did with it. Every section is
// always there; a section without data says why and which command gives it,
// so a reader never wonders whether something was forgotten.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "analysis/report.h"
#include "report/result_files.h"

namespace mimic::report {

struct ReportData {
    std::vector<std::string> inputs;  // what the user named
    analysis::Report analysis;
    std::optional<ReplayResult> replay;
    std::optional<PredictResult> predict;
    std::optional<SimulateResult> simulate;
    std::string generated_by;  // "mimic report" and the command line
};

// The section ids, in page order: the contract with tests and with readers
// who link to a section.
const std::vector<std::string>& section_ids();

std::string render_report(const ReportData& data);

}  // namespace mimic::report

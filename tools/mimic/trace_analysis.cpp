#include "trace_analysis.h"

#include <cstdio>
#include <memory>

#include "io/kineto/kineto_reader.h"
#include "io/op_kernel_table.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "link/link_report.h"

namespace mimic::cli {
namespace {

analysis::LinkSummary summarize_link(const LinkStats& s) {
    analysis::LinkSummary out;
    out.present = true;
    out.stats = link_stats_fields(s);
    return out;
}

void print_warnings(const Trace& trace) {
    constexpr size_t kShown = 5;
    for (size_t i = 0; i < trace.warnings.size() && i < kShown; ++i)
        std::fprintf(stderr, "mimic: warning: %s: %s\n", trace.source_path.c_str(), trace.warnings[i].message.c_str());
    if (trace.warnings.size() > kShown)
        std::fprintf(stderr, "mimic: warning: %s: %zu more warnings\n", trace.source_path.c_str(),
                     trace.warnings.size() - kShown);
}

analysis::Report analyze_input(const TraceInput& input, const analysis::AnalysisOptions& options) {
    auto [trace, profile] = load_trace_and_profile(input.trace_path, input.profile_path);
    if (!input.meta_path.empty()) apply_recording_meta(trace, input.meta_path);
    analysis::LinkSummary link;
    if (profile) link = summarize_link(link_profile(trace, *profile));
    print_warnings(trace);
    analysis::Report report = analysis::analyze(trace, options);
    report.link = std::move(link);
    if (input.is_profile_alone())
        for (analysis::InputSummary& in : report.inputs) in.profile_pairing = "itself: a profile alone, with no execution trace (its ops have no inputs)";
    else if (!input.pairing.empty())
        for (analysis::InputSummary& in : report.inputs) in.profile_pairing = input.profile_path + " by " + input.pairing;
    return report;
}

}  // namespace

analysis::Report analyze_inputs(const std::vector<TraceInput>& inputs, const analysis::AnalysisOptions& options) {
    std::vector<analysis::Report> reports;
    reports.reserve(inputs.size());
    // One trace in memory at a time: each is analysed and dropped before the next is read.
    for (const TraceInput& input : inputs) reports.push_back(analyze_input(input, options));
    return analysis::merge_reports(std::move(reports));
}

analysis::SchemaOracle op_table_oracle() {
    auto table = std::make_shared<OpKernelTable>(OpKernelTable::load_default());
    if (table->empty()) return {};
    return [table](std::string_view schema) { return table->lookup(schema) == OpKernel::CpuKernel; };
}

}  // namespace mimic::cli

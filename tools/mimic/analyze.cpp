// mimic analyze TRACE... [--profile P] [--json FILE|-] [--top N]
// Reads one trace per rank (files, a `mimic record` directory, or a directory
// of ranks), links a profile where there is one, and prints the analysis.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "analysis/report.h"
#include "analysis/report_json.h"
#include "analysis/report_table.h"
#include "command.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "link/link_report.h"
#include "support/error.h"
#include "support/output.h"
#include "io/op_kernel_table.h"
#ifdef MIMIC_HAVE_TORCH
#include "replay/exec/op_registry.h"
#endif

namespace mimic::cli {
namespace {

struct AnalyzeArgs {
    std::vector<std::string> traces;
    std::string profile;
    std::string json;
    size_t top = 20;
};

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
    Trace trace = load_trace(input.trace_path);
    if (!input.meta_path.empty()) apply_recording_meta(trace, input.meta_path);
    analysis::LinkSummary link;
    if (!input.profile_path.empty()) {
        const ProfileTrace profile = read_kineto_trace(input.profile_path);
        link = summarize_link(link_profile(trace, profile));
    }
    print_warnings(trace);
    analysis::Report report = analysis::analyze(trace, options);
    report.link = std::move(link);
    if (!input.pairing.empty())
        for (analysis::InputSummary& in : report.inputs) in.profile_pairing = input.profile_path + " by " + input.pairing;
    return report;
}

int run(const AnalyzeArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs(args.traces);
    if (!args.profile.empty()) {
        if (inputs.size() != 1)
            fail({args.profile, -1, -1, ""}, "--profile goes with exactly one trace; " + std::to_string(inputs.size()) +
                                                 " were given (a recording directory brings its own profile.json)");
        inputs.front().profile_path = args.profile;
    }

    analysis::AnalysisOptions options;
#ifdef MIMIC_HAVE_TORCH
    replay::OpRegistry registry;
    options.oracle = [&registry](std::string_view schema) { return registry.has_cpu_kernel(schema); };
#else
    // The torch-free binary asks the table the build wrote from libtorch
    // (mimic-cpu-ops.tsv), so it need not load libtorch (~1 s at start-up).
    const OpKernelTable op_table = OpKernelTable::load_default();
    if (!op_table.empty())
        options.oracle = [&op_table](std::string_view schema) {
            return op_table.lookup(schema) == OpKernel::CpuKernel;
        };
#endif
    std::vector<analysis::Report> reports;
    reports.reserve(inputs.size());
    // One trace in memory at a time: each is analysed and dropped before the next is read.
    for (const TraceInput& input : inputs) reports.push_back(analyze_input(input, options));
    const analysis::Report merged = analysis::merge_reports(std::move(reports));

    if (!args.json.empty()) write_output(args.json, analysis::report_to_json(merged, args.top));
    if (args.json != "-") {
        const std::string table = analysis::report_to_table(merged, args.top);
        std::fwrite(table.data(), 1, table.size(), stdout);
    }
    return 0;
}

const Registrar registrar{{
    "analyze",
    "Counts, categories, iterations, top operators, collectives and replay coverage of traces",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<AnalyzeArgs>();
        app.add_option("traces", args->traces,
                       "ET (.json/.json.gz), Chakra .et, a `mimic record` directory, or a directory of ranks")
            ->required();
        app.add_option("--profile", args->profile, "profiler (Kineto) trace to link to the one trace given");
        app.add_option("--json", args->json, "also write the report as JSON to FILE ('-': JSON alone on stdout)");
        app.add_option("--top", args->top, "how many operators to list")->check(CLI::Range(1, 100000));
        app.footer("Example: mimic analyze rec/ --json analysis.json   (or: mimic analyze trace_et.json.gz --profile kineto.json)");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

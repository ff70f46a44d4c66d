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
#include "profile_option.h"
#include "original_timeline.h"
#include "trace_analysis.h"
#include "io/recording/recording_dir.h"
#include "support/error.h"
#include "support/output.h"
#ifdef MIMIC_HAVE_TORCH
#include "replay/exec/op_registry.h"
#endif

namespace mimic::cli {
namespace {

struct AnalyzeArgs {
    std::vector<std::string> traces;
    std::string profile;
    std::string json;
    std::string timeline;
    size_t top = 20;
};

int run(const AnalyzeArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs(args.traces);
    apply_profile_option(inputs, args.profile);

    analysis::AnalysisOptions options;
#ifdef MIMIC_HAVE_TORCH
    replay::OpRegistry registry;
    options.oracle = [&registry](std::string_view schema) { return registry.has_cpu_kernel(schema); };
#else
    options.oracle = op_table_oracle();
#endif
    const analysis::Report merged = analyze_inputs(inputs, options);
    if (!args.timeline.empty()) write_original_timeline(inputs, args.timeline);

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
        app.add_option("--timeline", args->timeline,
                       "also write the traces' timeline as a Chrome/Perfetto trace (as mimic timeline does; one process per rank)");
        app.add_option("--top", args->top, "how many operators to list")->check(CLI::Range(1, 100000));
        app.footer("Example: mimic analyze rec/ --json analysis.json   (or: mimic analyze trace_et.json.gz --profile kineto.json)");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

// mimic report INPUT... -o report.html [--profile P] [--replay R.json]
//                       [--predict P.json] [--simulate S.json]
// One self-contained HTML page about a trace (or a directory of ranks) and,
// where given, its replay, prediction and simulation results.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "command.h"
#include "profile_option.h"
#include "io/recording/recording_dir.h"
#include "report/report_page.h"
#include "support/error.h"
#include "support/output.h"
#include "trace_analysis.h"

namespace mimic::cli {
namespace {

namespace fs = std::filesystem;

struct ReportArgs {
    std::vector<std::string> traces;
    std::string profile;
    std::string out;
    std::string replay, predict, simulate;
};

std::string canonical(const std::string& path) {
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(path, ec);
    return ec ? path : p.string();
}

// Whether a result file names one of the report's traces: the same file, its
// recording directory, or what the user typed.
bool names_an_input(const std::string& result_trace, const std::vector<TraceInput>& inputs, const std::vector<std::string>& given) {
    if (result_trace.empty()) return false;
    const std::string t = canonical(result_trace);
    for (const TraceInput& in : inputs)
        if (t == canonical(in.trace_path) || t == canonical(fs::path(in.trace_path).parent_path().string())) return true;
    for (const std::string& g : given)
        if (t == canonical(g)) return true;
    return false;
}

// A result made from another trace is not drawn against this one: its
// operator names must all be in this trace when its path differs.
std::string foreign_ops(const std::vector<std::string>& names, const analysis::Report& a) {
    std::set<std::string> here;
    for (const analysis::OperatorStats& op : a.operators_by_time) here.insert(op.name);
    std::string missing;
    size_t n = 0;
    for (const std::string& name : names)
        if (!name.empty() && !here.count(name) && n++ < 3) missing += (missing.empty() ? "" : ", ") + name;
    return missing;
}

template <typename Result>
void check_origin(Result& r, const std::vector<std::string>& op_names, const std::vector<TraceInput>& inputs,
                  const std::vector<std::string>& given, const analysis::Report& a, const char* what) {
    if (!r.problem.empty() || names_an_input(r.trace, inputs, given)) return;
    const std::string missing = foreign_ops(op_names, a);
    if (!missing.empty())
        r.problem = r.path + " is the " + what + " of " + (r.trace.empty() ? std::string("another trace") : r.trace) +
                    ", not of this input: its operators " + missing + " are not in this trace";
}

int run(const ReportArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs(args.traces);
    apply_profile_option(inputs, args.profile);
    analysis::AnalysisOptions options;
    options.oracle = op_table_oracle();

    report::ReportData data;
    data.inputs = args.traces;
    data.analysis = analyze_inputs(inputs, options);
    data.generated_by = "Written by mimic report from " + std::to_string(inputs.size()) + " trace(s).";
    if (!args.replay.empty()) {
        report::ReplayResult r = report::read_replay_result(args.replay);
        std::vector<std::string> names;
        for (const report::ReplayOp& op : r.per_op) names.push_back(op.name);
        check_origin(r, names, inputs, args.traces, data.analysis, "replay");
        data.replay = std::move(r);
    }
    if (!args.predict.empty()) {
        report::PredictResult p = report::read_predict_result(args.predict);
        std::vector<std::string> names;
        for (const report::CriticalOp& op : p.critical_path) names.push_back(op.name);
        check_origin(p, names, inputs, args.traces, data.analysis, "prediction");
        data.predict = std::move(p);
    }
    if (!args.simulate.empty()) data.simulate = report::read_simulate_result(args.simulate);

    write_output(args.out, report::render_report(data));
    // Say on the terminal what the page could not show, so a script notices.
    for (const std::string* problem : {data.replay ? &data.replay->problem : nullptr,
                                       data.predict ? &data.predict->problem : nullptr,
                                       data.simulate ? &data.simulate->problem : nullptr})
        if (problem && !problem->empty()) std::fprintf(stderr, "mimic: warning: %s (the rest of the report is written)\n", problem->c_str());
    std::printf("report: %s (%zu trace(s), %zu sections)\n", args.out.c_str(), inputs.size(), report::section_ids().size());
    return 0;
}

const Registrar registrar{{
    "report",
    "Write one self-contained HTML report of a trace and its replay, prediction and simulation results",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<ReportArgs>();
        app.add_option("traces", args->traces,
                       "ET, Chakra .et, a directory holding an ET and its profile, a `mimic record` directory, or a directory of ranks")
            ->required();
        app.add_option("-o,--out", args->out, "the HTML file to write")->required();
        app.add_option("--profile", args->profile, "profiler (Kineto) trace to link to the one trace given");
        app.add_option("--replay", args->replay, "a `mimic replay --json` result of this trace");
        app.add_option("--predict", args->predict, "a `mimic predict --json` result of this trace");
        app.add_option("--simulate", args->simulate, "a `mimic simulate --json` result (one row per rank)");
        app.footer("Example: mimic report rec/ --replay replay.json --predict predict.json -o report.html");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

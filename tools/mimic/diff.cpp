// mimic diff: compares two traces operator by operator (see analysis/trace_diff.h).
#include <cstdio>
#include <memory>

#include "analysis/trace_diff.h"
#include "command.h"
#include "io/kineto_reader.h"
#include "io/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/error.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct DiffArgs {
    std::string a, b, json, iteration;
};

Trace load_one(const std::string& path) {
    std::vector<TraceInput> inputs = expand_trace_inputs({path});
    if (inputs.size() != 1) fail({path, -1, -1, ""}, "diff takes one rank's trace per side; got " + std::to_string(inputs.size()));
    Trace t = load_trace(inputs.front().trace_path);
    if (!inputs.front().profile_path.empty()) link_profile(t, read_kineto_trace(inputs.front().profile_path));
    return t;
}

int run(const DiffArgs& args) {
    const Trace a = load_one(args.a);
    const Trace b = load_one(args.b);
    analysis::DiffOptions options;
    options.iteration = args.iteration;
    const analysis::TraceDiff d = analysis::diff_traces(a, b, options);
    if (!args.json.empty()) {
        write_output(args.json, analysis::diff_to_json(d, args.a, args.b));
    }
    if (args.json != "-") {
        const std::string text = analysis::diff_to_text(d, args.a, args.b);
        std::fwrite(text.data(), 1, text.size(), stdout);
    }
    return 0;
}

const Registrar registrar{{
    "diff",
    "Compares two traces operator by operator: names, input shapes, counts, times",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<DiffArgs>();
        app.add_option("a", a->a, "first trace (ET file or recording directory)")->required();
        app.add_option("b", a->b, "second trace")->required();
        app.add_option("--json", a->json, "also write the comparison as JSON to FILE ('-': JSON alone on stdout)");
        app.add_option("--iteration", a->iteration, "ProfilerStep#N to compare (give N), 'all' = whole traces");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli

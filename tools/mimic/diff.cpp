// mimic diff: compares two traces operator by operator (see analysis/trace_diff.h),
// and for recordings the machines they were recorded on (support/machine_info.h).
#include <cstdio>
#include <memory>

#include "analysis/trace_diff.h"
#include "command.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/error.h"
#include "support/machine_info.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct DiffArgs {
    std::string a, b, json, iteration;
};

struct Side {
    Trace trace;
    std::optional<MachineInfo> machine;  // meta.json's, for a recording directory
    bool has_meta = false;
};

Side load_one(const std::string& path) {
    std::vector<TraceInput> inputs = expand_trace_inputs({path});
    if (inputs.size() != 1) fail({path, -1, -1, ""}, "diff takes one rank's trace per side; got " + std::to_string(inputs.size()));
    Side s;
    auto [trace, profile] = load_trace_and_profile(inputs.front().trace_path, inputs.front().profile_path);
    s.trace = std::move(trace);
    if (profile) link_profile(s.trace, *profile);
    s.has_meta = !inputs.front().meta_path.empty();
    s.machine = read_machine_from_meta(inputs.front().meta_path);
    return s;
}

int run(const DiffArgs& args) {
    const Side a = load_one(args.a);
    const Side b = load_one(args.b);
    analysis::DiffOptions options;
    options.iteration = args.iteration;
    const analysis::TraceDiff d = analysis::diff_traces(a.trace, b.trace, options);
    // Both machines when either side is a recording with meta.json.
    const MachinePair machines{a.machine, b.machine, "A", "B"};
    const MachinePair* shown = a.has_meta || b.has_meta ? &machines : nullptr;
    if (!args.json.empty()) {
        write_output(args.json, analysis::diff_to_json(d, args.a, args.b, shown));
    }
    if (args.json != "-") {
        const std::string text = analysis::diff_to_text(d, args.a, args.b, 20, shown);
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
        app.footer("Example: mimic diff rec/ replayed/   (an original against `mimic replay rec/ --record-replay replayed/`)");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli

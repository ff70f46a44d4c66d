// mimic link TRACE --profile P [--json [FILE]]
// Links a profiler trace to an execution trace and reports how much matched:
// nodes linked (by record-function id, in order), device work attached, and
// which profiler thread each ET thread was paired with.
#include <cstdio>
#include <fstream>
#include <memory>
#include <string>

#include "command.h"
#include "io/kineto_reader.h"
#include "io/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "link/link_report.h"
#include "support/error.h"
#include "support/json_writer.h"

namespace mimic::cli {
namespace {

struct LinkArgs {
    std::string trace;
    std::string profile;
    std::string json;  // "" no JSON, "-" stdout, else a file
    bool by_rf_id = true;
    bool in_order = true;
};

int run(const LinkArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (inputs.size() != 1)
        fail({args.trace, -1, -1, ""}, "link takes one trace; " + std::to_string(inputs.size()) + " were found there");
    TraceInput input = inputs.front();
    if (!args.profile.empty()) input.profile_path = args.profile;
    if (input.profile_path.empty())
        fail({args.trace, -1, -1, ""}, "no profile to link: pass --profile (a `mimic record` directory brings its own)");

    Trace trace = load_trace(input.trace_path);
    const ProfileTrace profile = read_kineto_trace(input.profile_path);
    for (const std::string& w : profile.warnings) std::fprintf(stderr, "mimic: warning: %s\n", w.c_str());
    LinkOptions options;
    options.by_record_function_id = args.by_rf_id;
    options.in_order = args.in_order;
    const LinkStats stats = link_profile(trace, profile, options);

    if (!args.json.empty()) {
        JsonWriter out;
        out.begin_object();
        out.field("trace", input.trace_path);
        out.field("profile", input.profile_path);
        out.key("link");
        write_link_stats(out, stats);
        out.end_object();
        std::string text = out.str() + "\n";
        if (args.json == "-") {
            std::fwrite(text.data(), 1, text.size(), stdout);
            return 0;
        }
        std::ofstream file(args.json, std::ios::binary | std::ios::trunc);
        if (file) file.write(text.data(), static_cast<std::streamsize>(text.size()));
        if (!file) fail({args.json, -1, -1, ""}, "cannot write the JSON report");
    }
    std::string table = "trace   " + input.trace_path + "\nprofile " + input.profile_path + "\n" + format_link_stats(stats);
    std::fwrite(table.data(), 1, table.size(), stdout);
    return 0;
}

const Registrar registrar{{
    "link",
    "Link a profiler (Kineto) trace to an execution trace and report what matched",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<LinkArgs>();
        app.add_option("trace", args->trace, "ET (.json/.json.gz), Chakra .et, or a `mimic record` directory")
            ->required();
        app.add_option("--profile", args->profile, "profiler trace (Chrome trace JSON, plain or gzip)");
        app.add_option("--json", args->json, "write the report as JSON to FILE, or alone on stdout when no FILE")
            ->expected(0, 1)
            ->default_str("-");
        app.add_flag("!--no-rf-id", args->by_rf_id, "do not match by record-function id");
        app.add_flag("!--no-in-order", args->in_order, "do not match in order by name");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

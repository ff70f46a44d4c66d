// mimic link TRACE [--profile P] [--json [FILE]]
// Links a profiler trace to an execution trace and reports how much matched:
// nodes linked (by record-function id, in order), device work attached, and
// which profiler thread each ET thread was paired with.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "profile_option.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "link/link_report.h"
#include "support/error.h"
#include "support/output.h"
#include "support/json_writer.h"

namespace mimic::cli {
namespace {

struct LinkArgs {
    std::string trace;
    std::string profile;
    std::string json;  // "" no JSON, "-" stdout, else a file
    bool by_rf_id = true;
    bool by_seq = true;
    bool in_order = true;
};

struct Linked {
    TraceInput input;
    LinkStats stats;
};

Linked link_one(TraceInput input, const LinkArgs& args) {
    Trace trace = load_trace(input.trace_path);
    if (trace.format == TraceFormat::KinetoProfile)
        fail({input.trace_path, -1, -1, ""},
             "this is a profiler (Kineto) trace, not an execution trace: give the ET and pass it with --profile");
    const ProfileTrace profile = read_kineto_trace(input.profile_path);
    for (const std::string& w : profile.warnings) std::fprintf(stderr, "mimic: warning: %s\n", w.c_str());
    LinkOptions options;
    options.by_record_function_id = args.by_rf_id;
    options.by_sequence_number = args.by_seq;
    options.in_order = args.in_order;
    return {std::move(input), link_profile(trace, profile, options)};
}

void write_json(const std::vector<Linked>& results, const std::string& where) {
    JsonWriter out;
    out.begin_object().key("inputs").begin_array();
    for (const Linked& r : results) {
        out.begin_object();
        out.field("trace", r.input.trace_path);
        out.field("profile", r.input.profile_path);
        out.key("link");
        write_link_stats(out, r.stats);
        out.end_object();
    }
    out.end_array().end_object();
    write_output(where, out.str() + "\n");
}

int run(const LinkArgs& args) {
    // One trace, or a recording with one directory per rank (each with its profile.json).
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    apply_profile_option(inputs, args.profile);
    for (const TraceInput& input : inputs)
        if (input.profile_path.empty())
            fail({input.trace_path, -1, -1, ""}, "no profile to link: pass --profile (a `mimic record` directory brings its own)");

    std::vector<Linked> results;
    for (const TraceInput& input : inputs) results.push_back(link_one(input, args));
    if (!args.json.empty()) write_json(results, args.json);
    if (args.json == "-") return 0;
    std::string text;
    for (const Linked& r : results)
        text += "trace   " + r.input.trace_path + "\nprofile " + r.input.profile_path + "\n" + format_link_stats(r.stats) +
                (&r == &results.back() ? "" : "\n");
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
}

const Registrar registrar{{
    "link",
    "Link a profiler (Kineto) trace to an execution trace and report what matched",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<LinkArgs>();
        app.add_option("trace", args->trace, "ET (.json/.json.gz), Chakra .et, or a `mimic record` directory (one report per rank)")
            ->required();
        app.add_option("--profile", args->profile, "profiler trace (Chrome trace JSON, plain or gzip)");
        app.add_option("--json", args->json, "write the report as JSON to FILE, or alone on stdout when no FILE")
            ->expected(0, 1)
            ->default_str("-");
        app.add_flag("!--no-rf-id", args->by_rf_id, "do not match by record-function id");
        app.add_flag("!--no-seq", args->by_seq, "do not match by autograd sequence number");
        app.add_flag("!--no-in-order", args->in_order, "do not match in order by name");
        app.footer("Example: mimic link trace_et.json.gz --profile kineto.json --json link.json");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

// mimic timeline TRACE [--profile P] --out FILE.json
// Writes the linked timeline (host ops per thread, device work per stream) as
// a Chrome trace for Perfetto. Without a profile, a Chakra trace's own node
// times are used.
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/timeline_writer.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/error.h"

namespace mimic::cli {
namespace {

struct TimelineArgs {
    std::string trace;
    std::string profile;
    std::string out;
};

int run(const TimelineArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (inputs.size() != 1)
        fail({args.trace, -1, -1, ""}, "timeline takes one trace; " + std::to_string(inputs.size()) + " were found there");
    TraceInput input = inputs.front();
    if (!args.profile.empty()) input.profile_path = args.profile;

    Trace trace = load_trace(input.trace_path);
    TimelineSource source = TimelineSource::Chakra;
    if (!input.profile_path.empty()) {
        const ProfileTrace profile = read_kineto_trace(input.profile_path);
        const LinkStats stats = link_profile(trace, profile);
        std::fprintf(stderr, "linked %zu of %zu nodes, %zu device events attached\n", stats.linked, stats.linkable,
                     trace.device_events.size());
        source = TimelineSource::Linked;
    } else if (trace.format != TraceFormat::Chakra) {
        fail({args.trace, -1, -1, ""}, "no profile to take times from: pass --profile");
    }
    const TimelineStats stats = write_timeline(trace, args.out, source);
    std::printf("wrote %s: %zu host events, %zu device events, %zu launch arrows, span %.3f ms\n", args.out.c_str(),
                stats.host_events, stats.device_events, stats.flows, stats.span_us / 1000.0);
    return 0;
}

const Registrar registrar{{
    "timeline",
    "Write the linked timeline of a trace as a Chrome/Perfetto trace",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<TimelineArgs>();
        app.add_option("trace", args->trace, "ET (.json/.json.gz), Chakra .et, or a `mimic record` directory")
            ->required();
        app.add_option("--profile", args->profile, "profiler (Kineto) trace to link for the times");
        app.add_option("--out", args->out, "Chrome trace JSON to write")->required();
        app.footer("Example: mimic timeline trace_et.json.gz --profile kineto.json --out timeline.json   (open in ui.perfetto.dev)");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

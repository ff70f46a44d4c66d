// mimic timeline TRACE|DIR [--profile P] --out FILE.json
// Writes the linked timeline (host ops per thread, device work per stream) as
// a Chrome trace for Perfetto. Without a profile, a Chakra trace's own node
// times are used.
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "profile_option.h"
#include "original_timeline.h"
#include "io/recording/recording_dir.h"
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
    apply_profile_option(inputs, args.profile);
    const OriginalTimeline t = write_original_timeline(inputs, args.out);
    std::printf("wrote %s: %zu rank(s), %zu host events, %zu device events, %zu launch arrows, longest span %.3f ms\n",
                args.out.c_str(), t.ranks, t.stats.host_events, t.stats.device_events, t.stats.flows, t.stats.span_us / 1000.0);
    return 0;
}

const Registrar registrar{{
    "timeline",
    "Write the linked timeline of a trace as a Chrome/Perfetto trace",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<TimelineArgs>();
        app.add_option("trace", args->trace, "ET (.json/.json.gz), Chakra .et, a `mimic record` directory, or a directory of ranks (one process per rank)")
            ->required();
        app.add_option("--profile", args->profile, "profiler (Kineto) trace to link for the times");
        app.add_option("-o,--out", args->out, "Chrome trace JSON to write")->required();
        app.footer("Example: mimic timeline trace_et.json.gz --profile kineto.json --out timeline.json   (open in ui.perfetto.dev)");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

// mimic timeline TRACE|DIR [--profile P] --out FILE.json
// Writes the linked timeline (host ops per thread, device work per stream) as
// a Chrome trace for Perfetto. Without a profile, a Chakra trace's own node
// times are used.
#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/timeline_writer.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/chrome_trace.h"
#include "support/error.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct TimelineArgs {
    std::string trace;
    std::string profile;
    std::string out;
};

// One trace's timeline into `out`.
TimelineStats write_one(const TraceInput& input, const std::string& given, const std::string& out) {
    Trace trace = load_trace(input.trace_path);
    if (!input.meta_path.empty()) apply_recording_meta(trace, input.meta_path);
    TimelineSource source = TimelineSource::Chakra;
    if (!input.profile_path.empty()) {
        const ProfileTrace profile = read_kineto_trace(input.profile_path);
        const LinkStats stats = link_profile(trace, profile);
        std::fprintf(stderr, "%s: linked %zu of %zu nodes, %zu device events attached\n", input.trace_path.c_str(),
                     stats.linked, stats.linkable, trace.device_events.size());
        source = TimelineSource::Linked;
    } else if (trace.format != TraceFormat::Chakra) {
        fail({given, -1, -1, ""}, input.trace_path + " has no profile to take times from: pass --profile");
    }
    return write_timeline(trace, out, source);
}

int run(const TimelineArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (!args.profile.empty()) {
        if (inputs.size() != 1)
            fail({args.profile, -1, -1, ""}, "--profile goes with one trace; " + std::to_string(inputs.size()) +
                                                 " were found (a directory of ranks pairs each with its own)");
        inputs.front().profile_path = args.profile;
    }
    if (inputs.size() == 1) {
        const TimelineStats stats = write_one(inputs.front(), args.trace, args.out);
        std::printf("wrote %s: %zu host events, %zu device events, %zu launch arrows, span %.3f ms\n", args.out.c_str(),
                    stats.host_events, stats.device_events, stats.flows, stats.span_us / 1000.0);
        return 0;
    }
    // Many ranks: each written apart (one trace in memory at a time), then one file.
    std::vector<std::string> parts;
    TimelineStats total;
    for (size_t r = 0; r < inputs.size(); ++r) {
        parts.push_back(args.out + ".part" + std::to_string(r));
        const TimelineStats s = write_one(inputs[r], args.trace, parts.back());
        total.host_events += s.host_events;
        total.device_events += s.device_events;
        total.flows += s.flows;
        total.span_us = std::max(total.span_us, s.span_us);
    }
    write_output(args.out, merge_chrome_trace_files(parts));
    for (const std::string& part : parts) std::remove(part.c_str());
    std::printf("wrote %s: %zu ranks, %zu host events, %zu device events, %zu launch arrows, longest span %.3f ms\n",
                args.out.c_str(), inputs.size(), total.host_events, total.device_events, total.flows, total.span_us / 1000.0);
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
        app.add_option("--out", args->out, "Chrome trace JSON to write")->required();
        app.footer("Example: mimic timeline trace_et.json.gz --profile kineto.json --out timeline.json   (open in ui.perfetto.dev)");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

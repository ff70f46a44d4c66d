#include "original_timeline.h"

#include <algorithm>
#include <cstdio>

#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/chrome_trace.h"
#include "support/error.h"

namespace mimic::cli {
namespace {

TimelineStats write_one(const TraceInput& input, const std::string& out) {
    auto [trace, profile] = load_trace_and_profile(input.trace_path, input.profile_path);
    if (!input.meta_path.empty()) apply_recording_meta(trace, input.meta_path);
    TimelineSource source = TimelineSource::Chakra;
    if (profile) {
        const LinkStats stats = link_profile(trace, *profile);
        std::fprintf(stderr, "%s: linked %zu of %zu nodes, %zu device events attached\n", input.trace_path.c_str(),
                     stats.linked, stats.linkable, trace.device_events.size());
        source = TimelineSource::Linked;
    } else if (trace.format != TraceFormat::Chakra) {
        fail({input.trace_path, -1, -1, ""}, "no profile to take times from: pass --profile");
    }
    return write_timeline(trace, out, source);
}

}  // namespace

OriginalTimeline write_original_timeline(const std::vector<TraceInput>& inputs, const std::string& out) {
    OriginalTimeline t;
    t.ranks = inputs.size();
    if (inputs.size() == 1) {
        t.stats = write_one(inputs.front(), out);
        return t;
    }
    // Many ranks: each written apart (one trace in memory at a time), then one file.
    std::vector<std::string> parts;
    for (size_t r = 0; r < inputs.size(); ++r) {
        parts.push_back(out + ".part" + std::to_string(r));
        const TimelineStats s = write_one(inputs[r], parts.back());
        t.stats.host_events += s.host_events;
        t.stats.device_events += s.device_events;
        t.stats.flows += s.flows;
        t.stats.span_us = std::max(t.stats.span_us, s.span_us);
    }
    merge_chrome_trace_parts(parts, out);
    return t;
}

}  // namespace mimic::cli

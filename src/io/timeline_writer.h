// Writes the linked timeline of a trace as a Chrome trace (opens in Perfetto
// and chrome://tracing): each timed node as a complete event on its host
// thread, with its ET id, name, schema and input shapes as args; device work
// on one track per device stream, with a flow arrow from its launching node.
#pragma once

#include <cstddef>
#include <string>

#include "trace/trace.h"

namespace mimic {

struct TimelineStats {
    size_t host_events = 0;
    size_t device_events = 0;
    size_t flows = 0;
    double span_us = 0;  // first start to last end
};

enum class TimelineSource {
    Linked,  // Trace::timing and Trace::device_events, from a linked profile
    Chakra,  // the start and duration a Chakra trace carries per node
};

// Times are written relative to the earliest event (its absolute profiler
// time is kept in "otherData"). Throws mimic::Error when the file cannot be
// written or the trace has no timing from `source`.
TimelineStats write_timeline(const Trace& trace, const std::string& path,
                             TimelineSource source = TimelineSource::Linked);

}  // namespace mimic

#include "analysis/node_times.h"

namespace mimic::analysis {

std::string_view time_source_key(TimeSource s) {
    switch (s) {
        case TimeSource::Profile: return "profile";
        case TimeSource::Chakra: return "chakra";
        case TimeSource::None: break;
    }
    return "none";
}

TimeSource time_source_of(const Trace& trace) {
    // A profile linked to this trace wins; it has exclusive times.
    if (trace.timing.size() == trace.nodes.size() && !trace.timing.empty()) {
        for (const NodeTiming& t : trace.timing)
            if (t.linked()) return TimeSource::Profile;
    }
    if (trace.format == TraceFormat::Chakra) {
        for (const Node& n : trace.nodes)
            if (n.chakra_duration_us > 0) return TimeSource::Chakra;
    }
    return TimeSource::None;
}

bool NodeTimes::has_time(NodeIndex n) const {
    switch (source_) {
        case TimeSource::Profile: return trace_.timing[n.value].linked();
        case TimeSource::Chakra: return true;  // a Chakra node's duration, possibly 0, is what it says
        case TimeSource::None: break;
    }
    return false;
}

double NodeTimes::self_us(NodeIndex n) const {
    switch (source_) {
        case TimeSource::Profile: {
            const NodeTiming& t = trace_.timing[n.value];
            return t.linked() ? t.self_us : 0.0;
        }
        // Chakra nodes do not nest: a node's duration is all its own.
        case TimeSource::Chakra: return static_cast<double>(trace_.nodes[n.value].chakra_duration_us);
        case TimeSource::None: break;
    }
    return 0.0;
}

double NodeTimes::duration_us(NodeIndex n) const {
    switch (source_) {
        case TimeSource::Profile: {
            const NodeTiming& t = trace_.timing[n.value];
            return t.linked() ? t.duration_us : 0.0;
        }
        case TimeSource::Chakra: return static_cast<double>(trace_.nodes[n.value].chakra_duration_us);
        case TimeSource::None: break;
    }
    return 0.0;
}

}  // namespace mimic::analysis

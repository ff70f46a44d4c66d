// Where a trace's times come from and how to read them: a linked profiler
// (Trace::timing, with exclusive times) or a Chakra trace's own durations
// (flat nodes, each duration its own). A trace with neither is untimed and
// every time reads 0.
#pragma once

#include <string_view>

#include "trace/trace.h"

namespace mimic::analysis {

enum class TimeSource { None, Profile, Chakra };

std::string_view time_source_key(TimeSource s);  // "none", "profile", "chakra"

TimeSource time_source_of(const Trace& trace);

class NodeTimes {
public:
    NodeTimes(const Trace& trace, TimeSource source) : trace_(trace), source_(source) {}
    TimeSource source() const { return source_; }
    bool timed() const { return source_ != TimeSource::None; }
    // Exclusive time: the node's own, without the linked nodes inside it.
    double self_us(NodeIndex n) const;
    // Inclusive time: start to end of the node.
    double duration_us(NodeIndex n) const;
    // Whether this node carries a time at all (a profile links only some nodes).
    bool has_time(NodeIndex n) const;

private:
    const Trace& trace_;
    TimeSource source_;
};

}  // namespace mimic::analysis

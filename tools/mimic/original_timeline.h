// The original's timeline, as `timeline`, `analyze --timeline` and
// `link --timeline` write it: each trace linked to its profile (or a Chakra
// trace's own times), one file; a directory of ranks gives a process per rank.
#pragma once

#include <string>
#include <vector>

#include "io/recording/recording_dir.h"
#include "io/timeline_writer.h"

namespace mimic::cli {

struct OriginalTimeline {
    TimelineStats stats;  // summed over ranks; span_us the longest
    size_t ranks = 0;
};

// Throws mimic::Error naming a trace that has no times to draw.
OriginalTimeline write_original_timeline(const std::vector<TraceInput>& inputs, const std::string& out);

}  // namespace mimic::cli

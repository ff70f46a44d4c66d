// Each profiled op's median duration over the profiled iterations that
// repeat the one the ET was linked to.
//
// A profile often holds several iterations of a training loop (Kineto's
// active steps ProfilerStep#6, #7, #8; `mimic record` profiles five) where the
// ET holds one, and a single iteration is a noisy reference for an op's time:
// measured here, one step's per-op times differ from the median of nine
// others by 7-14% (geometric mean over op names), and the first step under a
// fresh profiler pays for its cold instrumentation.
//
// The repeats of a linked label (a user annotation such as ProfilerStep#13)
// are the user annotations on its thread under the same parent whose name is
// the same up to a trailing #<number>, or, for a label at the top of its
// thread, the same (Kineto traces without steps repeat
// Optimizer.step#SGD.step there). Below a label and a repeat, events pair
// level by level: when two paired events have as many children, the children
// pair by position where name and input shapes ("Input Dims") agree; one that
// differs (another sequence length) stays out with its subtree, and a subtree
// with another number of children (a data-dependent branch) keeps only its
// root paired.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "io/kineto/kineto_trace.h"
#include "trace/trace.h"

namespace mimic {

struct RepeatStats {
    size_t labels = 0;              // linked labels that have repeats
    size_t iterations = 0;          // most iterations found for a label, the linked one included
    size_t nodes_with_repeats = 0;  // linked nodes timed in more than one iteration
};

// Sets NodeTiming::median_duration_us and ::iterations of every linked node
// (its own duration and 1 where no repeat covers it). `event_of_node`: per
// node, its host event or kNoEvent. At most `max_repeats` repeats per label,
// the nearest in time, count.
RepeatStats fill_repeat_medians(Trace& trace, const ProfileTrace& profile, const std::vector<uint32_t>& event_of_node,
                                size_t max_repeats = 32);

// True for names of one loop's labels: equal, or equal up to a trailing
// #<digits> ("ProfilerStep#12", "ProfilerStep#13").
bool same_label_family(std::string_view a, std::string_view b);

}  // namespace mimic

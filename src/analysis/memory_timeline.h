// Live tensor memory over a trace, estimated from the trace alone: each
// storage a top-level operator touches is live from the first operator that
// writes it (or from the start, when it is first read: parameters, inputs,
// optimizer state) to the last operator that reads or writes it. Nested ops'
// temporaries are not seen, and a storage id the allocator hands out again
// merges its lives into one span, so this is an estimate of what the step
// keeps, not an allocator trace; it is what a user needs to know whether a
// trace fits a machine before replaying it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "analysis/op_nesting.h"
#include "trace/trace.h"

namespace mimic::analysis {

struct MemoryPoint {
    uint64_t node_id = 0;     // the top-level operator after which this was live
    uint64_t live_bytes = 0;  // its inputs and outputs included
};

// One device's curve ("cpu", "cuda:0"; "" when the trace does not say).
struct MemoryTimeline {
    std::string device;
    int64_t rank = -1;
    uint64_t resident_bytes = 0;  // storages first seen as inputs: there before the first op
    uint64_t peak_bytes = 0;
    uint64_t peak_node_id = 0;
    uint64_t storages = 0;
    std::vector<MemoryPoint> points;  // one per top-level operator, in execution order
};

// Devices in order of their peak, largest first; empty when no top-level
// operator has a tensor with a known size.
std::vector<MemoryTimeline> memory_timeline(const Trace& trace, const OpNesting& nesting);

// What a replay on one device needs: every device's storages together, as a
// CPU replay of a GPU trace puts them all in host memory.
struct MemoryNeed {
    uint64_t resident_bytes = 0;  // parameters, inputs, optimizer state: there before the first op
    uint64_t peak_bytes = 0;      // the largest live set after any top-level op
    uint64_t peak_node_id = 0;
};
MemoryNeed memory_need(const std::vector<MemoryTimeline>& curves);

// The same from a trace alone (classifies and nests its nodes first).
MemoryNeed memory_need(const Trace& trace);

}  // namespace mimic::analysis

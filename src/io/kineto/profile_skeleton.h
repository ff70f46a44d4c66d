// A trace of a profiler (Kineto) recording on its own, with no execution
// trace beside it: one node per host operator and label the profile holds,
// nested as the profile nests them, on its threads; no inputs, no schemas.
// Linking the same profile to it (link_profile) then gives every node its
// time and each operator its kernels, as for an ET, so analyze, report,
// timeline, convert and simulate take a profile alone. Replay and predict
// need what an ET has (schemas, shapes) and say so.
#pragma once

#include "io/kineto/kineto_trace.h"
#include "trace/trace.h"

namespace mimic {

// Nodes in start order (parents before children): a process root, a thread
// node per thread with host events, then the events (cpu_op events as
// operators, user annotations as labels; Python function events left out,
// as an ET has none). Rank and world size from distributedInfo.
Trace trace_skeleton_of_profile(const ProfileTrace& profile);

}  // namespace mimic

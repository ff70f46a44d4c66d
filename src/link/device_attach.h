// Ties device work (kernels, memcpys, memsets) to the ET node whose profiler
// op launched it: kernel -> launch by correlation id, launch -> host op on its
// thread, host op -> the ET node linked to it or to its nearest enclosing op.
#pragma once

#include <cstdint>
#include <vector>

#include "io/kineto/kineto_trace.h"
#include "link/link_profile.h"
#include "trace/trace.h"

namespace mimic {

// For each runtime event, the host event that launched it, or kNoEvent: the
// op with the launch's External id if that op is on the same thread and
// encloses the launch (Kineto from PyTorch 2 writes it), else the innermost
// host op that encloses the launch (older Kineto writes the correlation id
// there, which names no op).
std::vector<uint32_t> launching_ops(const ProfileTrace& profile);

// Appends one DeviceEvent per device work item whose launch lies under a
// linked ET node. `node_of_event` maps host events to linked nodes.
void attach_device_work(Trace& trace, const ProfileTrace& profile, const std::vector<NodeIndex>& node_of_event,
                        LinkStats& stats);

}  // namespace mimic

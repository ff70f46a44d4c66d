// `mimic replay --timeline`: the replay's iteration as a Chrome/Perfetto
// trace. Each replayed op is drawn with its measured time (the per-op pass's
// median), one after another on the replay thread, behind the host gap the
// replay spent before it; the original's profiled time is in each op's args.
// Ops are laid end to end because that is how a replay runs them (one thread,
// in order), so the picture is the replayed iteration as the per-op pass saw
// it. Opened beside `mimic timeline` of the original, the two line up by node.
#pragma once

#include <string>

#include "replay/replay_report.h"

namespace mimic::replay {

std::string replay_timeline_json(const ReplayReport& report);

}  // namespace mimic::replay

// Records one iteration of a replay with PyTorch's execution-trace observer,
// so `mimic diff ORIGINAL DIR/et.json` can show that the replay ran the ops
// the original ran, with the same shapes.
#pragma once

#include <string>

#include "replay/replayer.h"

namespace mimic::replay {

// Creates `dir` if needed, runs one iteration under the observer inside a
// ProfilerStep#0 label and returns the path of the ET written (DIR/et.json).
// Throws mimic::Error when the observer cannot be installed.
std::string record_replay(Replayer& replayer, const std::string& dir);

}  // namespace mimic::replay

// Process groups as PyTorch 2.x writes them: the "## process_group:init ##"
// label's first input is a JSON list of groups. PyTorch 1.13 writes none
// (the recorder's meta.json carries them instead).
#pragma once

#include "trace/trace.h"

namespace mimic {

// Fills trace.process_groups from the init label, if the trace has one;
// a malformed description is a warning, not a failure of the whole read.
void read_process_groups(Trace& trace);

}  // namespace mimic

// `--profile P` of the commands that take traces: it belongs to the one trace
// given; a recording or a directory of ranks brings a profile per trace.
#pragma once

#include <string>
#include <vector>

#include "io/recording/recording_dir.h"

namespace mimic::cli {

// Gives `profile` (when not "") to the one input; throws mimic::Error naming
// the profile when there are several.
void apply_profile_option(std::vector<TraceInput>& inputs, const std::string& profile);

}  // namespace mimic::cli

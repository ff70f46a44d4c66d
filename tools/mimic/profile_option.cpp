#include "profile_option.h"

#include "support/error.h"

namespace mimic::cli {

void apply_profile_option(std::vector<TraceInput>& inputs, const std::string& profile) {
    if (profile.empty()) return;
    if (inputs.size() != 1)
        fail({profile, -1, -1, "--profile"}, "goes with exactly one trace; " + std::to_string(inputs.size()) +
                                                 " were given (a recording, or each rank's directory, brings its own profile)");
    inputs.front().profile_path = profile;
}

}  // namespace mimic::cli

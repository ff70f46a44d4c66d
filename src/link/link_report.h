// The linker's counts as a readable table or as JSON (for `mimic link`).
#pragma once

#include <string>

#include "link/link_profile.h"
#include "support/json_writer.h"

namespace mimic {

// Writes the stats as one JSON object at the writer's current position.
void write_link_stats(JsonWriter& out, const LinkStats& stats);

// A few aligned lines for people.
std::string format_link_stats(const LinkStats& stats);

}  // namespace mimic

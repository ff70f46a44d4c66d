// The linker's counts as a readable table or as JSON (for `mimic link`).
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "link/link_profile.h"
#include "support/json_writer.h"

namespace mimic {

// Writes the stats as one JSON object at the writer's current position.
void write_link_stats(JsonWriter& out, const LinkStats& stats);

// The counts as flat (name, value) pairs, for reports that sum them over
// ranks (mimic analyze); the one list of LinkStats' counts outside the struct.
std::vector<std::pair<std::string, double>> link_stats_fields(const LinkStats& stats);

// A few aligned lines for people.
std::string format_link_stats(const LinkStats& stats);

}  // namespace mimic

// What `mimic simulate` prints: per-rank times as a table (ranks with equal
// results on one line), as JSON, as ASTRA-sim's own lines, and a
// Chrome/Perfetto timeline with one track per rank and resource.
#pragma once

#include <string>

#include "sim/simulator.h"

namespace mimic::sim {

std::string format_table(const SimulationResult& result);
std::string format_astra_lines(const SimulationResult& result);
std::string format_json(const SimulationResult& result, double wall_seconds);
std::string format_timeline(const SimulationResult& result, const SimulationInput& input);

}  // namespace mimic::sim

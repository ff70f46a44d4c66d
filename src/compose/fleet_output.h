// Writes a fleet's result as a directory:
//   OUT/fleet.json                      the result (README_fleet.md)
//   OUT/representatives/c<k>-<name>     each cluster's representative trace
// Representatives are hard links where OUT is on the same file system as the
// traces (no space taken, and a link is as good as a copy for a trace nobody
// edits in place), else copies; a recording directory is linked file by file.
#pragma once

#include <string>

#include "compose/fleet_report.h"

namespace mimic::fleet {

struct OutputStats {
    size_t linked = 0;  // files hard-linked
    size_t copied = 0;  // files copied
};

// Throws mimic::Error naming the path that cannot be written.
OutputStats write_fleet_dir(const FleetResult& result, const std::string& out_dir);

}  // namespace mimic::fleet

// The members of a fleet: every trace under the paths given. A directory is
// walked recursively; a `mimic record` directory (et.json.gz beside
// profile.json and meta.json) is one member, read with its profile and meta
// as the other commands read it; PREFIX.comm_groups.json beside a Chakra
// workload is part of it, not a member; any other file is a member to be tried, so
// a file that is not a trace is listed as unreadable rather than silently
// ignored. The order is fixed (paths as given, each directory's entries
// sorted by name), so every shard of a run numbers the members alike.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/recording/recording_dir.h"

namespace mimic::fleet {

struct FleetInput {
    std::string path;   // what is reported and copied: the file, or the recording directory
    TraceInput trace;   // what is read (trace_path empty: `problem` says why)
    std::string problem;  // set when the walk itself failed (no such path, unlistable directory)
};

// `exclude` (the run's own output, "" for none) and everything under it is
// left out: a fleet written into its own directory must not count its
// representatives as members on the next run.
std::vector<FleetInput> list_fleet_inputs(const std::vector<std::string>& paths, const std::string& exclude = "");

// A fingerprint of the listing (FNV-1a over the member paths), so that merge
// can refuse parts made from different listings.
uint64_t listing_digest(const std::vector<FleetInput>& inputs);

}  // namespace mimic::fleet

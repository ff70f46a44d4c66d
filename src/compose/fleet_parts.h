// A shard's partial result (`mimic fleet DIR... --shard I/N -o PART`): the
// signatures of the members it read, and the members it could not read,
// each under its index in the whole listing. `mimic fleet merge` puts the
// parts back together in listing order and clusters them exactly as a single
// run would.
//
//   {"format": "mimic-fleet-part", "version": 1, "shard": 0, "shards": 4,
//    "members": 1000, "listing_digest": "9f3c...", "time_model": "nominal",
//    "items": [{"index": 0, "path": "...", "signature": {...}},
//              {"index": 4, "path": "...", "unreadable": "why"}, ...]}
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compose/fleet_scan.h"

namespace mimic::fleet {

struct FleetPart {
    int shard = 0;
    int shards = 1;
    size_t members = 0;           // the whole listing's size
    uint64_t listing_digest = 0;  // fleet_inputs.h
    std::string time_model;       // how untimed traces were timed: "nominal" or "costs <db>"
    std::vector<FleetItem> items;
};

std::string part_to_json(const FleetPart& part);

// Throws mimic::Error naming the file and field.
FleetPart read_part(const std::string& path);

// The parts of one run, checked to be complete (every shard once, every
// member once) and alike (same listing and time model), as the items of
// the whole fleet in listing order. Throws mimic::Error naming the part that
// does not fit.
std::vector<FleetItem> merge_parts(const std::vector<FleetPart>& parts, const std::vector<std::string>& paths,
                                   std::string* time_model = nullptr);

}  // namespace mimic::fleet

// What `mimic fleet` reports: fleet.json (the format is in
// src/compose/README_fleet.md) and the table it prints.
#pragma once

#include <string>
#include <vector>

#include "compose/fleet_cluster.h"
#include "compose/fleet_scan.h"

namespace mimic::fleet {

struct FleetResult {
    std::vector<FleetItem> items;  // every member, in listing order
    std::vector<size_t> readable;  // positions in `items` of the signed members, the clustering's order
    FleetClustering clustering;
    std::string time_model;        // "nominal" or "costs <db>"
};

// Clusters the readable members. Throws mimic::Error listing why when none is readable.
FleetResult cluster_items(std::vector<FleetItem> items, const std::string& time_model, const ClusterOptions& options);

// The name a representative's copy takes under OUT/representatives/:
// "c<cluster>-<file or directory name>".
std::string representative_name(size_t cluster, const std::string& path);

std::string fleet_json(const FleetResult& r);
std::string fleet_table(const FleetResult& r);

}  // namespace mimic::fleet

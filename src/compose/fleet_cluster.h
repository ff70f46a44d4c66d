// Clusters a fleet's signatures and picks one representative per cluster.
//
// k is chosen from the data by the silhouette: k-means is run for every k
// from 2 to min(max_k, distinct signatures) and the k with the highest mean
// silhouette wins (the smaller k on a tie). The silhouette rewards clusters
// that are both tight and apart, needs no assumption about their shape or
// spread (BIC would assume Gaussian clusters, which shares bounded in
// [0, 1] are not), and unlike the elbow rule needs no judgment of a bend.
// Two guards make it honest on fleets of near-copies:
//  - distances below `resolution` count as none, so a fleet whose traces
//    differ by less than that (the same job recorded twice) is not split
//    into "perfectly separated" clusters of identical work;
//  - when no k reaches `min_silhouette` (0.25: below it Kaufman and
//    Rousseeuw find no substantial structure) the fleet is one cluster.
// A representative is the member nearest its cluster's center; its weight is
// the cluster's share of the fleet's traces (every trace counts once, as
// each is one job to be benchmarked), and the fleet's breakdown these weights
// must reproduce is the mean of the traces' own breakdowns.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compose/fleet_signature.h"

namespace mimic::fleet {

struct ClusterOptions {
    size_t max_k = 12;
    double resolution = 0.02;
    double min_silhouette = 0.25;
    uint64_t seed = 0x6d696d6963ull;  // "mimic": the same clusters on every run
};

struct Cluster {
    size_t representative = 0;  // index into the signatures
    double weight = 0;          // members / all traces
    std::vector<size_t> members;
};

struct KTried {
    size_t k = 0;
    double silhouette = 0;  // 0 for k = 1
    double inertia = 0;
};

// The fleet's breakdown (mean of the traces' shares), the weighted
// representatives' and their difference, in percentage points.
struct BreakdownError {
    std::array<double, kBuckets> fleet{};
    std::array<double, kBuckets> represented{};
    double max_pp = 0;
    double l1_pp = 0;
};

struct FleetClustering {
    size_t k = 0;
    std::string reason;  // how k was chosen, in words
    std::vector<KTried> tried;
    std::vector<Cluster> clusters;  // heaviest first
    std::vector<size_t> assignment; // per signature: its position in `clusters`
    BreakdownError time, bytes, flops;
};

// `signatures` must not be empty.
FleetClustering cluster_fleet(const std::vector<Signature>& signatures, const ClusterOptions& options = {});

}  // namespace mimic::fleet

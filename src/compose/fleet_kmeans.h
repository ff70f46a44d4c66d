// k-means for fleet signatures, deterministic: k-means++ seeding from a
// fixed seed (a generator of our own, so every platform draws the same
// numbers), Lloyd iterations, the best of a few restarts; and the silhouette
// that chooses k (fleet_cluster.h says how).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mimic::fleet {

using Point = std::vector<double>;

double squared_distance(const Point& a, const Point& b);

struct KMeansResult {
    size_t k = 0;
    std::vector<Point> centers;
    std::vector<size_t> assignment;  // cluster of each point
    double inertia = 0;              // sum of squared distances to the centers
};

// k must be between 1 and the number of distinct points (more centers than
// distinct points leave some empty). Ties go to the lower index everywhere.
KMeansResult kmeans(const std::vector<Point>& points, size_t k, uint64_t seed, int restarts = 4);

// How many of the points are distinct (exactly).
size_t distinct_points(const std::vector<Point>& points);

// Pairwise distances among a sample of the points, computed once and
// reused for every k: at most `cap` points, evenly spaced, so that a fleet
// of 100,000 traces is scored in bounded time. Distances below `resolution`
// count as none (each distance d is taken as max(0, d - resolution)): two
// traces that differ by less than that are the same workload, and a split
// between them must not score as well separated.
class SilhouetteScorer {
public:
    SilhouetteScorer(const std::vector<Point>& points, double resolution, size_t cap = 2000);
    // Mean silhouette of the sampled points under `assignment` (over all points);
    // a point alone in its cluster scores 0, as does one whose a and b are both 0.
    double score(const std::vector<size_t>& assignment, size_t k) const;

private:
    std::vector<size_t> sample_;
    std::vector<double> dist_;  // sample_.size()^2
};

}  // namespace mimic::fleet

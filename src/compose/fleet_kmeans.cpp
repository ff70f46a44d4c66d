#include "compose/fleet_kmeans.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

namespace mimic::fleet {
namespace {

// splitmix64: tiny, and the same numbers on every compiler (std::
// distributions are not specified bit for bit).
class Random {
public:
    explicit Random(uint64_t seed) : state_(seed) {}
    uint64_t next() {
        uint64_t z = (state_ += 0x9e3779b97f4a7c15ull);
        z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
        z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
        return z ^ (z >> 31);
    }
    double uniform() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }  // [0, 1)

private:
    uint64_t state_;
};

constexpr int kMaxIterations = 100;

// Picks an index with probability proportional to weights[i]; -1 when all are 0.
long pick_weighted(const std::vector<double>& weights, Random& rng) {
    double total = 0;
    for (double w : weights) total += w;
    if (!(total > 0)) return -1;
    const double target = rng.uniform() * total;
    double run = 0;
    long last = -1;
    for (size_t i = 0; i < weights.size(); ++i) {
        if (weights[i] <= 0) continue;
        run += weights[i];
        last = static_cast<long>(i);
        if (run > target) return last;
    }
    return last;  // rounding left target at the very end
}

std::vector<Point> seed_plus_plus(const std::vector<Point>& points, size_t k, Random& rng) {
    std::vector<Point> centers;
    centers.push_back(points[rng.next() % points.size()]);
    std::vector<double> d2(points.size());
    for (size_t i = 0; i < points.size(); ++i) d2[i] = squared_distance(points[i], centers[0]);
    while (centers.size() < k) {
        const long pick = pick_weighted(d2, rng);
        if (pick < 0) break;  // every point is a center already
        centers.push_back(points[static_cast<size_t>(pick)]);
        for (size_t i = 0; i < points.size(); ++i) d2[i] = std::min(d2[i], squared_distance(points[i], centers.back()));
    }
    return centers;
}

size_t nearest(const Point& p, const std::vector<Point>& centers, double* d2_out) {
    size_t best = 0;
    double best_d = std::numeric_limits<double>::infinity();
    for (size_t c = 0; c < centers.size(); ++c) {
        const double d = squared_distance(p, centers[c]);
        if (d < best_d) {
            best_d = d;
            best = c;
        }
    }
    if (d2_out) *d2_out = best_d;
    return best;
}

KMeansResult lloyd(const std::vector<Point>& points, std::vector<Point> centers) {
    const size_t k = centers.size();
    const size_t dim = points.front().size();
    KMeansResult r;
    r.k = k;
    r.assignment.assign(points.size(), 0);
    std::vector<double> d2(points.size());
    for (int iter = 0; iter < kMaxIterations; ++iter) {
        bool changed = iter == 0;
        for (size_t i = 0; i < points.size(); ++i) {
            const size_t c = nearest(points[i], centers, &d2[i]);
            if (c != r.assignment[i]) changed = true;
            r.assignment[i] = c;
        }
        if (!changed) break;
        std::vector<Point> sums(k, Point(dim, 0.0));
        std::vector<size_t> counts(k, 0);
        for (size_t i = 0; i < points.size(); ++i) {
            ++counts[r.assignment[i]];
            for (size_t j = 0; j < dim; ++j) sums[r.assignment[i]][j] += points[i][j];
        }
        for (size_t c = 0; c < k; ++c) {
            if (counts[c] == 0) {
                // An emptied cluster takes the point farthest from its center.
                const size_t far = static_cast<size_t>(std::max_element(d2.begin(), d2.end()) - d2.begin());
                centers[c] = points[far];
                d2[far] = 0;
                continue;
            }
            for (size_t j = 0; j < dim; ++j) centers[c][j] = sums[c][j] / static_cast<double>(counts[c]);
        }
    }
    r.inertia = 0;
    for (size_t i = 0; i < points.size(); ++i) {
        double d = 0;
        r.assignment[i] = nearest(points[i], centers, &d);
        r.inertia += d;
    }
    r.centers = std::move(centers);
    return r;
}

}  // namespace

double squared_distance(const Point& a, const Point& b) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        const double d = a[i] - b[i];
        s += d * d;
    }
    return s;
}

size_t distinct_points(const std::vector<Point>& points) { return std::set<Point>(points.begin(), points.end()).size(); }

KMeansResult kmeans(const std::vector<Point>& points, size_t k, uint64_t seed, int restarts) {
    KMeansResult best;
    if (points.empty() || k == 0) return best;
    Random rng(seed ^ (0x51ed27ull * k));
    for (int r = 0; r < std::max(1, restarts); ++r) {
        KMeansResult run = lloyd(points, seed_plus_plus(points, k, rng));
        if (r == 0 || run.inertia < best.inertia) best = std::move(run);
    }
    return best;
}

SilhouetteScorer::SilhouetteScorer(const std::vector<Point>& points, double resolution, size_t cap) {
    const size_t n = points.size();
    const size_t m = std::min(n, std::max<size_t>(cap, 2));
    for (size_t s = 0; s < m; ++s) sample_.push_back(s * n / m);
    dist_.assign(m * m, 0.0);
    for (size_t a = 0; a < m; ++a)
        for (size_t b = a + 1; b < m; ++b) {
            const double d = std::max(0.0, std::sqrt(squared_distance(points[sample_[a]], points[sample_[b]])) - resolution);
            dist_[a * m + b] = dist_[b * m + a] = d;
        }
}

double SilhouetteScorer::score(const std::vector<size_t>& assignment, size_t k) const {
    const size_t m = sample_.size();
    if (m < 2 || k < 2) return 0;
    std::vector<size_t> size(k, 0);
    for (size_t s = 0; s < m; ++s) ++size[assignment[sample_[s]]];
    double total = 0;
    std::vector<double> sum(k);
    for (size_t a = 0; a < m; ++a) {
        const size_t own = assignment[sample_[a]];
        if (size[own] < 2) continue;  // alone: 0
        std::fill(sum.begin(), sum.end(), 0.0);
        for (size_t b = 0; b < m; ++b) sum[assignment[sample_[b]]] += dist_[a * m + b];
        const double in = sum[own] / static_cast<double>(size[own] - 1);
        double out = std::numeric_limits<double>::infinity();
        for (size_t c = 0; c < k; ++c)
            if (c != own && size[c] > 0) out = std::min(out, sum[c] / static_cast<double>(size[c]));
        if (!std::isfinite(out)) continue;
        const double denom = std::max(in, out);
        if (denom > 0) total += (out - in) / denom;
    }
    return total / static_cast<double>(m);
}

}  // namespace mimic::fleet

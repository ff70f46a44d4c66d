#include "compose/fleet_cluster.h"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "analysis/text_table.h"
#include "compose/fleet_kmeans.h"
#include "support/error.h"

namespace mimic::fleet {
namespace {

BreakdownError breakdown_error(const std::vector<Signature>& sigs, const std::vector<Cluster>& clusters,
                               std::array<double, kBuckets> Signature::*amounts) {
    BreakdownError e;
    for (const Signature& s : sigs) {
        const auto sh = shares(s.*amounts);
        for (size_t b = 0; b < kBuckets; ++b) e.fleet[b] += sh[b] / static_cast<double>(sigs.size());
    }
    for (const Cluster& c : clusters) {
        const auto sh = shares(sigs[c.representative].*amounts);
        for (size_t b = 0; b < kBuckets; ++b) e.represented[b] += c.weight * sh[b];
    }
    for (size_t b = 0; b < kBuckets; ++b) {
        const double d = 100.0 * std::fabs(e.fleet[b] - e.represented[b]);
        e.max_pp = std::max(e.max_pp, d);
        e.l1_pp += d;
    }
    return e;
}

}  // namespace

FleetClustering cluster_fleet(const std::vector<Signature>& signatures, const ClusterOptions& options) {
    if (signatures.empty()) fail({"fleet", -1, -1, ""}, "no readable trace to cluster");
    std::vector<Point> points;
    points.reserve(signatures.size());
    for (const Signature& s : signatures) points.push_back(feature_vector(s));

    const size_t distinct = distinct_points(points);
    const size_t max_k = std::max<size_t>(1, std::min(options.max_k, distinct));
    FleetClustering out;
    KMeansResult chosen = kmeans(points, 1, options.seed);
    out.tried.push_back({1, 0.0, chosen.inertia});
    size_t best_k = 1;
    double best_s = -2;
    if (max_k >= 2) {
        const SilhouetteScorer scorer(points, options.resolution);
        KMeansResult best_run;
        for (size_t k = 2; k <= max_k; ++k) {
            KMeansResult run = kmeans(points, k, options.seed);
            const double s = scorer.score(run.assignment, k);
            out.tried.push_back({k, s, run.inertia});
            if (s > best_s + 1e-12) {
                best_s = s;
                best_k = k;
                best_run = std::move(run);
            }
        }
        if (best_s >= options.min_silhouette) {
            chosen = std::move(best_run);
            out.reason = "k=" + std::to_string(best_k) + ": highest silhouette (" + analysis::fixed(best_s, 3) + ") of k=2.." + std::to_string(max_k);
            // The best k at the cap may be the cap's choice, not the data's.
            if (best_k == max_k && max_k < distinct) out.reason += " (the cap: the fleet may have more kinds; raise --max-k to try more)";
        } else {
            out.reason = "k=1: no k in 2.." + std::to_string(max_k) + " reaches silhouette " + analysis::fixed(options.min_silhouette, 2) +
                         " (best " + analysis::fixed(best_s, 3) + " at k=" + std::to_string(best_k) + "): no cluster structure";
            best_k = 1;
        }
    } else {
        out.reason = distinct == 1 ? "k=1: every trace has the same signature" : "k=1: --max-k 1";
    }
    out.k = best_k;

    // Clusters with their members, representative the member nearest the center.
    std::vector<Cluster> clusters(chosen.k);
    for (size_t i = 0; i < points.size(); ++i) clusters[chosen.assignment[i]].members.push_back(i);
    for (size_t c = 0; c < chosen.k; ++c) {
        Cluster& cl = clusters[c];
        double best = -1;
        for (size_t i : cl.members) {
            const double d = squared_distance(points[i], chosen.centers[c]);
            if (best < 0 || d < best) {
                best = d;
                cl.representative = i;
            }
        }
        cl.weight = static_cast<double>(cl.members.size()) / static_cast<double>(points.size());
    }
    clusters.erase(std::remove_if(clusters.begin(), clusters.end(), [](const Cluster& c) { return c.members.empty(); }), clusters.end());
    std::sort(clusters.begin(), clusters.end(), [](const Cluster& a, const Cluster& b) {
        if (a.members.size() != b.members.size()) return a.members.size() > b.members.size();
        return a.members.front() < b.members.front();
    });
    out.assignment.assign(points.size(), 0);
    for (size_t c = 0; c < clusters.size(); ++c)
        for (size_t i : clusters[c].members) out.assignment[i] = c;
    out.clusters = std::move(clusters);

    out.time = breakdown_error(signatures, out.clusters, &Signature::time_us);
    out.bytes = breakdown_error(signatures, out.clusters, &Signature::bytes);
    out.flops = breakdown_error(signatures, out.clusters, &Signature::flops);
    return out;
}

}  // namespace mimic::fleet

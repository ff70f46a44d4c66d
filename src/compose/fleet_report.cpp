#include "compose/fleet_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <map>

#include "analysis/text_table.h"
#include "compose/fleet_signature_json.h"
#include "support/error.h"
#include "support/json_writer.h"

namespace mimic::fleet {
namespace {

constexpr size_t kUnreadableShown = 20;

void write_pct(JsonWriter& w, const char* key, const std::array<double, kBuckets>& share) {
    w.key(key).begin_object();
    for (size_t b = 0; b < kBuckets; ++b) w.field(bucket_name(b), 100.0 * share[b]);
    w.end_object();
}

void write_error(JsonWriter& w, const char* key, const BreakdownError& e) {
    w.key(key).begin_object().field("max", e.max_pp).field("l1", e.l1_pp);
    w.key("by_family").begin_object();
    for (size_t b = 0; b < kBuckets; ++b) w.field(bucket_name(b), 100.0 * std::fabs(e.fleet[b] - e.represented[b]));
    w.end_object().end_object();
}

std::map<std::string, size_t> time_sources(const FleetResult& r) {
    std::map<std::string, size_t> n;
    for (size_t i : r.readable) ++n[r.items[i].signature.time_source];
    return n;
}

// "gemm 41%, elementwise 22%, communication 9%": the largest shares.
std::string top_shares(const std::array<double, kBuckets>& share, size_t count) {
    std::vector<size_t> order(kBuckets);
    for (size_t b = 0; b < kBuckets; ++b) order[b] = b;
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return share[a] > share[b]; });
    std::string out;
    for (size_t i = 0; i < count && share[order[i]] > 0.0005; ++i)
        out += (out.empty() ? "" : ", ") + std::string(bucket_name(order[i])) + " " + analysis::fixed(100 * share[order[i]], 0) + "%";
    return out.empty() ? "-" : out;
}

}  // namespace

FleetResult cluster_items(std::vector<FleetItem> items, const std::string& time_model, const ClusterOptions& options) {
    FleetResult r;
    r.items = std::move(items);
    r.time_model = time_model;
    std::vector<Signature> sigs;
    std::string why;
    for (size_t i = 0; i < r.items.size(); ++i) {
        if (r.items[i].ok) {
            r.readable.push_back(i);
            sigs.push_back(r.items[i].signature);
        } else if (why.size() < 2000) {
            why += "\n  " + r.items[i].reason;
        }
    }
    if (r.items.empty()) fail({"fleet", -1, -1, ""}, "no trace found under the paths given");
    if (sigs.empty()) fail({"fleet", -1, -1, ""}, "none of the " + std::to_string(r.items.size()) + " files is a readable trace:" + why);
    r.clustering = cluster_fleet(sigs, options);
    return r;
}

std::string representative_name(size_t cluster, const std::string& path) {
    std::filesystem::path p(path);
    std::string name = p.filename().string();
    if (name.empty()) name = p.parent_path().filename().string();
    return "c" + std::to_string(cluster) + "-" + name;
}

std::string fleet_json(const FleetResult& r) {
    const FleetClustering& c = r.clustering;
    JsonWriter w;
    w.begin_object().field("format", "mimic-fleet").field("version", 1);
    w.field("members", static_cast<unsigned long long>(r.items.size())).field("readable", static_cast<unsigned long long>(r.readable.size()));
    w.field("time_model", r.time_model);
    w.key("time_sources").begin_object();
    for (const auto& [source, n] : time_sources(r)) w.field(source, static_cast<unsigned long long>(n));
    w.end_object();
    w.key("unreadable").begin_array();
    for (const FleetItem& it : r.items)
        if (!it.ok) w.begin_object().field("path", it.path).field("reason", it.reason).end_object();
    w.end_array();

    w.key("clustering").begin_object();
    w.field("method", "k-means, k-means++ seeding, fixed seed");
    w.field("k_rule", "highest mean silhouette over k=2..max_k, distances less the resolution; k=1 below min_silhouette");
    w.field("k", static_cast<unsigned long long>(c.k)).field("reason", c.reason);
    w.key("tried").begin_array();
    for (const KTried& t : c.tried)
        w.begin_object().field("k", static_cast<unsigned long long>(t.k)).field("silhouette", t.silhouette).field("inertia", t.inertia).end_object();
    w.end_array();
    w.field("weight", "share of the readable traces in the cluster");
    w.end_object();

    w.key("clusters").begin_array();
    for (size_t k = 0; k < c.clusters.size(); ++k) {
        const Cluster& cl = c.clusters[k];
        const FleetItem& rep = r.items[r.readable[cl.representative]];
        w.begin_object().field("id", static_cast<unsigned long long>(k)).field("representative", rep.path);
        w.field("copy", "representatives/" + representative_name(k, rep.path)).field("weight", cl.weight);
        w.key("members").begin_array();
        for (size_t m : cl.members) w.value(r.items[r.readable[m]].path);
        w.end_array().end_object();
    }
    w.end_array();

    write_error(w, "breakdown_error_pct", c.time);
    write_error(w, "bytes_breakdown_error_pct", c.bytes);
    write_error(w, "flops_breakdown_error_pct", c.flops);
    write_pct(w, "fleet_time_share_pct", c.time.fleet);
    write_pct(w, "represented_time_share_pct", c.time.represented);

    w.key("traces").begin_array();
    for (size_t j = 0; j < r.readable.size(); ++j) {
        const FleetItem& it = r.items[r.readable[j]];
        const Signature& s = it.signature;
        w.begin_object().field("path", it.path).field("cluster", static_cast<unsigned long long>(c.assignment[j]));
        write_pct(w, "time_share_pct", shares(s.time_us));
        w.key("communication_share_pct").begin_object();
        w.field("time", 100.0 * shares(s.time_us)[kCommBucket]).field("bytes", 100.0 * shares(s.bytes)[kCommBucket]).end_object();
        w.key("signature");
        write_signature(w, s);
        w.end_object();
    }
    w.end_array();
    w.end_object();
    return w.str() + "\n";
}

std::string fleet_table(const FleetResult& r) {
    using analysis::TextTable;
    const FleetClustering& c = r.clustering;
    std::string out;
    out += "fleet: " + std::to_string(r.items.size()) + " members, " + std::to_string(r.readable.size()) + " readable, " +
           std::to_string(r.items.size() - r.readable.size()) + " unreadable\n";
    std::string sources;
    for (const auto& [source, n] : time_sources(r)) sources += (sources.empty() ? "" : ", ") + std::to_string(n) + " " + source;
    out += "times: " + sources + (r.time_model.empty() ? "" : " (untimed traces: " + r.time_model + ")") + "\n";
    out += "clusters: " + c.reason + "\n\n";

    const auto R = TextTable::Align::Right, L = TextTable::Align::Left;
    TextTable t({"cluster", "weight", "members", "representative", "its time"}, {R, R, R, L, L});
    for (size_t k = 0; k < c.clusters.size(); ++k) {
        const Cluster& cl = c.clusters[k];
        const FleetItem& rep = r.items[r.readable[cl.representative]];
        t.add_row({std::to_string(k), analysis::fixed(100 * cl.weight, 1) + "%", std::to_string(cl.members.size()), rep.path,
                   top_shares(shares(rep.signature.time_us), 3)});
    }
    out += t.render() + "\n";

    TextTable b({"family", "fleet time", "represented", "error (pp)"}, {L, R, R, R});
    for (size_t f = 0; f < kBuckets; ++f) {
        if (c.time.fleet[f] < 0.0005 && c.time.represented[f] < 0.0005) continue;
        b.add_row({bucket_name(f), analysis::fixed(100 * c.time.fleet[f], 1) + "%", analysis::fixed(100 * c.time.represented[f], 1) + "%",
                   analysis::fixed(100 * std::fabs(c.time.fleet[f] - c.time.represented[f]), 2)});
    }
    out += b.render();
    out += "breakdown error (percentage points): time max " + analysis::fixed(c.time.max_pp, 2) + ", L1 " + analysis::fixed(c.time.l1_pp, 2) + "; bytes max " +
           analysis::fixed(c.bytes.max_pp, 2) + ", L1 " + analysis::fixed(c.bytes.l1_pp, 2) + "; FLOPs max " + analysis::fixed(c.flops.max_pp, 2) + ", L1 " +
           analysis::fixed(c.flops.l1_pp, 2) + "\n";

    size_t shown = 0, unreadable = r.items.size() - r.readable.size();
    if (unreadable > 0) out += "\nunreadable, skipped:\n";
    for (const FleetItem& it : r.items) {
        if (it.ok) continue;
        if (shown++ == kUnreadableShown) {
            out += "  ... " + std::to_string(unreadable - kUnreadableShown) + " more (all in fleet.json)\n";
            break;
        }
        out += "  " + it.reason + "\n";
    }
    return out;
}

}  // namespace mimic::fleet

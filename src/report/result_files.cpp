#include "report/result_files.h"

#include <simdjson.h>

#include "support/byte_source.h"
#include "support/error.h"

namespace mimic::report {
namespace {

using simdjson::dom::element;
using simdjson::dom::object;

// The file as a JSON object, or why not.
bool open_object(const std::string& path, simdjson::dom::parser& parser, simdjson::padded_string& text,
                 object& out, std::string& problem) {
    try {
        text = simdjson::padded_string(read_whole_file(path));
    } catch (const Error& e) {
        problem = e.what();
        return false;
    }
    if (parser.parse(text).get_object().get(out) != simdjson::SUCCESS) {
        problem = path + ": not a JSON object";
        return false;
    }
    return true;
}

bool number(const object& o, const char* key, double& out) {
    element e;
    if (o[key].get(e) != simdjson::SUCCESS) return false;
    double d;
    int64_t i;
    uint64_t u;
    if (e.get(d) == simdjson::SUCCESS) out = d;
    else if (e.get(i) == simdjson::SUCCESS) out = static_cast<double>(i);
    else if (e.get(u) == simdjson::SUCCESS) out = static_cast<double>(u);
    else return false;
    return true;
}

uint64_t count(const object& o, const char* key) {
    double d = 0;
    return number(o, key, d) && d > 0 ? static_cast<uint64_t>(d) : 0;
}

std::string text_of(const object& o, const char* key) {
    std::string_view s;
    return o[key].get(s) == simdjson::SUCCESS ? std::string(s) : std::string();
}

// All numeric fields of an object, in file order, with "_ms" dropped from the name.
std::vector<std::pair<std::string, double>> ms_fields(const object& o) {
    std::vector<std::pair<std::string, double>> out;
    for (auto field : o) {
        double d;
        if (field.value.get(d) != simdjson::SUCCESS) {
            int64_t i;
            if (field.value.get(i) != simdjson::SUCCESS) continue;
            d = static_cast<double>(i);
        }
        std::string name(field.key);
        if (name.size() > 3 && name.compare(name.size() - 3, 3, "_ms") == 0) name.resize(name.size() - 3);
        out.emplace_back(name, d);
    }
    return out;
}

std::string blas_of(const object& machines, const char* side) {
    object m, blas;
    if (machines[side].get(m) != simdjson::SUCCESS || m["blas"].get(blas) != simdjson::SUCCESS) return "";
    return text_of(blas, "library");
}

void read_replay_object(const object& o, ReplayResult& r) {
    r.trace = text_of(o, "trace");
    simdjson::dom::array iterations;
    if (o["iteration_ms"].get(iterations) == simdjson::SUCCESS)
        for (element e : iterations) {
            double d;
            if (e.get(d) == simdjson::SUCCESS) r.iteration_ms.push_back(d);
        }
    number(o, "median_ms", r.median_ms);
    number(o, "original_ms", r.original_ms);
    r.original_source = text_of(o, "original_source");
    bool comparable = true;
    if (o["times_comparable"].get(comparable) == simdjson::SUCCESS) r.times_comparable = comparable;
    r.ops_total = count(o, "ops_total");
    r.ops_replayed = count(o, "ops_replayed");
    number(o, "per_op_error_geomean_pct", r.per_op_error_geomean_pct);
    object machines;
    if (o["machines"].get(machines) == simdjson::SUCCESS) {
        r.blas_original = blas_of(machines, "original");
        r.blas_replay = blas_of(machines, "replay");
    }
    simdjson::dom::array ops;
    if (o["per_op"].get(ops) == simdjson::SUCCESS)
        for (element e : ops) {
            object op;
            if (e.get(op) != simdjson::SUCCESS) continue;
            ReplayOp x;
            x.name = text_of(op, "name");
            x.count = count(op, "count");
            number(op, "replay_us", x.replay_us);
            number(op, "profile_us", x.original_us);
            x.has_error = number(op, "error_pct", x.error_pct);
            r.per_op.push_back(std::move(x));
        }
    simdjson::dom::array skipped;
    if (o["ops_skipped"].get(skipped) == simdjson::SUCCESS)
        for (element e : skipped) {
            object s;
            if (e.get(s) != simdjson::SUCCESS) continue;
            r.skipped.push_back({text_of(s, "name"), text_of(s, "reason"), count(s, "count")});
        }
}

}  // namespace

ReplayResult read_replay_result(const std::string& path) {
    ReplayResult r;
    r.path = path;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    object o;
    if (!open_object(path, parser, text, o, r.problem)) return r;
    // A multi-rank replay's merged report holds each rank's own report.
    simdjson::dom::array ranks;
    object first;
    if (o["ranks"].get(ranks) == simdjson::SUCCESS && ranks.size() > 0 && ranks.at(0).get(first) == simdjson::SUCCESS &&
        first["median_ms"].error() == simdjson::SUCCESS) {
        r.world_size = static_cast<int64_t>(ranks.size());
        read_replay_object(first, r);
    } else {
        read_replay_object(o, r);
    }
    if (r.iteration_ms.empty() && r.median_ms == 0)
        r.problem = path + ": not a `mimic replay --json` report (it has no iteration_ms or median_ms)";
    return r;
}

PredictResult read_predict_result(const std::string& path) {
    PredictResult p;
    p.path = path;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    object o;
    if (!open_object(path, parser, text, o, p.problem)) return p;
    p.trace = text_of(o, "trace");
    if (!number(o, "iteration_ms", p.iteration_ms)) {
        p.problem = path + ": not a `mimic predict --json` report (it has no iteration_ms)";
        return p;
    }
    number(o, "original_untraced_ms", p.original_ms);
    object breakdown, families;
    if (o["breakdown"].get(breakdown) == simdjson::SUCCESS) {
        p.breakdown_ms = ms_fields(breakdown);
        // predict nests the compute's split by family inside the breakdown.
        if (breakdown["compute_by_family_ms"].get(families) == simdjson::SUCCESS) p.compute_by_family_ms = ms_fields(families);
    }
    simdjson::dom::array path_ops;
    if (o["critical_path"].get(path_ops) == simdjson::SUCCESS)
        for (element e : path_ops) {
            object op;
            if (e.get(op) != simdjson::SUCCESS) continue;
            CriticalOp c;
            c.node_id = count(op, "node_id");
            c.name = text_of(op, "name");
            c.family = text_of(op, "family");
            number(op, "op_us", c.op_us);
            number(op, "host_us", c.host_us);
            number(op, "share", c.share);
            p.critical_path.push_back(std::move(c));
        }
    return p;
}

SimulateResult read_simulate_result(const std::string& path) {
    SimulateResult s;
    s.path = path;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    object o;
    if (!open_object(path, parser, text, o, s.problem)) return s;
    // `predict --ranks` embeds the simulation it ran.
    object embedded;
    if (o["simulation"].get(embedded) == simdjson::SUCCESS) o = embedded;
    s.iteration_ns = count(o, "iteration_ns");
    simdjson::dom::array ranks;
    if (o["ranks"].get(ranks) != simdjson::SUCCESS) {
        s.problem = path + ": not a `mimic simulate --json` report (it has no ranks list)";
        return s;
    }
    for (element e : ranks) {
        object r;
        if (e.get(r) != simdjson::SUCCESS) continue;
        SimRank x;
        double rank = 0;
        number(r, "rank", rank);
        x.rank = static_cast<int64_t>(rank);
        x.finish_ns = count(r, "finish_ns");
        x.exposed_comm_ns = count(r, "exposed_comm_ns");
        x.gpu_compute_ns = count(r, "gpu_compute_ns");
        x.cpu_compute_ns = count(r, "cpu_compute_ns");
        x.comm_ns = count(r, "comm_ns");
        x.overlap_ns = count(r, "overlap_ns");
        s.ranks.push_back(x);
    }
    return s;
}

}  // namespace mimic::report

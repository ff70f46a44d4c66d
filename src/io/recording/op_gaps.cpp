#include "io/recording/op_gaps.h"

#include <simdjson.h>

#include <cmath>

#include "io/recording/recording_dir.h"
#include "support/error.h"
#include "support/json_file.h"

namespace mimic {

namespace {

// A time in microseconds: a number, not negative, below an hour.
bool read_us(simdjson::dom::element e, double& out) {
    if (e.get_double().get(out) != simdjson::SUCCESS) {
        int64_t i = 0;
        if (e.get_int64().get(i) != simdjson::SUCCESS) return false;
        out = double(i);
    }
    return std::isfinite(out) && out >= 0 && out < 3.6e9;
}

}  // namespace

OpGaps read_op_gaps(const std::string& path) {
    OpGaps out;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object doc = parse_json_object_file(path, parser, text);
    simdjson::dom::array gaps;
    if (doc["gaps"].get_array().get(gaps) != simdjson::SUCCESS)
        fail({path, -1, -1, "gaps"}, "expected a list of [node id, gap before us, duration us]");
    simdjson::dom::element tail;
    if (doc["tail_us"].get(tail) == simdjson::SUCCESS && !read_us(tail, out.tail_us))
        fail({path, -1, -1, "tail_us"}, "expected microseconds, 0 to an hour");
    if (doc["tail_cpu_us"].get(tail) == simdjson::SUCCESS && !read_us(tail, out.tail_cpu_us))
        fail({path, -1, -1, "tail_cpu_us"}, "expected microseconds, 0 to an hour");
    simdjson::dom::element cost;
    if (doc["probe_cost_per_event_us"].get(cost) == simdjson::SUCCESS && !cost.is_null() &&
        (!read_us(cost, out.probe_cost_per_event_us) || out.probe_cost_per_event_us > 1000))
        fail({path, -1, -1, "probe_cost_per_event_us"}, "expected microseconds per event, 0 to 1000");
    size_t i = 0;
    for (simdjson::dom::element e : gaps) {
        const std::string field = "gaps[" + std::to_string(i++) + "]";
        simdjson::dom::array row;
        uint64_t node = 0;
        OpGap g;
        simdjson::dom::element gap, duration, cpu;
        if (e.get_array().get(row) != simdjson::SUCCESS || row.size() < 3 || row.size() > 5 ||
            row.at(0).get_uint64().get(node) != simdjson::SUCCESS || row.at(1).get(gap) != simdjson::SUCCESS ||
            row.at(2).get(duration) != simdjson::SUCCESS || !read_us(gap, g.gap_before_us) ||
            !read_us(duration, g.duration_us) ||
            (row.size() >= 4 && (row.at(3).get(cpu) != simdjson::SUCCESS || !read_us(cpu, g.gap_cpu_us))) ||
            (row.size() == 5 && (row.at(4).get_int64().get(g.faults) != simdjson::SUCCESS || g.faults < 0 ||
                                 g.faults > (int64_t(1) << 40))))
            fail({path, -1, -1, field},
                 "expected [node id, gap before us, duration us(, gap CPU us(, page faults))], times 0 to an hour");
        out.by_node[node] = g;
    }
    return out;
}

bool OpGaps::has_faults() const {
    if (by_node.empty()) return false;
    for (const auto& [node, g] : by_node)
        if (g.faults < 0) return false;
    return true;
}

std::optional<OpGaps> read_op_gaps_beside(const std::string& meta_path) {
    const std::optional<std::string> path = recording_file_beside(meta_path, "op_gaps.json");
    if (!path) return std::nullopt;
    return read_op_gaps(*path);
}

}  // namespace mimic

#include "analysis/report_json.h"

#include <algorithm>

#include "analysis/collective_balance.h"

#include "support/json_writer.h"

namespace mimic::analysis {
namespace {

void write_inputs(JsonWriter& w, const Report& r) {
    w.key("inputs").begin_array();
    for (const InputSummary& in : r.inputs) {
        w.begin_object()
            .field("source", in.source)
            .field("format", in.format)
            .field("schema_version", in.schema_version)
            .field("rank", in.rank)
            .field("world_size", in.world_size)
            .field("rank_source", in.rank_source)
            .field("profile_pairing", in.profile_pairing)
            .field("nodes", in.nodes)
            .field("operators", in.operators)
            .field("time_source", in.time_source)
            .field("self_us", in.self_us)
            .field("warnings", in.warnings)
            .end_object();
    }
    w.end_array();
}

void write_categories(JsonWriter& w, const Report& r) {
    w.key("categories").begin_object();
    for (OpCategory c : kAllCategories) {
        const CategoryStats& s = r.category(c);
        w.key(category_key(c))
            .begin_object()
            .field("count", s.count)
            .field("top_level", s.top_level)
            .field("self_us", s.self_us)
            .end_object();
    }
    w.end_object();
}

void write_iterations(JsonWriter& w, const Report& r) {
    w.field("iteration_method", r.iteration_method);
    w.field("iteration_marker", r.iteration_marker);
    w.key("iterations").begin_array();
    for (const Iteration& it : r.iterations) {
        w.begin_object()
            .field("name", it.name)
            .field("rank", it.rank)
            .field("node_id", it.node_id)
            .field("first_node_id", it.first_node_id)
            .field("last_node_id", it.last_node_id)
            .field("nodes", it.nodes)
            .field("timed", it.timed);
        if (it.timed)
            w.field("duration_us", it.duration_us);
        else
            w.key("duration_us").null();
        w.end_object();
    }
    w.end_array();
}

void write_collectives(JsonWriter& w, const Report& r) {
    w.key("collectives").begin_array();
    for (const CollectiveStats& c : r.collectives) {
        w.begin_object()
            .field("pg_name", c.pg_name)
            .field("pg_desc", c.pg_desc)
            .field("collective", c.collective)
            .field("rank", c.rank)
            .field("count", c.count)
            .field("total_bytes", c.total_bytes)
            .field("max_bytes", c.max_bytes)
            .field("unknown_size", c.unknown_size)
            .field("total_us", c.total_us)
            .end_object();
    }
    w.end_array();
    w.key("process_groups").begin_array();
    for (const ProcessGroup& pg : r.process_groups) {
        w.begin_object().field("pg_name", pg.name).field("pg_desc", pg.desc).field("backend", pg.backend);
        w.field("size", pg.size).key("ranks").begin_array();
        for (int64_t rank : pg.ranks) w.value(rank);
        w.end_array().end_object();
    }
    w.end_array();
}

void write_top_operators(JsonWriter& w, const Report& r, size_t top_n) {
    w.field("top_operators_by", r.timed ? "self_us" : "count");
    w.key("top_operators").begin_array();
    const size_t n = std::min(top_n, r.operators_by_time.size());
    for (size_t i = 0; i < n; ++i) {
        const OperatorStats& op = r.operators_by_time[i];
        w.begin_object()
            .field("name", op.name)
            .field("category", category_key(op.category))
            .field("count", op.count)
            .field("self_us", op.self_us)
            .end_object();
    }
    w.end_array();
}

void write_replay(JsonWriter& w, const Report& r) {
    const ReplayCoverage& c = r.replay;
    w.key("replayable")
        .begin_object()
        .field("ops", c.replayable)
        .field("total", c.total)
        .field("share", c.share())
        .field("without_schema", c.without_schema)
        .field("not_registered", c.not_registered)
        .field("collectives", c.collectives)
        .field("kernels_checked", c.kernels_checked);
    w.key("blockers").begin_array();
    for (const auto& [name, count] : c.blockers) w.begin_object().field("name", name).field("count", count).end_object();
    w.end_array().end_object();
}

void write_balance(JsonWriter& w, const Report& r) {
    w.key("collective_balance").begin_array();
    for (const CollectiveBalance& b : collective_balance(r.collectives)) {
        w.begin_object().field("pg_name", b.pg_name).field("collective", b.collective).field("ranks", uint64_t(b.ranks));
        w.field("calls", b.calls).field("min_bytes", b.min_bytes).field("max_bytes", b.max_bytes);
        w.field("min_bytes_rank", b.min_bytes_rank).field("max_bytes_rank", b.max_bytes_rank);
        w.field("bytes_imbalance", b.bytes_imbalance());
        if (b.timed)
            w.field("min_us", b.min_us).field("max_us", b.max_us).field("fastest_rank", b.fastest_rank)
                .field("slowest_rank", b.slowest_rank).field("time_imbalance", b.time_imbalance());
        w.end_object();
    }
    w.end_array();
}

// Peaks only: the whole curve is in `mimic report`'s page.
void write_memory(JsonWriter& w, const Report& r) {
    w.key("memory").begin_array();
    for (const MemoryTimeline& m : r.memory)
        w.begin_object()
            .field("rank", m.rank)
            .field("device", m.device)
            .field("peak_live_bytes", m.peak_bytes)
            .field("peak_after_node", m.peak_node_id)
            .field("resident_bytes", m.resident_bytes)
            .field("storages", m.storages)
            .end_object();
    w.end_array();
}

}  // namespace

std::string report_to_json(const Report& r, size_t top_n) {
    JsonWriter w(2);
    w.begin_object();
    w.field("schema_version", r.schema_version);
    w.field("nodes", r.nodes);
    w.field("operators", r.operators);
    w.field("top_level_operators", r.top_level_operators);
    w.field("operators_with_schema", r.operators_with_schema);
    w.field("timed", r.timed);
    w.field("time_source", r.time_source);
    w.field("total_self_us", r.total_self_us);
    write_inputs(w, r);
    write_categories(w, r);
    write_iterations(w, r);
    write_top_operators(w, r, top_n);
    write_collectives(w, r);
    write_balance(w, r);
    write_replay(w, r);
    write_memory(w, r);
    w.key("device").begin_object().field("events", r.device_events).field("busy_us", r.device_busy_us).end_object();
    if (r.link.present) {
        w.key("link").begin_object();
        for (const auto& [key, value] : r.link.stats) w.field(key, value);
        w.end_object();
    } else {
        w.key("link").null();
    }
    w.end_object();
    std::string out = w.str();
    out.push_back('\n');
    return out;
}

}  // namespace mimic::analysis

#include "model/cost_db.h"

#include <simdjson.h>

#include <algorithm>

#include "support/error.h"
#include "support/json_file.h"
#include "support/json_writer.h"
#include "support/output.h"

namespace mimic::model {
namespace {

double number(simdjson::dom::element e, const std::string& path, const char* field) { return json_number(e, path, field); }

}  // namespace

CostDb read_cost_db(const std::string& path) {
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS) fail({path, -1, -1, ""}, "cannot open the cost database");
    simdjson::dom::object root;
    if (parser.parse(text).get(root) != simdjson::SUCCESS) fail({path, -1, -1, ""}, "not a JSON object");
    std::string_view format;
    if (root["format"].get(format) != simdjson::SUCCESS || format != "mimic-costs")
        fail({path, -1, -1, "format"}, "not a mimic cost database (format \"mimic-costs\")");
    int64_t version = 0;
    if (root["version"].get(version) != simdjson::SUCCESS || version < 1 || version > kCostDbVersion)
        fail({path, -1, -1, "version"}, "version " + std::to_string(version) + " is not one this mimic reads (1.." +
                                            std::to_string(kCostDbVersion) + ")");
    CostDb db;
    db.source = path;
    simdjson::dom::element machine;
    if (root["machine"].get(machine) == simdjson::SUCCESS) {
        if (auto m = machine_from_json(machine, path)) {
            db.machine = *m;
            db.has_machine = true;
        }
    }
    simdjson::dom::object host;
    if (root["host"].get(host) == simdjson::SUCCESS) {
        for (auto f : host) {
            if (f.key == "python_op_us") db.host.python_op_us = number(f.value, path, "host.python_op_us");
            else if (f.key == "autograd_op_us") db.host.autograd_op_us = number(f.value, path, "host.autograd_op_us");
            else if (f.key == "fresh_page_share") db.host.fresh_page_share = number(f.value, path, "host.fresh_page_share");
            else if (f.key == "fault_us") db.host.fault_us = number(f.value, path, "host.fault_us");
            else if (f.key == "per_op_us") {
                simdjson::dom::object per;
                if (f.value.get(per) != simdjson::SUCCESS) fail({path, -1, -1, "host.per_op_us"}, "expected an object");
                for (auto e : per) db.host.per_op_us[std::string(e.key)] = number(e.value, path, "host.per_op_us");
            } else if (f.key == "fitted_on") {
                simdjson::dom::array list;
                if (f.value.get(list) != simdjson::SUCCESS) fail({path, -1, -1, "host.fitted_on"}, "expected a list");
                for (auto item : list) {
                    std::string_view s;
                    if (item.get(s) == simdjson::SUCCESS) db.host.fitted_on.emplace_back(s);
                }
            }
        }
    }
    simdjson::dom::array ops;
    if (root["ops"].get(ops) != simdjson::SUCCESS) fail({path, -1, -1, "ops"}, "missing list");
    size_t index = 0;
    for (simdjson::dom::element e : ops) {
        const std::string where = "ops[" + std::to_string(index++) + "]";
        simdjson::dom::object o;
        if (e.get(o) != simdjson::SUCCESS) fail({path, -1, -1, where}, "expected an object");
        OpCost c;
        std::string_view s;
        if (o["signature"].get(s) != simdjson::SUCCESS) fail({path, -1, -1, where + ".signature"}, "missing");
        c.signature = std::string(s);
        if (o["name"].get(s) == simdjson::SUCCESS) c.name = std::string(s);
        if (o["family"].get(s) == simdjson::SUCCESS) c.family = family_from_name(s);
        simdjson::dom::element v;
        if (o["flops"].get(v) == simdjson::SUCCESS) c.flops = static_cast<int64_t>(number(v, path, "flops"));
        if (o["bytes"].get(v) == simdjson::SUCCESS) c.bytes = static_cast<uint64_t>(number(v, path, "bytes"));
        if (o["time_us"].get(v) != simdjson::SUCCESS) fail({path, -1, -1, where + ".time_us"}, "missing");
        c.time_us = number(v, path, "time_us");
        if (!(c.time_us >= 0)) fail({path, -1, -1, where + ".time_us"}, "must be >= 0");
        if (o["samples"].get(v) == simdjson::SUCCESS) c.samples = static_cast<int>(number(v, path, "samples"));
        if (o["threads"].get(v) == simdjson::SUCCESS) c.threads = static_cast<int>(number(v, path, "threads"));
        bool sweep = false;
        if (o["sweep"].get(sweep) == simdjson::SUCCESS) c.from_sweep = sweep;
        bool stale = false;
        if (o["stale_bytes"].get(stale) == simdjson::SUCCESS) c.bytes_current = !stale;
        if (version < 2 && c.family == OpFamily::Embedding) c.bytes_current = false;
        db.add(c);
    }
    return db;
}

std::vector<int> CostDb::thread_counts() const {
    std::vector<int> out;
    for (const auto& [key, c] : ops)
        if (std::find(out.begin(), out.end(), c.threads) == out.end()) out.push_back(c.threads);
    std::sort(out.begin(), out.end());
    return out;
}

void write_cost_db(const CostDb& db, const std::string& path) {
    JsonWriter w(1);
    w.begin_object().field("format", "mimic-costs").field("version", kCostDbVersion);
    if (db.has_machine) {
        w.key("machine");
        write_machine_json(w, db.machine);
    }
    w.key("host").begin_object();
    w.field("python_op_us", db.host.python_op_us).field("autograd_op_us", db.host.autograd_op_us);
    w.field("fresh_page_share", db.host.fresh_page_share).field("fault_us", db.host.fault_us);
    w.key("per_op_us").begin_object();
    for (const auto& [k, v] : db.host.per_op_us) w.field(k, v);
    w.end_object();
    w.key("fitted_on").begin_array();
    for (const auto& f : db.host.fitted_on) w.value(f);
    w.end_array().end_object();
    w.key("ops").begin_array();
    for (const auto& [sig, c] : db.ops) {
        w.begin_object().field("signature", c.signature).field("name", c.name).field("family", family_name(c.family));
        w.field("flops", static_cast<long long>(c.flops)).field("bytes", c.bytes).field("time_us", c.time_us);
        w.field("samples", c.samples).field("threads", c.threads);
        if (c.from_sweep) w.field("sweep", true);
        if (!c.bytes_current) w.field("stale_bytes", true);
        w.end_object();
    }
    w.end_array().end_object();
    write_output(path, w.str() + "\n");
}

}  // namespace mimic::model

#include "predict_what_if.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <set>

#include <simdjson.h>

#include "analysis/text_table.h"
#include "support/error.h"
#include "support/json_file.h"
#include "support/json_writer.h"
#include "support/output.h"
#include "support/temp_dir.h"

namespace mimic::cli {
namespace {

// Breakdown fields a row shows where any value has them: the single-trace
// report's, then the many-rank report's.
constexpr const char* kColumns[] = {"compute_ms",          "host_overhead_ms", "page_faults_ms",
                                    "compute_and_host_ms", "communication_ms", "exposed_communication_ms"};

struct Row {
    std::string value;
    bool ok = false;
    std::string error;
    double iteration_ms = 0;  // or, for a GPU estimate, its kernel time (metric says which)
    std::string metric = "iteration_ms";
    std::vector<std::pair<std::string, double>> breakdown;
    int64_t family_model_ops = -1;  // -1: the report does not say
    int64_t ops = -1;
};

bool integral_setting(const std::string& s) { return s == "threads" || s == "ranks"; }

void check_value(const std::string& setting, const std::string& value) {
    char* end = nullptr;
    const double v = std::strtod(value.c_str(), &end);
    const bool number = !value.empty() && end == value.c_str() + value.size() && std::isfinite(v);
    if (!number || v <= 0)
        fail({"--what-if", -1, -1, setting}, "'" + value + "' is not a positive number");
    if (integral_setting(setting) && (v != std::floor(v) || v > 1e6))
        fail({"--what-if", -1, -1, setting}, "'" + value + "' is not a whole number of " + setting);
}

Row read_row(const std::string& value, const std::string& json_path) {
    Row row;
    row.value = value;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object report = parse_json_object_file(json_path, parser, text);
    simdjson::dom::element e;
    // A GPU trace's estimate has no iteration, only its kernels' time.
    if (report["iteration_ms"].get(e) && !report["estimated_kernel_ms"].get(e)) row.metric = "estimated_kernel_ms";
    if (report[row.metric].get(e)) fail({json_path, -1, -1, row.metric}, "missing from the prediction");
    row.iteration_ms = json_number(e, json_path, row.metric);
    simdjson::dom::object breakdown;
    if (!report["breakdown"].get_object().get(breakdown))
        for (const char* key : kColumns)
            if (!breakdown[key].get(e)) row.breakdown.push_back({key, json_number(e, json_path, key)});
    simdjson::dom::object ops;
    int64_t n = 0;
    if (!report["ops"].get_object().get(ops)) {
        if (!ops["family_model"].get_int64().get(n)) row.family_model_ops = n;
        if (!ops["total"].get_int64().get(n)) row.ops = n;
    }
    row.ok = true;
    return row;
}


}  // namespace

WhatIf parse_what_if(const std::string& text) {
    const size_t eq = text.find('=');
    if (eq == std::string::npos || eq == 0)
        fail({"--what-if", -1, -1, ""}, "'" + text + "': expected SETTING=V1,V2,... (settings: batch-scale, threads, ranks, device)");
    WhatIf w;
    w.setting = text.substr(0, eq);
    if (w.setting != "batch-scale" && w.setting != "device" && !integral_setting(w.setting))
        fail({"--what-if", -1, -1, w.setting}, "unknown setting (settings: batch-scale, threads, ranks, device)");
    std::set<std::string> seen;
    size_t from = eq + 1;
    while (true) {
        const size_t comma = text.find(',', from);
        const std::string v = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
        if (w.setting == "device") {
            if (v.empty()) fail({"--what-if", -1, -1, w.setting}, "an empty device name");
        } else {
            check_value(w.setting, v);
        }
        if (!seen.insert(v).second) fail({"--what-if", -1, -1, w.setting}, "'" + v + "' is given twice");
        w.values.push_back(v);
        if (comma == std::string::npos) break;
        from = comma + 1;
    }
    if (w.values.size() < 2) fail({"--what-if", -1, -1, w.setting}, "give two values or more to compare (SETTING=V1,V2,...)");
    return w;
}

int run_what_if(const WhatIf& what_if, const PredictOneValue& predict, const std::string& json_out) {
    const TempDir dir("mimic-what-if");
    std::vector<Row> rows;
    for (size_t i = 0; i < what_if.values.size(); ++i) {
        const std::string& value = what_if.values[i];
        std::fprintf(stderr, "mimic predict: what if %s = %s (%zu of %zu)\n", what_if.setting.c_str(), value.c_str(), i + 1,
                     what_if.values.size());
        const std::string path = dir.path() + "/" + std::to_string(i) + ".json";
        try {
            predict(value, path);
            rows.push_back(read_row(value, path));
        } catch (const Error& e) {
            Row failed;
            failed.value = value;
            failed.error = e.what();
            std::fprintf(stderr, "mimic predict: %s = %s: %s\n", what_if.setting.c_str(), value.c_str(), e.what());
            rows.push_back(failed);
        }
    }
    // Fastest first; values that could not be predicted last, in the order given.
    std::stable_sort(rows.begin(), rows.end(), [](const Row& a, const Row& b) {
        if (a.ok != b.ok) return a.ok;
        return a.ok && a.iteration_ms < b.iteration_ms;
    });
    const double fastest = rows.front().ok ? rows.front().iteration_ms : 0;
    std::vector<std::string> columns;
    for (const char* key : kColumns)
        for (const Row& r : rows)
            if (std::any_of(r.breakdown.begin(), r.breakdown.end(), [&](const auto& kv) { return kv.first == key && kv.second != 0; })) {
                columns.push_back(key);
                break;
            }
    const bool any_modelled = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return r.family_model_ops > 0; });
    const bool failed = std::any_of(rows.begin(), rows.end(), [](const Row& r) { return !r.ok; });

    if (!json_out.empty()) {
        JsonWriter w;
        w.begin_object().field("what_if", what_if.setting).key("results").begin_array();
        int rank = 0;
        for (const Row& r : rows) {
            w.begin_object().field("value", r.value);
            if (r.ok) {
                w.field("rank", ++rank).field(r.metric, r.iteration_ms).field("vs_fastest_pct", 100.0 * (r.iteration_ms / fastest - 1));
                w.key("breakdown").begin_object();
                for (const auto& [k, v] : r.breakdown) w.field(k, v);
                w.end_object();
                if (r.ops >= 0) w.field("ops", r.ops).field("family_model_ops", r.family_model_ops);
            } else {
                w.field("error", r.error);
            }
            w.end_object();
        }
        w.end_array().end_object();
        write_output(json_out, w.str() + "\n");
        if (json_out == "-") return failed ? 1 : 0;
    }

    using analysis::TextTable;
    const auto R = TextTable::Align::Right;
    const std::string metric = rows.front().ok ? rows.front().metric : "iteration_ms";
    std::vector<std::string> headers = {"rank", what_if.setting, metric, "vs_fastest"};
    std::vector<TextTable::Align> aligns = {R, R, R, R};
    for (const auto& c : columns) {
        headers.push_back(c);
        aligns.push_back(R);
    }
    if (any_modelled) {
        headers.push_back("ops_from_family_models");
        aligns.push_back(R);
    }
    TextTable table(headers, aligns);
    int rank = 0;
    for (const Row& r : rows) {
        if (!r.ok) continue;
        std::vector<std::string> cells = {std::to_string(++rank), r.value, analysis::fixed(r.iteration_ms),
                                          rank == 1 ? std::string("fastest") : "+" + analysis::fixed(100.0 * (r.iteration_ms / fastest - 1), 1) + "%"};
        for (const auto& c : columns) {
            auto it = std::find_if(r.breakdown.begin(), r.breakdown.end(), [&](const auto& kv) { return kv.first == c; });
            cells.push_back(it == r.breakdown.end() ? "" : analysis::fixed(it->second));
        }
        if (any_modelled) cells.push_back(r.ops >= 0 ? std::to_string(r.family_model_ops) + " of " + std::to_string(r.ops) : "");
        table.add_row(cells);
    }
    std::printf("what if %s were each of %zu values: %s, fastest first\n", what_if.setting.c_str(), what_if.values.size(),
                metric == "iteration_ms" ? "predicted iteration" : "GPU kernel time ESTIMATED from nominal peaks (data/devices), not measured");
    std::printf("%s", table.render().c_str());
    for (const Row& r : rows)
        if (!r.ok) std::printf("  %s = %s: not predicted: %s\n", what_if.setting.c_str(), r.value.c_str(), r.error.c_str());
    if (any_modelled)
        std::printf("ops from family models: shapes the cost database has not measured (calibrate --batch-scales, --threads "
                    "measures them)\n");
    return failed ? 1 : 0;
}

}  // namespace mimic::cli

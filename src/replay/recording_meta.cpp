#include "replay/recording_meta.h"

#include <simdjson.h>

#include "support/error.h"

namespace mimic::replay {

RecordingMeta read_recording_meta(const std::string& path) {
    simdjson::dom::parser parser;
    simdjson::dom::element doc;
    if (auto err = parser.load(path).get(doc)) fail({path, -1, -1, ""}, std::string("cannot read meta.json: ") + simdjson::error_message(err));
    if (!doc.is_object()) fail({path, -1, -1, ""}, "meta.json is not a JSON object");
    RecordingMeta meta;
    auto number = [&](const char* key, std::optional<double>& out) {
        simdjson::dom::element e;
        if (doc[key].get(e) || e.is_null()) return;
        double v = 0;
        if (e.get_double().get(v) || !(v >= 0)) fail({path, -1, -1, key}, "expected a non-negative number");
        out = v;
    };
    auto text = [&](const char* key, std::string& out) {
        std::string_view v;
        if (!doc[key].get_string().get(v)) out = std::string(v);
    };
    number("untraced_median_ms", meta.untraced_median_ms);
    number("traced_iteration_ms", meta.traced_iteration_ms);
    number("profiler_event_cost_us", meta.profiler_event_cost_us);
    number("probe_cost_per_op_us", meta.probe_cost_per_op_us);
    number("untraced_cpu_share", meta.untraced_cpu_share);
    number("untraced_page_faults_per_iter", meta.untraced_page_faults_per_iter);
    if (meta.untraced_cpu_share && *meta.untraced_cpu_share > 1)
        fail({path, -1, -1, "untraced_cpu_share"}, "expected a share between 0 and 1, got " +
                                                      std::to_string(*meta.untraced_cpu_share));
    simdjson::dom::object object;
    if (!doc.get_object().get(object)) meta.machine = machine_from_meta(object, path);
    if (meta.machine && meta.machine->intra_op_threads) meta.intra_op_threads = int(*meta.machine->intra_op_threads);
    if (meta.machine && meta.machine->inter_op_threads) meta.inter_op_threads = int(*meta.machine->inter_op_threads);
    text("iteration_label", meta.iteration_label);
    text("workload", meta.workload);
    return meta;
}

}  // namespace mimic::replay

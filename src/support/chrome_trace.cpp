#include "support/chrome_trace.h"

#include <simdjson.h>

#include <cstdio>

#include "support/error.h"
#include "support/json_file.h"
#include "support/output.h"

namespace mimic {

ChromeTrace::ChromeTrace() : w_(0) { w_.begin_object().key("traceEvents").begin_array(); }

void ChromeTrace::process(int64_t pid, const std::string& name) {
    w_.begin_object().field("ph", "M").field("name", "process_name").field("pid", pid).field("tid", int64_t(0));
    w_.key("args").begin_object().field("name", name).end_object().end_object();
}

void ChromeTrace::thread(int64_t pid, int64_t tid, const std::string& name) {
    w_.begin_object().field("ph", "M").field("name", "thread_name").field("pid", pid).field("tid", tid);
    w_.key("args").begin_object().field("name", name).end_object().end_object();
}

void ChromeTrace::complete(int64_t pid, int64_t tid, const std::string& name, double ts_us, double dur_us,
                           const std::vector<std::pair<std::string, double>>& args) {
    w_.begin_object().field("ph", "X").field("name", name).field("pid", pid).field("tid", tid);
    w_.field("ts", ts_us).field("dur", dur_us);
    if (!args.empty()) {
        w_.key("args").begin_object();
        for (const auto& [k, v] : args) w_.field(k, v);
        w_.end_object();
    }
    w_.end_object();
    ++events_;
}

std::string ChromeTrace::finish() {
    w_.end_array().field("displayTimeUnit", "ms").end_object();
    return w_.str() + "\n";
}

void merge_chrome_trace_parts(const std::vector<std::string>& parts, const std::string& out) {
    std::string events;
    simdjson::dom::parser parser;
    for (const std::string& path : parts) {
        simdjson::padded_string text;
        const simdjson::dom::object doc = parse_json_object_file(path, parser, text);
        simdjson::dom::array list;
        if (doc["traceEvents"].get(list) != simdjson::SUCCESS) fail({path, -1, -1, "traceEvents"}, "not a Chrome trace");
        for (simdjson::dom::element e : list) {
            if (!events.empty()) events += ',';
            events += simdjson::minify(e);
        }
    }
    write_output(out, "{\"traceEvents\":[" + events + "],\"displayTimeUnit\":\"ms\"}\n");
    for (const std::string& path : parts) std::remove(path.c_str());
}

}  // namespace mimic

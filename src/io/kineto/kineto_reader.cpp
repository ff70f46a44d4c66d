#include "io/kineto/kineto_reader.h"

#include <simdjson.h>

#include <cstdint>

#include "io/kineto/kineto_event_parser.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_file.h"
#include "support/json_stream.h"
#include "support/progress.h"

namespace mimic {

namespace {

// Names the first element of a batch that simdjson rejects, by its offset.
[[noreturn]] void fail_on_bad_element(const std::string& path, std::string_view batch,
                                      const std::vector<uint32_t>& starts, const std::vector<uint64_t>& offsets,
                                      uint64_t events_before, simdjson::error_code batch_error) {
    simdjson::dom::parser one;
    for (size_t i = 0; i < starts.size(); ++i) {
        size_t end = i + 1 < starts.size() ? starts[i + 1] - 1 : batch.size() - 1;
        simdjson::padded_string text(batch.data() + starts[i], end - starts[i]);
        simdjson::dom::element ignored;
        auto e = one.parse(text).get(ignored);
        if (e != simdjson::SUCCESS)
            fail({path, -1, static_cast<int64_t>(offsets[i]), "traceEvents"},
                 "event " + std::to_string(events_before + i) + ": " + simdjson::error_message(e));
    }
    fail({path, -1, static_cast<int64_t>(offsets.front()), "traceEvents"}, simdjson::error_message(batch_error));
}

}  // namespace

ProfileTrace read_kineto_trace(const std::string& path, const KinetoReadOptions& options) {
    ProfileTrace trace;
    trace.source_path = path;
    ByteSource source(path);
    JsonStreamer streamer(source, options.batch_bytes);
    KinetoEventParser events(trace, path);
    simdjson::dom::parser parser;
    Progress progress("reading " + path, source.file_size());
    bool saw_list = false;  // a "traceEvents" array, or a document that is an array
    bool saw_et_nodes = false;

    JsonStreamCallbacks cb;
    cb.stream_key = [&](std::string_view key) {
        // Said at once, before a multi-GB nodes list is read for nothing.
        if (key == "nodes") fail({path, -1, -1, ""}, "this is an execution trace (it has \"nodes\"), not a profiler trace");
        bool events_list = key == "traceEvents" || key.empty();
        saw_list = saw_list || events_list;
        return events_list;
    };
    cb.on_field = [&](std::string_view key, std::string_view raw, uint64_t offset) {
        if (key == "traceEvents") {
            std::string_view head = raw.substr(0, 20);
            fail({path, -1, static_cast<int64_t>(offset), "traceEvents"},
                 "expected a list of events, got " + std::string(head));
        }
        if (key == "nodes") saw_et_nodes = true;
        if (key == "distributedInfo") trace.distributed = parse_distributed_info(raw, path, offset);
    };
    cb.on_batch = [&](std::string_view, std::string_view batch, const std::vector<uint32_t>& starts,
                      const std::vector<uint64_t>& offsets) {
        simdjson::dom::element doc;
        auto error = parser.parse(batch.data(), batch.size(), false).get(doc);
        if (error != simdjson::SUCCESS)
            fail_on_bad_element(path, batch, starts, offsets, trace.stats.events, error);
        size_t i = 0;
        simdjson::dom::array list = doc.get_array().value_unsafe();  // named: a temporary would dangle in the loop
        for (simdjson::dom::element event : list) events.parse(event, offsets[i++]);
        if (options.progress) progress.update(source.file_position());
    };
    streamer.run(cb);
    progress.finish();
    trace.stats.input_bytes = source.position();
    if (saw_et_nodes)
        fail({path, -1, -1, ""}, "this is an execution trace (it has \"nodes\"), not a profiler trace");
    if (!saw_list)
        fail({path, -1, -1, "traceEvents"}, "not a profiler trace: no \"traceEvents\" list and not a list of events");
    if (trace.stats.events == 0) trace.warn(path + ": the profiler trace has no events");
    trace.finalize();
    return trace;
}

ProfileIdentity peek_profile_identity(const std::string& path) {
    ProfileIdentity id;
    const std::string text = read_file_head(path, 1 << 20);
    size_t key = text.find("\"distributedInfo\"");
    size_t open = key == std::string::npos ? std::string::npos : text.find('{', key);
    if (open != std::string::npos) {
        int depth = 0;
        bool in_string = false;
        for (size_t i = open; i < text.size(); ++i) {
            char c = text[i];
            if (in_string) {
                if (c == '\\') ++i;
                else if (c == '"') in_string = false;
                continue;
            }
            if (c == '"') in_string = true;
            if (c == '{') ++depth;
            if (c == '}' && --depth == 0) {
                id.distributed = parse_distributed_info(std::string_view(text).substr(open, i - open + 1), path, open);
                break;
            }
        }
    }
    size_t events = text.find("\"traceEvents\"");
    id.pid = json_int_after_key(text, "pid", events == std::string::npos ? 0 : events);
    return id;
}

ProfileDistributedInfo parse_distributed_info(std::string_view raw, const std::string& path, uint64_t offset) {
    ProfileDistributedInfo info;
    simdjson::dom::parser parser;
    simdjson::padded_string text(raw);
    simdjson::dom::object o;
    if (parser.parse(text).get_object().get(o) != simdjson::SUCCESS)
        fail({path, -1, static_cast<int64_t>(offset), "distributedInfo"}, "expected an object");
    int64_t v = 0;
    if (o["rank"].get_int64().get(v) == simdjson::SUCCESS) info.rank = v;
    if (o["world_size"].get_int64().get(v) == simdjson::SUCCESS) info.world_size = v;
    std::string_view b;
    if (o["backend"].get_string().get(b) == simdjson::SUCCESS) info.backend = std::string(b);
    return info;
}

}  // namespace mimic

#include "io/kineto_reader.h"

#include <simdjson.h>

#include "io/kineto_event_parser.h"
#include "support/byte_source.h"
#include "support/error.h"
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

}  // namespace mimic

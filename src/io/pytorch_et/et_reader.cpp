#include "io/pytorch_et/et_reader.h"

#include <simdjson.h>

#include <array>

#include "io/pytorch_et/et_node_parser.h"
#include "io/pytorch_et/failed_records.h"
#include "io/pytorch_et/process_groups.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_stream.h"
#include "support/progress.h"

namespace mimic {

namespace {

constexpr std::array<const char*, 7> kKnownSchemas = {
    "1.0.1", "1.0.2-chakra.0.0.4", "1.0.3-chakra.0.0.4", "1.0.4-chakra.0.0.4",
    "1.1.0-chakra.0.0.4", "1.1.1-chakra.0.0.4", "1.1.1-chakra.1.0.0",
};

// Reads one header field ("schema", "pid", ...) from its raw JSON text.
void read_header_field(Trace& trace, std::string_view key, std::string_view raw, uint64_t offset,
                       simdjson::dom::parser& parser) {
    simdjson::dom::element e;
    ErrorLocation where{trace.source_path, -1, static_cast<int64_t>(offset), std::string(key)};
    if (parser.parse(raw.data(), raw.size(), false).get(e) != simdjson::SUCCESS) fail(where, "malformed JSON value");
    std::string_view s;
    int64_t i;
    if (key == "schema") {
        if (e.get_string().get(s) != simdjson::SUCCESS) fail(where, "expected a version string");
        trace.schema_version = std::string(s);
    } else if (key == "time") {
        if (e.get_string().get(s) == simdjson::SUCCESS) trace.time = std::string(s);
    } else if (key == "pid" || key == "start_ts" || key == "finish_ts") {
        if (e.get_int64().get(i) != simdjson::SUCCESS) fail(where, "expected an integer");
        (key == "pid" ? trace.pid : key == "start_ts" ? trace.start_ts : trace.finish_ts) = i;
    } else if (key == "mimic_cut") {
        simdjson::dom::array live;
        if (e.at_key("live_out").get_array().get(live) != simdjson::SUCCESS) return;
        for (simdjson::dom::element pair : live) {
            simdjson::dom::array ids;
            uint64_t tensor = 0, storage = 0;
            if (pair.get_array().get(ids) != simdjson::SUCCESS || ids.size() != 2 ||
                ids.at(0).get_uint64().get(tensor) != simdjson::SUCCESS || ids.at(1).get_uint64().get(storage) != simdjson::SUCCESS)
                fail(where, "live_out: expected [tensor id, storage id] pairs");
            trace.live_out_tensors.emplace_back(tensor, storage);
        }
    }
    // Other header fields (e.g. "distributedInfo" in later writers) are not needed.
}

void check_schema(Trace& trace, size_t flat_nodes, size_t nested_nodes) {
    if (trace.schema_version.empty()) {
        if (trace.nodes.empty()) fail({trace.source_path, -1, -1, "schema"}, "not a PyTorch execution trace (no \"schema\" and no nodes)");
        trace.warn("the trace has no \"schema\" field; read by its node shape");
        return;
    }
    if (is_known_et_schema(trace.schema_version)) return;
    // An unknown version is read if its nodes have a shape we know.
    if (trace.nodes.empty() && flat_nodes + nested_nodes == 0) {
        fail({trace.source_path, -1, -1, "schema"},
             "unknown schema version \"" + trace.schema_version + "\" and no nodes to recognise its shape");
    }
    trace.warn("unknown schema version \"" + trace.schema_version + "\"; read as the " +
               (nested_nodes >= flat_nodes ? "nested (1.0.2+)" : "flat (1.0.1)") + " node shape");
}

}  // namespace

bool is_known_et_schema(const std::string& version) {
    for (const char* v : kKnownSchemas)
        if (version == v) return true;
    return false;
}

Trace read_pytorch_et(const std::string& path, const EtReadOptions& options) {
    Trace trace;
    trace.source_path = path;
    trace.format = TraceFormat::PyTorchEt;
    ByteSource source(path);
    JsonStreamer streamer(source, options.batch_bytes);
    EtNodeParser nodes(trace, path);
    simdjson::dom::parser parser;
    simdjson::dom::parser header_parser;
    Progress progress("reading " + path, source.file_size());
    bool saw_nodes = false;

    JsonStreamCallbacks cb;
    cb.stream_key = [&](std::string_view key) {
        if (key != "nodes") return false;
        saw_nodes = true;
        return true;
    };
    cb.on_field = [&](std::string_view key, std::string_view raw, uint64_t offset) {
        if (key == "nodes") fail({path, -1, static_cast<int64_t>(offset), "nodes"}, "expected a list of nodes");
        read_header_field(trace, key, raw, offset, header_parser);
    };
    cb.on_batch = [&](std::string_view, std::string_view batch, const std::vector<uint32_t>& starts,
                      const std::vector<uint64_t>& offsets) {
        simdjson::dom::element doc;
        auto error = parser.parse(batch.data(), batch.size(), false).get(doc);
        if (error != simdjson::SUCCESS) {
            // Find the element that broke the batch, to name its offset.
            simdjson::dom::parser one;
            for (size_t i = 0; i < starts.size(); ++i) {
                size_t end = i + 1 < starts.size() ? starts[i + 1] - 1 : batch.size() - 1;
                simdjson::padded_string node_text(batch.data() + starts[i], end - starts[i]);
                simdjson::dom::element ignored;
                auto e = one.parse(node_text).get(ignored);
                if (e != simdjson::SUCCESS)
                    fail({path, -1, static_cast<int64_t>(offsets[i]), ""},
                         std::string("node ") + std::to_string(trace.nodes.size() + i) + " of the nodes list: " +
                             simdjson::error_message(e));
            }
            fail({path, -1, static_cast<int64_t>(offsets.front()), ""}, simdjson::error_message(error));
        }
        size_t i = 0;
        simdjson::dom::array list = doc.get_array().value_unsafe();  // named: a temporary would dangle in the loop
        for (simdjson::dom::element node : list) nodes.parse(node, offsets[i++]);
        if (options.progress) progress.update(source.file_position());
    };
    streamer.run(cb);
    progress.finish();
    if (!saw_nodes && trace.schema_version.empty())
        fail({path, -1, -1, ""}, "not a PyTorch execution trace (no \"schema\" or \"nodes\")");
    if (!saw_nodes) fail({path, -1, -1, "nodes"}, "the trace has no \"nodes\" list");
    check_schema(trace, nodes.flat_nodes(), nodes.nested_nodes());
    read_process_groups(trace);
    // Every parent the observer names is a node of the same file (the root comes
    // last), so a parent that is missing or loops back means a broken file: an
    // error naming the first such node, not a warning.
    // (Chakra files keep dangling deps as warnings: see chakra_reader.cpp.)
    place_failed_records(trace);
    trace.finalize(Trace::ParentLinks::Fail, nodes.nested_nodes() >= nodes.flat_nodes() ? "ctrl_deps" : "parent");
    return trace;
}

}  // namespace mimic

#include "io/chakra/chakra_json.h"

#include <google/protobuf/stubs/logging.h>
#include <google/protobuf/util/json_util.h>

#include <cstring>

#include <filesystem>

#include "et_def.pb.h"
#include "io/chakra/chakra_json_forms.h"
#include "io/chakra/chakra_stream.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_stream.h"
#include "support/temp_dir.h"
#include "support/text.h"

namespace mimic {

namespace {

template <typename Message>
void parse_message(Message& msg, std::string_view bytes, const std::string& path, uint64_t offset, uint64_t index,
                   const char* type) {
    if (!msg.ParseFromArray(bytes.data(), static_cast<int>(bytes.size())))
        fail({path, -1, static_cast<int64_t>(offset), type},
             "message " + std::to_string(index) + " (" + std::to_string(bytes.size()) +
                 " bytes) does not parse as ChakraProtoMsg." + type);
}

void to_json(const google::protobuf::Message& msg, std::string& out, const std::string& path) {
    google::protobuf::util::JsonPrintOptions options;
    options.preserve_proto_field_names = true;    // ctrl_deps, not ctrlDeps: the names Chakra documents
    options.always_print_primitive_fields = true;  // id 0 and empty names show; encoding drops them again
    out.clear();
    auto status = google::protobuf::util::MessageToJsonString(msg, &out, options);
    if (!status.ok()) fail({path, -1, -1, ""}, "cannot print as JSON: " + std::string(status.message()));
}

}  // namespace

ChakraJsonStats dump_chakra_json(const std::string& et_path, std::ostream& out) {
    // Protobuf logs its parse complaints to stderr; ours arrive as one mimic::Error instead.
    google::protobuf::LogSilencer quiet;
    ChakraJsonStats stats;
    ChakraFrameReader frames(et_path);
    std::string_view bytes;
    uint64_t offset = 0;
    if (!frames.next(bytes, offset))
        fail({et_path, -1, 0, ""}, "empty file: a Chakra trace starts with a GlobalMetadata message");
    ChakraProtoMsg::GlobalMetadata meta;
    parse_message(meta, bytes, et_path, offset, 0, "GlobalMetadata");
    std::string json;
    to_json(meta, json, et_path);
    out << "{\"metadata\": " << json << ",\n\"nodes\": [";
    stats.bytes += 26 + json.size();
    ChakraProtoMsg::Node node;
    uint64_t index = 1;
    while (frames.next(bytes, offset)) {
        parse_message(node, bytes, et_path, offset, index++, "Node");
        to_json(node, json, et_path);
        out << (stats.nodes ? ",\n" : "\n") << json;
        stats.bytes += json.size() + 2;
        ++stats.nodes;
    }
    out << "\n]}\n";
    stats.bytes += 4;
    if (!out) fail({"", -1, -1, ""}, "write error while dumping " + et_path);
    return stats;
}

namespace {

// mimic's own dump: {"metadata": {...}, "nodes": [...]}, in either order.
void encode_dump(const std::string& json_path, ChakraFrameWriter& out, ChakraJsonStats& stats) {
    ByteSource source(json_path);
    JsonStreamer streamer(source);
    google::protobuf::util::JsonParseOptions options;  // strict: unknown fields are errors
    ChakraProtoMsg::GlobalMetadata meta;
    ChakraProtoMsg::Node node;
    bool have_metadata = false;
    std::string held;  // nodes met before the metadata, already framed
    std::string framed;

    auto parse_json = [&](google::protobuf::Message& msg, std::string_view text, uint64_t offset,
                          const std::string& what) {
        msg.Clear();
        auto status = google::protobuf::util::JsonStringToMessage(
            google::protobuf::StringPiece(text.data(), text.size()), &msg, options);
        if (!status.ok())
            fail({json_path, -1, static_cast<int64_t>(offset), what},
                 "does not map to the Chakra schema: " + std::string(status.message()));
    };

    JsonStreamCallbacks callbacks;
    callbacks.stream_key = [](std::string_view key) { return key == "nodes"; };
    callbacks.on_field = [&](std::string_view key, std::string_view raw, uint64_t offset) {
        if (key != "metadata") return;  // other keys are commentary
        parse_json(meta, raw, offset, "metadata");
        out.write(meta);
        have_metadata = true;
        if (!held.empty()) {
            for (size_t pos = 0; pos < held.size();) {
                // held holds [uint32 size][bytes] records
                uint32_t size = 0;
                std::memcpy(&size, held.data() + pos, 4);
                out.write_bytes(std::string_view(held.data() + pos + 4, size));
                pos += 4 + size;
            }
            held.clear();
        }
    };
    callbacks.on_batch = [&](std::string_view, std::string_view batch, const std::vector<uint32_t>& starts,
                             const std::vector<uint64_t>& offsets) {
        for (size_t i = 0; i < starts.size(); ++i) {
            const size_t end = i + 1 < starts.size() ? starts[i + 1] - 1 : batch.size() - 1;
            parse_json(node, batch.substr(starts[i], end - starts[i]), offsets[i],
                       "nodes[" + std::to_string(stats.nodes) + "]");
            ++stats.nodes;
            if (have_metadata) {
                out.write(node);
                continue;
            }
            framed.clear();
            node.SerializeToString(&framed);
            const uint32_t size = static_cast<uint32_t>(framed.size());
            held.append(reinterpret_cast<const char*>(&size), 4);
            held += framed;
        }
    };
    streamer.run(callbacks);
    if (!have_metadata)
        fail({json_path, -1, -1, "metadata"}, "no \"metadata\" object: a Chakra trace starts with its GlobalMetadata");
}

ChakraJsonForm form_of(const std::string& path) { return chakra_json_form(read_file_head(path, 1 << 16)); }

}  // namespace

bool is_chakra_json(const std::string& path) { return form_of(path) != ChakraJsonForm::NotChakra; }

namespace {

// The JSON at `json_path`, of the form already found, as the trace `et_path`.
ChakraJsonStats encode_form(const std::string& json_path, ChakraJsonForm form, const std::string& et_path) {
    // Protobuf logs its parse complaints to stderr; ours arrive as one mimic::Error instead.
    google::protobuf::LogSilencer quiet;
    ChakraJsonStats stats;
    ChakraFrameWriter out(et_path);
    // Anything not recognised as Chakra's own forms goes to the dump's reader,
    // which names what is missing (a hand-edited dump may list its nodes first).
    if (form != ChakraJsonForm::Feeder && form != ChakraJsonForm::Jsonizer) {
        encode_dump(json_path, out, stats);
    } else {
        const ChakraJsonEncodeNotes notes = form == ChakraJsonForm::Feeder ? encode_chakra_feeder_json(json_path, out)
                                                                           : encode_chakra_jsonizer_json(json_path, out);
        stats.nodes = notes.nodes;
        for (const std::string& f : notes.ignored_fields)
            stats.warnings.push_back("field " + f + " has no place in a Chakra node and was dropped");
    }
    out.close();
    stats.bytes = out.bytes_written();
    return stats;
}

Trace read_form(const std::string& json_path, ChakraJsonForm form, const ChakraReadOptions& options) {
    // The same messages in a .et file, read by the one Chakra reader. Named
    // like the JSON with ".et" for ".json", so a rank in the name carries over.
    TempDir dir("mimic-chakra-json");
    std::string name = std::filesystem::path(json_path).filename().string();
    if (ends_with(name, ".gz")) name.resize(name.size() - 3);
    if (ends_with(name, ".json")) name.resize(name.size() - 5);
    const std::string et_path = dir.path() + "/" + name + ".et";
    const ChakraJsonStats stats = encode_form(json_path, form, et_path);
    Trace trace;
    try {
        trace = read_chakra(et_path, options);
    } catch (const Error& e) {
        // Name the user's file, not the temporary one (byte offsets are then the encoded trace's).
        std::string message = e.what();
        const std::string named = json_path + " (as Chakra protobuf)";
        for (size_t at = message.find(et_path); at != std::string::npos; at = message.find(et_path, at + named.size()))
            message.replace(at, et_path.size(), named);
        throw Error(message);
    }
    trace.source_path = json_path;
    for (const std::string& w : stats.warnings) trace.warn(w);
    return trace;
}

}  // namespace

ChakraJsonStats encode_chakra_json(const std::string& json_path, const std::string& et_path) {
    return encode_form(json_path, form_of(json_path), et_path);
}

Trace read_chakra_json(const std::string& json_path, const ChakraReadOptions& options) {
    return read_form(json_path, form_of(json_path), options);
}

Trace read_chakra_any(const std::string& path, const ChakraReadOptions& options) {
    const ChakraJsonForm form = form_of(path);  // found once, for both the choice and the encoding
    return form != ChakraJsonForm::NotChakra ? read_form(path, form, options) : read_chakra(path, options);
}

}  // namespace mimic

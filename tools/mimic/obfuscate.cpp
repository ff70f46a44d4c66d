// mimic obfuscate TRACE -o OUT [--keep REGEX] [--map MAP.json] [--json FILE]
// mimic obfuscate --reveal REPORT --map MAP.json [-o OUT]
// Writes a copy of an execution trace that can be shared: the owner's names
// renamed consistently (compose/obfuscate.h), the graph, shapes and PyTorch's
// operators kept. The map (read when it exists, then extended) keeps aliases
// the same across ranks and runs, and --reveal translates a report back.
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "compose/obfuscate.h"
#include "io/recording/recording_dir.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_writer.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

namespace fs = std::filesystem;

struct ObfuscateArgs {
    std::string trace;
    std::string out;
    std::string keep;
    std::string map;
    std::string reveal;
    std::string json;
};

struct Written {
    std::string input;
    std::string output;
    compose::ObfuscateStats stats;
};

std::string summary_json(const std::vector<Written>& all, const compose::AliasMap& map, const std::string& map_path) {
    JsonWriter w;
    w.begin_object().key("outputs").begin_array();
    for (const Written& x : all)
        w.begin_object()
            .field("input", x.input)
            .field("output", x.output)
            .field("nodes", x.stats.nodes)
            .field("renamed_names", x.stats.renamed_names)
            .field("renamed_strings", x.stats.renamed_strings)
            .field("rewritten_schemas", x.stats.rewritten_schemas)
            .end_object();
    w.end_array().field("aliases", map.size()).field("map", map_path).end_object();
    return w.str();
}

int reveal(const ObfuscateArgs& args) {
    if (args.map.empty()) fail({args.reveal, -1, -1, "--map"}, "--reveal needs the --map the trace was obfuscated with");
    compose::AliasMap map = compose::AliasMap::read(args.map);
    write_output(args.out.empty() ? "-" : args.out, map.reveal(read_whole_file(args.reveal)));
    return 0;
}

// One output path per input: OUT itself for one trace file, else OUT/<rank dir>/<file>.
std::string output_path(const ObfuscateArgs& args, const TraceInput& in, size_t index, size_t count) {
    if (count == 1 && in.profile_path.empty() && in.meta_path.empty() && !fs::is_directory(args.out)) return args.out;
    fs::path name = fs::path(in.trace_path).filename();
    fs::path dir = count == 1 ? fs::path(args.out) : fs::path(args.out) / ("rank" + std::to_string(index));
    std::error_code ec;
    fs::create_directories(dir, ec);
    if (ec) fail({dir.string(), -1, -1, "-o"}, "cannot create the output directory: " + ec.message());
    return (dir / name).string();
}

int run(const ObfuscateArgs& args) {
    if (!args.reveal.empty()) return reveal(args);
    if (args.trace.empty() || args.out.empty()) fail({"", -1, -1, "-o"}, "give TRACE and -o OUT (or --reveal FILE)");
    compose::AliasMap map = !args.map.empty() && fs::exists(args.map) ? compose::AliasMap::read(args.map) : compose::AliasMap();
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    std::vector<Written> written;
    for (size_t i = 0; i < inputs.size(); ++i) {
        compose::EtDocument doc = compose::EtDocument::read(inputs[i].trace_path);
        print_read_warnings(doc.path(), doc.warnings());
        compose::ObfuscateStats stats = compose::obfuscate_trace(doc, map, {args.keep});
        std::string out = output_path(args, inputs[i], i, inputs.size());
        doc.write(out);
        written.push_back({inputs[i].trace_path, out, stats});
        // A recording's other files, so the shared copy replays and compares as the original does.
        fs::path dir = fs::path(out).parent_path();
        if (!inputs[i].profile_path.empty()) {
            compose::JsonValue profile = compose::read_json_file(inputs[i].profile_path);
            compose::ObfuscateStats ps = compose::obfuscate_profile(profile, map, {args.keep}, inputs[i].profile_path);
            std::string profile_out = (dir / fs::path(inputs[i].profile_path).filename()).string();
            compose::write_json_file(profile_out, profile, false);
            written.push_back({inputs[i].profile_path, profile_out, ps});
        }
        if (!inputs[i].meta_path.empty()) {
            compose::JsonValue meta = compose::read_json_file(inputs[i].meta_path);
            compose::ObfuscateStats ms = compose::obfuscate_meta(meta, map);
            std::string meta_out = (dir / "meta.json").string();
            compose::write_json_file(meta_out, meta, false);
            written.push_back({inputs[i].meta_path, meta_out, ms});
            // Numbers per node id, and the recorder's own words: copied as they are.
            copy_recording_op_files(inputs[i].meta_path, dir.string());
        }
    }
    if (!args.map.empty()) map.write(args.map);
    if (!args.json.empty()) write_output(args.json, summary_json(written, map, args.map));
    if (args.json == "-") return 0;
    for (const Written& w : written)
        std::printf("%s -> %s: %llu nodes/events, %llu names and %llu other strings renamed, %llu custom-op schemas anonymized\n",
                    w.input.c_str(), w.output.c_str(), static_cast<unsigned long long>(w.stats.nodes),
                    static_cast<unsigned long long>(w.stats.renamed_names),
                    static_cast<unsigned long long>(w.stats.renamed_strings),
                    static_cast<unsigned long long>(w.stats.rewritten_schemas));
    std::printf("%zu aliases%s\n", map.size(), args.map.empty() ? " (no --map: the aliases are not kept)" : (" in " + args.map).c_str());
    return 0;
}

const Registrar registrar{{
    "obfuscate",
    "Rename what reveals a trace's owner (labels, module, custom op and file names) so it can be shared",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<ObfuscateArgs>();
        app.add_option("trace", a->trace, "ET (.json/.json.gz), a `mimic record` directory, or a directory of ranks");
        app.add_option("-o,--out", a->out,
                       "output ET (.json or .json.gz); a directory for a recording or several ranks");
        app.add_option("--keep", a->keep, "node names matching this regex stay as they are");
        app.add_option("--map", a->map,
                       "alias map JSON: read when it exists, extended and written back (same aliases for every rank)");
        app.add_option("--reveal", a->reveal, "translate a report on the obfuscated trace back with --map (to -o or stdout)");
        app.add_option("--json", a->json, "also write a summary as JSON to FILE ('-': JSON alone on stdout)");
        app.footer("Example: mimic obfuscate rec/et.json.gz -o shared_et.json.gz --map owner_map.json");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli

// mimic cut TRACE (--iteration I | --subtree LABEL_OR_NODE | --ops REGEX | --nodes A..B) -o OUT [--json FILE]
// Writes one region of an execution trace as an ET of the same schema
// version (compose/cut.h), e.g. to replay one layer as a benchmark; a cut of
// a recording directory into a directory is a recording itself.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "compose/cut.h"
#include "io/recording/recording_dir.h"
#include "support/error.h"
#include "support/json_writer.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct CutArgs {
    std::string trace;
    std::string out;
    std::string iteration, subtree, ops, nodes;
    std::string json;
};

compose::CutSelection selection_of(const CutArgs& a) {
    std::vector<compose::CutSelection> given;
    if (!a.iteration.empty()) given.push_back({compose::CutSelection::Mode::Iteration, a.iteration});
    if (!a.subtree.empty()) given.push_back({compose::CutSelection::Mode::Subtree, a.subtree});
    if (!a.ops.empty()) given.push_back({compose::CutSelection::Mode::Ops, a.ops});
    if (!a.nodes.empty()) given.push_back({compose::CutSelection::Mode::Nodes, a.nodes});
    if (given.size() != 1)
        fail({a.trace, -1, -1, ""}, "give exactly one of --iteration, --subtree, --ops and --nodes");
    return given.front();
}

bool names_a_json_file(const std::string& path) {
    for (const char* ext : {".json", ".json.gz"}) {
        const std::string e(ext);
        if (path.size() >= e.size() && path.compare(path.size() - e.size(), e.size(), e) == 0) return true;
    }
    return false;
}

// meta.json's figures of the whole iteration: not the cut's, so a replay of
// the cut must not compare with them. Per-op files are keyed by node id and
// stay valid for the cut's nodes.
constexpr const char* kWholeIterationFields[] = {
    "untraced_iteration_ms", "untraced_median_ms", "untraced_min_ms", "untraced_thread_cpu_ms", "untraced_cpu_share",
    "untraced_page_faults_per_iter", "traced_iteration_ms", "profiled_iterations_ms", "et_iteration_ms",
    "instrumentation_overhead_ms", "instrumentation_overhead_ratio", "instrumentation_overhead_per_op_us",
    "profile_file", "iteration_label"};

// A cut of a recording, as a recording: the region replays with the
// original's page faults, layouts and per-op times, as inside the full one.
std::string write_cut_recording(const TraceInput& in, const compose::EtDocument& doc, const compose::CutStats& s,
                                const std::string& out_dir) {
    std::error_code ec;
    std::filesystem::create_directories(out_dir, ec);
    if (ec) fail({out_dir, -1, -1, "-o"}, "cannot create the output directory: " + ec.message());
    const std::string et = (std::filesystem::path(out_dir) / "et.json.gz").string();
    doc.write(et);
    compose::JsonValue meta = compose::read_json_file(in.meta_path);
    auto& members = meta.members();
    members.erase(std::remove_if(members.begin(), members.end(),
                                 [](const compose::JsonValue::Member& m) {
                                     for (const char* f : kWholeIterationFields)
                                         if (m.first == f) return true;
                                     return false;
                                 }),
                  members.end());
    meta["et_file"] = compose::JsonValue::of_string("et.json.gz");
    compose::JsonValue cut = compose::JsonValue::object();
    cut["from"] = compose::JsonValue::of_string(in.trace_path);
    cut["region"] = compose::JsonValue::of_string(s.description);
    meta["cut"] = std::move(cut);
    compose::write_json_file((std::filesystem::path(out_dir) / "meta.json").string(), meta, false);
    copy_recording_op_files(in.meta_path, out_dir);
    return et;
}

int run(const CutArgs& args) {
    compose::CutSelection selection = selection_of(args);
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (inputs.size() != 1)
        fail({args.trace, -1, -1, ""}, "holds " + std::to_string(inputs.size()) + " rank traces; cut one at a time");
    compose::EtDocument doc = compose::EtDocument::read(inputs.front().trace_path);
    print_read_warnings(doc.path(), doc.warnings());
    compose::CutStats s = compose::cut_trace(doc, selection);
    const bool recording = !inputs.front().meta_path.empty() && !names_a_json_file(args.out);
    if (recording)
        write_cut_recording(inputs.front(), doc, s, args.out);
    else
        doc.write(args.out);
    if (!args.json.empty()) {
        JsonWriter w;
        w.begin_object()
            .field("input", inputs.front().trace_path)
            .field("output", args.out)
            .field("schema", doc.schema())
            .field("cut", s.description)
            .field("nodes_before", s.nodes_before)
            .field("nodes_after", s.nodes_after)
            .field("regions", s.regions)
            .field("first_id", s.first_id)
            .field("last_id", s.last_id)
            .field("external_tensors", s.external_tensors)
            .field("live_out_tensors", s.live_out_tensors)
            .end_object();
        write_output(args.json, w.str());
    }
    if (args.json == "-") return 0;
    std::printf("%s -> %s (schema %s): %s\n", inputs.front().trace_path.c_str(), args.out.c_str(), doc.schema().c_str(),
                s.description.c_str());
    std::printf("  %llu of %llu nodes kept (ids %llu..%llu); %llu tensors made before the cut become inputs, %llu read after it "
                "are kept to the end\n",
                static_cast<unsigned long long>(s.nodes_after), static_cast<unsigned long long>(s.nodes_before),
                static_cast<unsigned long long>(s.first_id), static_cast<unsigned long long>(s.last_id),
                static_cast<unsigned long long>(s.external_tensors), static_cast<unsigned long long>(s.live_out_tensors));
    return 0;
}

const Registrar registrar{{
    "cut",
    "Write one region of a trace (an iteration, a subtree, matching ops, an id range) as a smaller ET",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<CutArgs>();
        app.add_option("trace", a->trace, "ET (.json/.json.gz) or a `mimic record` directory")->required();
        app.add_option("-o,--out", a->out,
                       "output ET (.json or .json.gz); for a recording, a directory: the cut as a recording (its meta.json "
                       "without the whole iteration's times, the per-op files), which replays with the original's page "
                       "faults and layouts as inside the full replay")
            ->required();
        app.add_option("--iteration", a->iteration, "ProfilerStep#N (give N), else the N-th (0-based) ProfilerStep label");
        app.add_option("--subtree", a->subtree, "a node id, or a node's exact name (its first occurrence), with everything below it");
        app.add_option("--ops", a->ops, "every node whose name matches this regex (outermost matches), with what runs inside");
        app.add_option("--nodes", a->nodes, "A..B: the node ids A to B inclusive, with everything below them");
        app.add_option("--json", a->json, "also write a summary as JSON to FILE ('-': JSON alone on stdout)");
        app.footer("Example: mimic cut rec --nodes 57..228 -o rec_forward && mimic replay rec_forward");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli

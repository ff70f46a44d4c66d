// mimic cut TRACE (--iteration I | --subtree LABEL_OR_NODE | --ops REGEX | --nodes A..B) -o OUT [--json FILE]
// Writes one region of an execution trace as an ET of the same schema
// version (compose/cut.h), e.g. to replay one layer as a benchmark.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "compose/cut.h"
#include "io/recording_dir.h"
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

int run(const CutArgs& args) {
    compose::CutSelection selection = selection_of(args);
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (inputs.size() != 1)
        fail({args.trace, -1, -1, ""}, "holds " + std::to_string(inputs.size()) + " rank traces; cut one at a time");
    compose::EtDocument doc = compose::EtDocument::read(inputs.front().trace_path);
    compose::CutStats s = compose::cut_trace(doc, selection);
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
            .end_object();
        write_output(args.json, w.str());
    }
    if (args.json == "-") return 0;
    std::printf("%s -> %s (schema %s): %s\n", inputs.front().trace_path.c_str(), args.out.c_str(), doc.schema().c_str(),
                s.description.c_str());
    std::printf("  %llu of %llu nodes kept (ids %llu..%llu); %llu tensors made before the cut become inputs\n",
                static_cast<unsigned long long>(s.nodes_after), static_cast<unsigned long long>(s.nodes_before),
                static_cast<unsigned long long>(s.first_id), static_cast<unsigned long long>(s.last_id),
                static_cast<unsigned long long>(s.external_tensors));
    return 0;
}

const Registrar registrar{{
    "cut",
    "Write one region of a trace (an iteration, a subtree, matching ops, an id range) as a smaller ET",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<CutArgs>();
        app.add_option("trace", a->trace, "ET (.json/.json.gz) or a `mimic record` directory")->required();
        app.add_option("-o,--out", a->out, "output ET (.json or .json.gz)")->required();
        app.add_option("--iteration", a->iteration, "ProfilerStep#N (give N), else the N-th (0-based) ProfilerStep label");
        app.add_option("--subtree", a->subtree, "a node id, or a node's exact name (its first occurrence), with everything below it");
        app.add_option("--ops", a->ops, "every node whose name matches this regex (outermost matches), with what runs inside");
        app.add_option("--nodes", a->nodes, "A..B: the node ids A to B inclusive, with everything below them");
        app.add_option("--json", a->json, "also write a summary as JSON to FILE ('-': JSON alone on stdout)");
        app.footer("Example: mimic cut rec/et.json.gz --subtree '## forward ##' -o forward_et.json.gz && mimic replay forward_et.json.gz");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli

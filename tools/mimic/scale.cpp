// mimic scale TRACE [--batch X [--batch-size B]] [--keep-layers K | --repeat-layers K] -o OUT [--json FILE]
// Writes the same training step at X times its batch (compose/scale_batch.h)
// and/or with only K of its repeated layers (compose/scale_layers.h), an ET
// that replay runs: a benchmark of a size nobody recorded.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "compose/scale_batch.h"
#include "compose/scale_layers.h"
#include "io/recording/recording_dir.h"
#include "support/error.h"
#include "support/json_writer.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct ScaleArgs {
    std::string trace;
    std::string out;
    double batch = 0;
    int64_t batch_size = 0;
    int64_t keep_layers = 0;
    int64_t repeat_layers = 0;
    std::string json;
};

int run(const ScaleArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (inputs.size() != 1)
        fail({args.trace, -1, -1, ""}, "holds " + std::to_string(inputs.size()) + " rank traces; scale one at a time");
    if (args.batch <= 0 && args.keep_layers <= 0 && args.repeat_layers <= 0)
        fail({args.trace, -1, -1, ""}, "give --batch X, --keep-layers K or --repeat-layers K (layers and batch together too)");
    if (args.keep_layers > 0 && args.repeat_layers > 0)
        fail({args.trace, -1, -1, "--repeat-layers"}, "give --keep-layers or --repeat-layers, not both");
    const std::string& path = inputs.front().trace_path;
    compose::EtDocument doc = compose::EtDocument::read(path);
    print_read_warnings(doc.path(), doc.warnings());
    compose::LayerStats layers;
    if (args.keep_layers > 0) layers = compose::keep_layers(doc, args.keep_layers);
    if (args.repeat_layers > 0) layers = compose::repeat_layers(doc, args.repeat_layers);
    const bool layered = args.keep_layers > 0 || args.repeat_layers > 0;
    compose::ScaleStats s;
    if (args.batch > 0) s = compose::scale_batch(doc, {args.batch, args.batch_size});
    doc.write(args.out);
    if (!args.json.empty()) {
        JsonWriter w;
        w.begin_object().field("input", path).field("output", args.out);
        if (args.batch > 0)
            w.field("factor", args.batch)
                .field("batch_before", s.batch_before)
                .field("batch_after", s.batch_after)
                .field("batch_values", s.batch_values)
                .field("data_tensors", s.data_tensors)
                .field("scaled_tensors", s.scaled_tensors)
                .field("rewritten_lists", s.rewritten_lists)
                .field("parameter_shapes", s.parameter_shapes);
        if (layered)
            w.field("layers_before", layers.layers_before)
                .field("layers_after", layers.layers_after)
                .field("ops_per_layer", layers.units_per_layer)
                .field("first_layer_node", layers.first_layer_node)
                .field("layer_ops", layers.layer_ops)
                .field("nodes_removed", layers.nodes_removed)
                .field("nodes_added", layers.nodes_added)
                .field("inputs_rewired", layers.inputs_rewired)
                .field("inputs_materialised", layers.inputs_left)
                .field("list_elements_removed", layers.list_elements_removed)
                .field("list_elements_added", layers.list_elements_added);
        w.end_object();
        write_output(args.json, w.str());
    }
    if (args.json == "-") return 0;
    std::printf("%s -> %s\n", path.c_str(), args.out.c_str());
    if (layered) {
        const std::string ops =
            layers.layer_ops.size() > 160 ? layers.layer_ops.substr(0, 160) + "..." : layers.layer_ops;
        std::printf("  layers %lld -> %lld (a layer: %lld top-level ops from node %llu: %s); ",
                    static_cast<long long>(layers.layers_before), static_cast<long long>(layers.layers_after),
                    static_cast<long long>(layers.units_per_layer), static_cast<unsigned long long>(layers.first_layer_node), ops.c_str());
        if (args.repeat_layers > 0)
            std::printf("%llu nodes added, %llu inputs rewired to the copies\n", static_cast<unsigned long long>(layers.nodes_added),
                        static_cast<unsigned long long>(layers.inputs_rewired));
        else
            std::printf("%llu nodes removed, %llu inputs rewired to the kept layers, %llu left for replay to materialise\n",
                        static_cast<unsigned long long>(layers.nodes_removed), static_cast<unsigned long long>(layers.inputs_rewired),
                        static_cast<unsigned long long>(layers.inputs_left));
    }
    if (args.batch > 0) {
        std::printf("  batch %lld -> %lld (batch-sized dimensions: %s)\n", static_cast<long long>(s.batch_before),
                    static_cast<long long>(s.batch_after), s.batch_values.c_str());
        std::printf("  %llu data tensors, %llu tensor shapes and %llu size/stride lists rewritten, %llu parameter shapes kept\n",
                    static_cast<unsigned long long>(s.data_tensors), static_cast<unsigned long long>(s.scaled_tensors),
                    static_cast<unsigned long long>(s.rewritten_lists), static_cast<unsigned long long>(s.parameter_shapes));
    }
    return 0;
}

const Registrar registrar{{
    "scale",
    "Write a trace's training step at another batch size (every batch-carrying shape rescaled) or with fewer of its repeated layers",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<ScaleArgs>();
        app.add_option("trace", a->trace, "ET (.json/.json.gz) or a `mimic record` directory")->required();
        app.add_option("--batch", a->batch, "factor: new batch / recorded batch (2 doubles it, 0.5 halves it)")
            ->check(above_zero());
        app.add_option("--keep-layers", a->keep_layers,
                       "keep the first K of the model's repeated layers (found from the trace), with their backward and optimizer ops")
            ->check(above_zero());
        app.add_option("--batch-size", a->batch_size, "the recorded batch B, when the most common first dimension of the data is not it")
            ->check(above_zero());
        app.add_option("--repeat-layers", a->repeat_layers,
                       "make the model K layers deep, the layers past the trace's copies of its last repeated layer")
            ->check(above_zero());
        app.add_option("-o,--out", a->out, "output ET (.json or .json.gz)")->required();
        app.add_option("--json", a->json, "also write a summary as JSON to FILE ('-': JSON alone on stdout)");
        app.footer("Example: mimic scale rec/et.json.gz --batch 2 -o batch2x_et.json.gz && mimic replay batch2x_et.json.gz\n"
                   "         mimic scale rec/et.json.gz --keep-layers 2 -o two_layers_et.json.gz");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli

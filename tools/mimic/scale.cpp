// mimic scale TRACE --batch X [--batch-size B] -o OUT [--json FILE]
// Writes the same training step at X times its batch (compose/scale_batch.h),
// an ET that replay runs at the new size: a benchmark of a batch nobody recorded.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "compose/scale_batch.h"
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
    std::string json;
};

int run(const ScaleArgs& args) {
    std::vector<TraceInput> inputs = expand_trace_inputs({args.trace});
    if (inputs.size() != 1)
        fail({args.trace, -1, -1, ""}, "holds " + std::to_string(inputs.size()) + " rank traces; scale one at a time");
    const compose::ScaleStats s = compose::scale_batch_file(inputs.front().trace_path, {args.batch, args.batch_size}, args.out);
    if (!args.json.empty()) {
        JsonWriter w;
        w.begin_object()
            .field("input", inputs.front().trace_path)
            .field("output", args.out)
            .field("factor", args.batch)
            .field("batch_before", s.batch_before)
            .field("batch_after", s.batch_after)
            .field("batch_values", s.batch_values)
            .field("data_tensors", s.data_tensors)
            .field("scaled_tensors", s.scaled_tensors)
            .field("rewritten_lists", s.rewritten_lists)
            .field("parameter_shapes", s.parameter_shapes)
            .end_object();
        write_output(args.json, w.str());
    }
    if (args.json == "-") return 0;
    std::printf("%s -> %s: batch %lld -> %lld (batch-sized dimensions: %s)\n", inputs.front().trace_path.c_str(),
                args.out.c_str(), static_cast<long long>(s.batch_before), static_cast<long long>(s.batch_after),
                s.batch_values.c_str());
    std::printf("  %llu data tensors, %llu tensor shapes and %llu size/stride lists rewritten, %llu parameter shapes kept\n",
                static_cast<unsigned long long>(s.data_tensors), static_cast<unsigned long long>(s.scaled_tensors),
                static_cast<unsigned long long>(s.rewritten_lists), static_cast<unsigned long long>(s.parameter_shapes));
    return 0;
}

const Registrar registrar{{
    "scale",
    "Write a trace's training step at another batch size (every batch-carrying shape rescaled)",
    [](CLI::App& app) -> RunFn {
        auto a = std::make_shared<ScaleArgs>();
        app.add_option("trace", a->trace, "ET (.json/.json.gz) or a `mimic record` directory")->required();
        app.add_option("--batch", a->batch, "factor: new batch / recorded batch (2 doubles it, 0.5 halves it)")
            ->required()
            ->check(CLI::PositiveNumber);
        app.add_option("--batch-size", a->batch_size, "the recorded batch B, when the most common first dimension of the data is not it")
            ->check(CLI::PositiveNumber);
        app.add_option("-o,--out", a->out, "output ET (.json or .json.gz)")->required();
        app.add_option("--json", a->json, "also write a summary as JSON to FILE ('-': JSON alone on stdout)");
        app.footer("Example: mimic scale rec/et.json.gz --batch 2 -o batch2x_et.json.gz && mimic replay batch2x_et.json.gz");
        return [a] { return run(*a); };
    },
}};

}  // namespace
}  // namespace mimic::cli

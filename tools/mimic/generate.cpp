// mimic generate gpt|llama|moe|dlrm --ranks N [--dp --tp --pp --ep] [sizes] -o PREFIX
// Writes one Chakra trace per rank of one training iteration of a model
// that was never recorded (src/compose/README_generate.md), the
// communicator groups beside them, or (--format et) PyTorch ETs small
// enough to replay; --from TRACE expands a recorded data-parallel trace.
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>
#include <thread>

#include "command.h"
#include "compose/generate_chakra.h"
#include "compose/generate_et.h"
#include "compose/generate_from.h"
#include "compose/generate_options.h"
#include "compose/generate_summary.h"
#include "compose/generate_workload.h"
#include "model/device_spec.h"
#include "support/error.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct GenerateArgs {
    std::string model;
    compose::GenerateOptions options;
    std::string bottom_mlp, top_mlp;
    std::string schedule = "1f1b";
    bool zero = false, fsdp = false;
    std::string device = "h100_sxm";
    std::string out;
    std::string json;
    std::string format = "chakra";
    std::string from;
    std::string profile;
    int threads = 0;
    CLI::App* app = nullptr;  // to tell which options were given
};

std::string devices_dir() { return std::string(MIMIC_SOURCE_DIR) + "/data/devices"; }

// --device: a spec file, or a file name of data/devices without .json.
model::DeviceSpec device_spec(const std::string& device) {
    if (device.find('/') != std::string::npos || std::filesystem::path(device).extension() == ".json")
        return model::read_device_spec(device);
    const std::string path = devices_dir() + "/" + device + ".json";
    if (!std::filesystem::exists(path)) fail({"--device", -1, -1, ""}, "no device spec named '" + device + "' in " + devices_dir());
    return model::read_device_spec(path);
}

int threads_of(const GenerateArgs& args) {
    if (args.threads > 0) return args.threads;
    return std::max(1u, std::thread::hardware_concurrency());
}

int run_from(GenerateArgs& args) {
    if (!args.model.empty()) fail({"--from", -1, -1, ""}, "expands a recorded trace; give no model name with it");
    if (args.options.ranks < 1) fail({"--ranks", -1, -1, ""}, "--from needs the number of ranks to expand to");
    if (args.format != "chakra") fail({"--format", -1, -1, ""}, "--from writes Chakra only");
    // The recorded trace fixes the model and its parallelism.
    for (const char* option : {"--dp", "--tp", "--pp", "--ep", "--layers", "--hidden", "--heads", "--kv-heads", "--seq",
                               "--micro-batch", "--micro-batches", "--vocab", "--ffn", "--experts", "--top-k", "--tables",
                               "--rows", "--emb-dim", "--dense-features", "--pooling", "--table-rows", "--table-pooling", "--shard-tables", "--bottom-mlp", "--top-mlp", "--dtype",
                               "--zero", "--fsdp", "--schedule", "--bucket-mib", "--device"})
        if (args.app->count(option)) fail({option, -1, -1, ""}, "does not apply to --from (the recorded trace fixes the model)");
    const compose::FromTraceResult r = compose::expand_trace(args.from, args.profile, args.options.ranks, args.out, threads_of(args));
    for (const std::string& n : r.notes) std::fprintf(stderr, "mimic generate: %s\n", n.c_str());
    std::fputs(r.table.c_str(), stdout);
    if (!args.json.empty()) write_output(args.json, r.json);
    return 0;
}

int run(GenerateArgs& args) {
    if (!args.from.empty()) return run_from(args);
    if (args.model.empty()) fail({"model", -1, -1, ""}, "give gpt, llama, moe or dlrm (or --from TRACE)");
    compose::GenerateOptions& o = args.options;
    o.model = compose::parse_gen_model(args.model);
    if (!args.bottom_mlp.empty()) o.bottom_mlp = compose::parse_layer_widths(args.bottom_mlp, "--bottom-mlp");
    if (!args.top_mlp.empty()) o.top_mlp = compose::parse_layer_widths(args.top_mlp, "--top-mlp");
    if (args.zero && args.fsdp) fail({"--fsdp", -1, -1, ""}, "give --zero or --fsdp, not both");
    o.sharding = args.fsdp ? compose::GenSharding::Fsdp : args.zero ? compose::GenSharding::Zero : compose::GenSharding::None;
    if (args.schedule == "gpipe") o.schedule = compose::GenSchedule::GPipe;
    else if (args.schedule != "1f1b") fail({"--schedule", -1, -1, ""}, "expected 1f1b or gpipe, got '" + args.schedule + "'");
    compose::resolve_generate_options(o);

    if (args.format == "et") {
        const compose::EtGenerateResult r = compose::write_generated_et(o, args.out);
        std::fputs(r.table.c_str(), stdout);
        if (!args.json.empty()) write_output(args.json, r.json);
        return 0;
    }
    if (args.format != "chakra") fail({"--format", -1, -1, ""}, "expected chakra or et, got '" + args.format + "'");
    const model::DeviceSpec spec = device_spec(args.device);
    const compose::ComputeCost cost(spec, o.dtype_trace_name());
    const compose::GenWorkload w = compose::build_workload(o, cost);
    const compose::RankFilesStats files = compose::write_generated_chakra(w, args.out, threads_of(args));
    std::fputs(compose::generate_summary_table(w, files, args.out).c_str(), stdout);
    std::fprintf(stderr, "mimic generate: %lld rank files in %.2f s; simulate with: mimic simulate %s --network NET.yml --system SYS.json --comm-groups %s\n",
                 static_cast<long long>(files.files), files.seconds, args.out.c_str(), compose::comm_groups_path(args.out).c_str());
    if (!args.json.empty()) write_output(args.json, compose::generate_summary_json(w, files, args.out, spec.name));
    return 0;
}

const Registrar registrar{{
    "generate",
    "Generate per-rank traces of a training iteration (gpt, llama, moe, dlrm) for any parallelism, or expand a recorded one. "
    "Example: mimic generate gpt --ranks 64 --tp 8 --pp 2 -o out/gpt",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<GenerateArgs>();
        args->app = &app;
        compose::GenerateOptions& o = args->options;
        app.footer(
            "Examples:\n"
            "  mimic generate gpt --ranks 64 --tp 8 --pp 2 -o out/gpt --json out/gpt.json\n"
            "  mimic simulate out/gpt --network net64.yml --system sys.json --comm-groups out/gpt.comm_groups.json\n"
            "  mimic generate moe --ranks 16 --ep 4 --experts 8 -o out/moe\n"
            "  mimic generate gpt --ranks 2 --tp 2 --layers 2 --hidden 64 --heads 4 --seq 16 --vocab 128 --format et -o out/tiny\n"
            "  mimic generate --from recording_dir --ranks 1024 -o out/ddp");
        app.add_option("model", args->model, "gpt, llama, moe or dlrm");
        app.add_option("-o,--out", args->out, "output prefix: PREFIX.<rank>.et and PREFIX.comm_groups.json (--format et: directory PREFIX/rank<r>/)")->required();
        app.add_option("--ranks", o.ranks, "ranks (default dp x tp x pp)");
        app.add_option("--dp", o.dp, "data-parallel ranks (default ranks / (tp x pp))");
        app.add_option("--tp", o.tp, "tensor-parallel ranks (contiguous ranks)");
        app.add_option("--pp", o.pp, "pipeline stages");
        app.add_option("--ep", o.ep, "expert-parallel ranks, within data parallelism (moe)");
        app.add_option("--layers", o.layers, "transformer layers");
        app.add_option("--hidden", o.hidden, "hidden size");
        app.add_option("--heads", o.heads, "attention heads");
        app.add_option("--kv-heads", o.kv_heads, "key/value heads (grouped-query attention; default heads, moe 8)");
        app.add_option("--seq", o.seq, "sequence length");
        app.add_option("--micro-batch", o.micro_batch, "samples per micro-batch per rank (dlrm: per rank)");
        app.add_option("--micro-batches", o.micro_batches, "micro-batches per iteration (default 2 x pp, 1 without a pipeline)");
        app.add_option("--vocab", o.vocab, "vocabulary (padded to a multiple of 128 x tp)");
        app.add_option("--ffn", o.ffn, "MLP / expert hidden width");
        app.add_option("--experts", o.experts, "experts per moe layer");
        app.add_option("--top-k", o.top_k, "experts per token");
        app.add_option("--tables", o.tables, "dlrm: embedding tables");
        app.add_option("--rows", o.rows, "dlrm: rows per table");
        app.add_option("--emb-dim", o.emb_dim, "dlrm: embedding dimension");
        app.add_option("--dense-features", o.dense_features, "dlrm: dense input features");
        app.add_option("--pooling", o.pooling, "dlrm: lookups per table per sample");
        app.add_option("--table-rows", o.table_rows, "dlrm: rows of each table, e.g. 100000,5000,20000 (sets --tables)")->delimiter(',');
        app.add_option("--table-pooling", o.table_pooling, "dlrm: lookups per sample of each table, e.g. 40,1,8")->delimiter(',');
        app.add_option("--shard-tables", o.table_ranks, "dlrm: the rank that holds each table, e.g. 0,1,1 (default table t on rank t mod ranks)")->delimiter(',');
        app.add_option("--bottom-mlp", args->bottom_mlp, "dlrm: bottom MLP widths, e.g. 512-256-128 (the last is --emb-dim)");
        app.add_option("--top-mlp", args->top_mlp, "dlrm: top MLP widths, e.g. 1024-1024-512-256-1");
        app.add_option("--dtype", o.dtype, "bf16 (default), fp16 or fp32");
        app.add_flag("--zero", args->zero, "ZeRO-2: reduce-scatter gradient buckets, all-gather updated parameters");
        app.add_flag("--fsdp", args->fsdp, "FSDP (ZeRO-3): all-gather each layer's parameters, reduce-scatter its gradients");
        app.add_option("--schedule", args->schedule, "pipeline schedule: 1f1b (default) or gpipe");
        app.add_option("--bucket-mib", o.bucket_mib, "gradient bucket size in MiB (default 25, as DDP)");
        app.add_option("--device", args->device, "device spec for compute durations: a name in data/devices or a JSON file (default h100_sxm)");
        app.add_option("--format", args->format, "chakra (default) or et: PyTorch ETs that replay on CPU");
        app.add_option("--from", args->from, "a recorded data-parallel trace (ET or recording directory) to expand to --ranks");
        app.add_option("--profile", args->profile, "with --from: the trace's Kineto profile, for compute durations");
        app.add_option("--json", args->json, "write a summary as JSON to FILE ('-' for stdout)");
        app.add_option("--threads", args->threads, "threads encoding and writing files (default: every core)");
        app.allow_windows_style_options(false);
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

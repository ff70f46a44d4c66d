// mimic convert TRACE... [--profile KINETO] --to chakra --out PREFIX [--json FILE|-]
// Reads each trace (an ET, a Chakra .et, a `mimic record` directory or a
// directory of ranks), links its profile where there is one, and writes
// PREFIX.<rank>.et per rank.
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "command.h"
#include "profile_option.h"
#include "io/chakra/chakra_writer.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "model/cost_model.h"
#include "model/predictor.h"
#include "support/error.h"
#include "support/output.h"
#include "support/json_writer.h"

namespace mimic::cli {
namespace {

struct ConvertArgs {
    std::vector<std::string> traces;
    std::string profile;
    std::string to = "chakra";
    std::string out;
    std::string json;
    std::string costs;
};

struct Converted {
    std::string input;
    ChakraWriteStats stats;
    bool linked = false;
    LinkStats link;
    size_t warnings = 0;
};

void print_warnings(const Trace& trace) {
    constexpr size_t kShown = 5;
    for (size_t i = 0; i < trace.warnings.size() && i < kShown; ++i)
        std::fprintf(stderr, "mimic: warning: %s: %s\n", trace.source_path.c_str(), trace.warnings[i].message.c_str());
    if (trace.warnings.size() > kShown)
        std::fprintf(stderr, "mimic: warning: %s: %zu more warnings\n", trace.source_path.c_str(),
                     trace.warnings.size() - kShown);
}

std::string to_json(const std::vector<Converted>& all) {
    JsonWriter w;
    w.begin_object().key("outputs").begin_array();
    for (const Converted& c : all) {
        const ChakraWriteStats& s = c.stats;
        w.begin_object()
            .field("input", c.input)
            .field("path", s.path)
            .field("nodes", s.nodes)
            .field("bytes", s.bytes)
            .field("comp_nodes", s.comp_nodes)
            .field("comm_coll_nodes", s.comm_coll_nodes)
            .field("comm_send_recv_nodes", s.comm_send_recv_nodes)
            .field("device_nodes", s.device_nodes)
            .field("ctrl_deps", s.ctrl_deps)
            .field("data_deps", s.data_deps)
            .field("et_nodes_folded", s.et_nodes_skipped)
            .field("device_events_unlinked", s.unlinked_events)
            .field("warnings", c.warnings);
        if (c.linked)
            w.key("link")
                .begin_object()
                .field("operators", c.link.operators)
                .field("operators_linked", c.link.operators_linked)
                .field("kernels_attached", c.link.kernels_attached)
                .end_object();
        w.end_object();
    }
    w.end_array().end_object();
    return w.str() + "\n";
}

void print_table(const std::vector<Converted>& all) {
    for (const Converted& c : all) {
        const ChakraWriteStats& s = c.stats;
        std::printf("%s -> %s\n", c.input.c_str(), s.path.c_str());
        std::printf("  nodes %llu (comp %llu, comm_coll %llu, send/recv %llu, device %llu), %llu bytes\n",
                    (unsigned long long)s.nodes, (unsigned long long)s.comp_nodes,
                    (unsigned long long)s.comm_coll_nodes, (unsigned long long)s.comm_send_recv_nodes,
                    (unsigned long long)s.device_nodes, (unsigned long long)s.bytes);
        std::printf("  deps: ctrl %llu, data %llu; ET nodes folded into their top-level op: %llu\n",
                    (unsigned long long)s.ctrl_deps, (unsigned long long)s.data_deps,
                    (unsigned long long)s.et_nodes_skipped);
        if (c.linked)
            std::printf("  profile: %zu of %zu operators linked, %zu kernels attached, %llu device events unlinked\n",
                        c.link.operators_linked, c.link.operators, c.link.kernels_attached,
                        (unsigned long long)s.unlinked_events);
    }
}

int run(const ConvertArgs& args) {
    if (args.to != "chakra") fail({"", -1, -1, "--to"}, "unknown target format '" + args.to + "' (known: chakra)");
    std::vector<TraceInput> inputs = expand_trace_inputs(args.traces);
    apply_profile_option(inputs, args.profile);
    std::vector<Converted> done;
    // Durations for host ops with no profile: the cost model's (mimic calibrate).
    model::CostDb db;
    std::unique_ptr<model::CostModel> costs;
    if (!args.costs.empty()) {
        db = model::read_cost_db(args.costs);
        const std::vector<int> counts = db.thread_counts();
        costs = std::make_unique<model::CostModel>(db, counts.empty() ? 1 : counts.front());
    }
    for (size_t k = 0; k < inputs.size(); ++k) {
        const TraceInput& input = inputs[k];
        Converted c;
        c.input = input.trace_path;
        // One trace in memory at a time.
        auto [trace, profile] = load_trace_and_profile(input.trace_path, input.profile_path);
        if (!input.meta_path.empty()) apply_recording_meta(trace, input.meta_path);
        if (profile) {
            c.link = link_profile(trace, *profile);
            c.linked = true;
        }
        if (trace.rank < 0 && inputs.size() > 1) {
            // Several traces and no rank on record: number them as given, so outputs do not overwrite each other.
            trace.rank = static_cast<int64_t>(k);
            trace.warn("rank unknown; written as rank " + std::to_string(k) + " (its position among the inputs)");
        }
        print_warnings(trace);
        c.warnings = trace.warnings.size();
        ChakraWriteOptions options;
        if (costs) {
            options.host_op_us = [&](const Trace& t, uint32_t node) { return model::predicted_op_us(t, node, *costs, db.host); };
        }
        c.stats = write_chakra(trace, args.out, options);
        if (c.stats.modelled_durations)
            std::fprintf(stderr, "mimic: %s: %llu host ops have no profiled duration: timed by the cost model (%s)\n",
                         input.trace_path.c_str(), static_cast<unsigned long long>(c.stats.modelled_durations), args.costs.c_str());
        else if (!c.linked && !costs && trace.format != TraceFormat::Chakra)
            std::fprintf(stderr, "mimic: warning: %s: no profile and no --costs: compute durations are 0\n", input.trace_path.c_str());
        done.push_back(std::move(c));
    }
    if (!args.json.empty()) {
        write_output(args.json, to_json(done));
        if (args.json == "-") return 0;
    }
    print_table(done);
    return 0;
}

const Registrar registrar{{
    "convert",
    "Convert traces to Chakra execution traces (PREFIX.<rank>.et)",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<ConvertArgs>();
        app.add_option("traces", args->traces,
                       "ET (.json/.json.gz), Chakra .et, a `mimic record` directory, or a directory of ranks")
            ->required();
        app.add_option("--profile", args->profile, "profiler (Kineto) trace to link to the one trace given");
        app.add_option("--to", args->to, "target format")->check(CLI::IsMember({"chakra"}));
        app.add_option("-o,--out", args->out, "output prefix: writes PREFIX.<rank>.et")->required();
        app.add_option("--json", args->json, "also write a summary as JSON to FILE ('-': JSON alone on stdout)");
        app.add_option("--costs", args->costs, "cost database (mimic calibrate): durations for host ops a profile does not time");
        app.footer("Example: mimic convert rec/ --to chakra --out chakra/job && mimic simulate chakra/job --network net.yml --system sys.json");
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

// mimic simulate PREFIX --network NET.yml --system SYS.json [...]
// Simulates every rank of a Chakra workload (PREFIX.<rank>.et, as ASTRA-sim
// reads it) on a modelled network, with ASTRA-sim's inputs and semantics.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <memory>
#include <string>

#include "command.h"
#include "sim/sim_report.h"
#include "sim/simulator.h"
#include "sim/trace_workload.h"
#include "support/error.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct SimulateArgs {
    std::vector<std::string> inputs;
    int ranks = 0;
    std::string profile;
    std::vector<std::string> stragglers;
    std::vector<std::string> link_degrades;
    std::string network;
    std::string system;
    std::string memory;
    std::string comm_groups;
    std::string network_model = "analytical";
    std::string rendezvous = "false";
    sim::RunOptions options;
    int collectives_in_flight = 0;  // 0: as sim::collectives_in_flight_for says
    std::string json;
    std::string timeline;
    bool astra_lines = false;
    bool every_rank = false;
};

bool parse_bool(const std::string& text, const char* option) {
    if (text == "true" || text == "1" || text == "yes") return true;
    if (text == "false" || text == "0" || text == "no") return false;
    fail({option, -1, -1, ""}, "expected true or false, got '" + text + "'");
}

// "3=1.5" -> (3, 1.5); names the option on anything else.
std::pair<int, double> key_factor(const std::string& text, const char* option) {
    const auto eq = text.find('=');
    try {
        if (eq == std::string::npos) throw std::invalid_argument(text);
        size_t used = 0;
        const int key = std::stoi(text.substr(0, eq), &used);
        const double factor = std::stod(text.substr(eq + 1));
        if (used != eq || key < 0 || !(factor > 0)) throw std::invalid_argument(text);
        return {key, factor};
    } catch (const std::exception&) {
        fail({option, -1, -1, ""}, "expected N=FACTOR with FACTOR > 0, got '" + text + "'");
    }
}

// The workload: an ASTRA-sim prefix (PREFIX.<r>.et, or .json in Chakra's
// JSON forms), else traces mimic reads.
std::vector<sim::SharedGraph> read_inputs(const SimulateArgs& args, sim::SimulationInput& input, std::vector<std::string>& notes) {
    const int npus = input.network.total_npus();
    const std::string ext = args.inputs.size() == 1 ? sim::workload_prefix_extension(args.inputs[0]) : "";
    if (!ext.empty()) {
        input.options.collectives_in_flight = std::max(1, args.collectives_in_flight);
        if (args.ranks > 0 && !std::filesystem::exists(args.inputs[0] + ".1" + ext))
            return sim::replicate_ranks(sim::read_rank_graph(args.inputs[0] + ".0" + ext, 0), args.ranks, notes);
        for (int r = 0; r < npus; ++r) input.files.push_back(args.inputs[0] + "." + std::to_string(r) + ext);
        return sim::read_workload_prefix(args.inputs[0], npus);
    }
    sim::TraceWorkload traces = sim::read_trace_workload(args.inputs, args.profile);
    notes.insert(notes.end(), traces.notes.begin(), traces.notes.end());
    input.options.collectives_in_flight = sim::collectives_in_flight_for(traces, args.collectives_in_flight, input.system, notes);
    if (args.ranks > 0) {
        if (traces.graphs.size() != 1)
            fail({"--ranks", -1, -1, ""}, "scales one rank's trace; " + std::to_string(traces.graphs.size()) + " ranks were given");
        return sim::replicate_ranks(traces.graphs[0], args.ranks, notes);
    }
    input.comm_groups = traces.comm_groups;
    input.comm_groups_source = args.inputs[0];
    std::vector<sim::SharedGraph> graphs;
    for (auto& g : traces.graphs) graphs.push_back(std::make_shared<const sim::RankGraph>(std::move(g)));
    return graphs;
}

int run(SimulateArgs& args) {
    sim::SimulationInput input;
    std::vector<std::string> config_warnings;
    input.network = sim::read_network_config(args.network, config_warnings);
    input.system = sim::read_system_config(args.system, config_warnings);
    if (!args.memory.empty()) input.memory = sim::read_remote_memory_config(args.memory, config_warnings);
    if (!args.comm_groups.empty() && args.comm_groups != "empty") {
        input.comm_groups = sim::read_comm_groups(args.comm_groups);
        input.comm_groups_source = args.comm_groups;
    }
    if (args.network_model == "congestion" || args.network_model == "congestion-aware") args.options.congestion_aware = true;
    else if (args.network_model != "analytical" && args.network_model != "congestion-unaware")
        fail({"--network-model", -1, -1, ""}, "expected analytical or congestion, got '" + args.network_model + "'");
    args.options.rendezvous = parse_bool(args.rendezvous, "--rendezvous-protocol");
    for (const std::string& s : args.stragglers) {
        const auto [rank, factor] = key_factor(s, "--straggler");
        args.options.straggler[rank] = factor;
    }
    for (const std::string& s : args.link_degrades) {
        const auto [dim, factor] = key_factor(s, "--link-degrade");
        if (dim >= static_cast<int>(input.network.dims.size()))
            fail({"--link-degrade", -1, -1, ""}, "dimension " + std::to_string(dim) + " is not one of the network's " +
                                                     std::to_string(input.network.dims.size()));
        input.network.dims[static_cast<size_t>(dim)].bandwidth_GBps /= factor;
    }
    input.options = args.options;

    const auto t0 = std::chrono::steady_clock::now();
    input.graphs = read_inputs(args, input, config_warnings);
    for (const auto& [rank, factor] : input.options.straggler)
        if (rank >= static_cast<int>(input.graphs.size()))
            fail({"--straggler", -1, -1, ""}, "rank " + std::to_string(rank) + " is not one of the " + std::to_string(input.graphs.size()));
    sim::SimulationOptions options;
    options.record_spans = !args.timeline.empty();
    options.use_symmetry = !args.every_rank;
    options.progress = [](sim::Tick t, uint64_t events, size_t finished) {
        std::fprintf(stderr, "mimic simulate: %.3f ms simulated, %llu events, %zu ranks finished\n", static_cast<double>(t) / 1e6,
                     static_cast<unsigned long long>(events), finished);
    };
    sim::SimulationResult result = sim::simulate(input, options);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    for (auto it = config_warnings.rbegin(); it != config_warnings.rend(); ++it) result.warnings.insert(result.warnings.begin(), *it);

    std::fputs((args.astra_lines ? sim::format_astra_lines(result) : sim::format_table(result)).c_str(), stdout);
    if (args.astra_lines)
        for (const auto& e : result.errors) std::fprintf(stderr, "mimic: error: %s\n", e.c_str());
    std::fprintf(stderr, "mimic simulate: %zu ranks in %.2f s%s\n", result.ranks.size(), seconds,
                 result.simulated_once ? " (every rank runs alike: simulated once)" : "");
    if (!args.json.empty()) write_output(args.json, sim::format_json(result, seconds));
    if (!args.timeline.empty()) write_output(args.timeline, sim::format_timeline(result, input));
    return result.errors.empty() ? 0 : 1;
}

const Registrar registrar{{
    "simulate",
    "Simulate a multi-rank Chakra workload on a modelled network (ASTRA-sim's inputs)",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<SimulateArgs>();
        app.footer("Example: mimic simulate workloads/allreduce --network net.yml --system sys.json --json out.json");
        app.add_option("input,--workload-configuration", args->inputs,
                       "ASTRA-sim workload prefix (PREFIX.<rank>.et, or .json in Chakra's JSON forms), or traces: ETs, Chakra files, a recording, a directory of ranks")
            ->required();
        app.add_option("--profile", args->profile, "profiler (Kineto) trace of the one trace given: compute durations come from it");
        app.add_option("--ranks", args->ranks, "run one rank's data-parallel trace on N ranks");
        app.add_option("--straggler", args->stragglers, "what-if: RANK=FACTOR computes FACTOR times slower (repeatable)");
        app.add_option("--link-degrade", args->link_degrades, "what-if: DIM=FACTOR divides that dimension's bandwidth (repeatable)");
        app.add_option("--network,--network-configuration", args->network, "ASTRA-sim network YAML")->required();
        app.add_option("--system,--system-configuration", args->system, "ASTRA-sim system JSON")->required();
        app.add_option("--memory,--remote-memory-configuration", args->memory, "ASTRA-sim remote-memory JSON");
        app.add_option("--comm-groups,--comm-group-configuration", args->comm_groups, "communicator groups JSON {\"1\": [ranks]}");
        app.add_option("--network-model", args->network_model, "analytical (congestion-unaware, the default) or congestion");
        app.add_option("--num-queues-per-dim", args->options.num_queues_per_dim, "queues per network dimension (ASTRA-sim's option)");
        app.add_option("--rendezvous-protocol", args->rendezvous, "true: an 8 KiB handshake before every message");
        app.add_option("--comm-scale", args->options.comm_scale, "scale every communication size (ASTRA-sim ignores it)");
        app.add_option("--compute-scale", args->options.compute_scale, "scale every compute duration (ASTRA-sim ignores it)");
        app.add_option("--injection-scale", args->options.injection_scale, "scale the endpoint delay");
        app.add_option("--collectives-in-flight", args->collectives_in_flight,
                       "collectives one rank runs at once (default: 2 for PyTorch traces whose collectives are on CPU tensors, "
                       "Gloo's worker threads; else 1, as ASTRA-sim)")
            ->check(CLI::Range(1, 1024));
        app.add_flag("--every-rank", args->every_rank,
                     "simulate every rank even when all run alike (by default such ranks are simulated once: exact, and far faster)");
        app.add_flag("--astra-lines", args->astra_lines, "print ASTRA-sim's own 'sys[r] finished' lines instead of the table");
        app.add_option("--json", args->json, "write the per-rank results as JSON to FILE ('-' for stdout)");
        app.add_option("--timeline", args->timeline, "write a Chrome/Perfetto timeline (one track per rank and resource)");
        app.allow_windows_style_options(false);
        return [args] { return run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

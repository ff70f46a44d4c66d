// mimic simulate PREFIX --network NET.yml --system SYS.json [...]
// Simulates every rank of a Chakra workload (PREFIX.<rank>.et, as ASTRA-sim
// reads it) on a modelled network, with ASTRA-sim's inputs and semantics.
#include <chrono>
#include <cstdio>
#include <memory>
#include <string>

#include "command.h"
#include "sim/sim_report.h"
#include "sim/simulator.h"
#include "support/error.h"
#include "support/output.h"

namespace mimic::cli {
namespace {

struct SimulateArgs {
    std::string workload;
    std::string network;
    std::string system;
    std::string memory;
    std::string comm_groups;
    std::string network_model = "analytical";
    std::string rendezvous = "false";
    sim::RunOptions options;
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
    input.options = args.options;

    const auto t0 = std::chrono::steady_clock::now();
    input.graphs = sim::read_workload_prefix(args.workload, input.network.total_npus());
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
        app.add_option("workload,--workload-configuration", args->workload, "workload prefix: PREFIX.<rank>.et for every rank")->required();
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

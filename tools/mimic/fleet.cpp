// mimic fleet DIR... -o OUT [--shard I/N] [--json FILE]
// mimic fleet merge PART... -o OUT
// Signs every trace of a fleet, clusters the signatures and writes one
// representative per cluster with its weight (src/compose/README_fleet.md).
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "command.h"
#include "compose/fleet_output.h"
#include "compose/fleet_parts.h"
#include "compose/fleet_report.h"
#include "compose/fleet_scan.h"
#include "model/cost_db.h"
#include "support/error.h"
#include "support/output.h"
#include "support/progress.h"

namespace mimic::cli {
namespace {

using Clock = std::chrono::steady_clock;

struct FleetArgs {
    std::vector<std::string> inputs;
    std::vector<std::string> parts;
    std::string out;
    std::string json;
    std::string shard;
    std::string costs;
    int threads = 0;  // the cost model's intra-op threads
    unsigned jobs = 0;
    fleet::ClusterOptions cluster;
};

double seconds_since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// "3/8" -> (3, 8).
std::pair<int, int> parse_shard(const std::string& text) {
    const auto slash = text.find('/');
    try {
        size_t a = 0, b = 0;
        if (slash == std::string::npos) throw std::invalid_argument(text);
        const int i = std::stoi(text.substr(0, slash), &a);
        const int n = std::stoi(text.substr(slash + 1), &b);
        if (a != slash || b != text.size() - slash - 1 || n < 1 || i < 0 || i >= n) throw std::invalid_argument(text);
        return {i, n};
    } catch (const std::exception&) {
        fail({"--shard", -1, -1, ""}, "expected I/N with 0 <= I < N (a Slurm array: $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT), got '" + text + "'");
    }
}

// A bar on a terminal; on a log (a batch job's stderr) a line every few
// seconds, so a long run shows it is alive. MIMIC_NO_PROGRESS silences both.
class ScanProgress {
public:
    explicit ScanProgress(size_t total) : bar_("mimic fleet: reading", total, "traces"), start_(Clock::now()), last_(start_) {
        lines_ = !isatty(STDERR_FILENO) && !std::getenv("MIMIC_NO_PROGRESS");
    }
    void update(size_t done, size_t total, size_t failed) {
        if (!lines_) {  // a terminal: the bar (off one, these lines say more than its own would)
            bar_.update(done);
            return;
        }
        const auto now = Clock::now();
        if (done < total && now - last_ < std::chrono::seconds(5)) return;
        last_ = now;
        std::fprintf(stderr, "mimic fleet: %zu of %zu traces read (%zu unreadable), %.1f s\n", done, total, failed, seconds_since(start_));
    }

private:
    Progress bar_;
    bool lines_;
    Clock::time_point start_, last_;
};

std::string time_model_of(const FleetArgs& args) { return args.costs.empty() ? "nominal" : "costs " + args.costs; }

// Reads the members (this shard's, with --shard) on every core.
std::vector<fleet::FleetItem> scan(const FleetArgs& args, const std::vector<fleet::FleetInput>& inputs, int shard, int shards,
                                   const model::CostModel* costs) {
    fleet::ScanOptions options;
    options.threads = args.jobs;
    options.shard = shard;
    options.shards = shards;
    options.signature.costs = costs;
    size_t mine = 0;
    for (size_t i = 0; i < inputs.size(); ++i) mine += i % static_cast<size_t>(shards) == static_cast<size_t>(shard);
    ScanProgress progress(mine);
    options.progress = [&progress](size_t done, size_t total, size_t failed) { progress.update(done, total, failed); };
    return fleet::scan_fleet(inputs, options);
}

int finish(const FleetArgs& args, std::vector<fleet::FleetItem> items, const std::string& time_model, Clock::time_point t0) {
    const fleet::FleetResult result = fleet::cluster_items(std::move(items), time_model, args.cluster);
    const fleet::OutputStats out = fleet::write_fleet_dir(result, args.out);
    if (!args.json.empty()) write_output(args.json, fleet::fleet_json(result));
    if (args.json != "-") std::fputs(fleet::fleet_table(result).c_str(), stdout);
    std::fprintf(stderr, "mimic fleet: %zu traces, %zu clusters in %.2f s; wrote %s/fleet.json and %zu representatives (%zu files linked, %zu copied)\n",
                 result.items.size(), result.clustering.clusters.size(), seconds_since(t0), args.out.c_str(),
                 result.clustering.clusters.size(), out.linked, out.copied);
    return 0;
}

int run(const FleetArgs& args) {
    const auto t0 = Clock::now();
    if (args.inputs.empty()) fail({"fleet", -1, -1, ""}, "give the traces or directories of the fleet (or: mimic fleet merge PART...)");
    if (args.out.empty()) fail({"fleet", -1, -1, "-o"}, "give the output: -o DIR (with --shard: -o PART.json)");
    std::optional<model::CostDb> db;
    std::optional<model::CostModel> costs;
    if (!args.costs.empty()) {
        db = model::read_cost_db(args.costs);
        const std::vector<int> counts = db->thread_counts();
        const int threads = args.threads > 0 ? args.threads : (counts.empty() ? 1 : counts.front());
        costs.emplace(*db, threads);
    }
    const std::vector<fleet::FleetInput> inputs = fleet::list_fleet_inputs(args.inputs, args.out);
    const auto [shard, shards] = args.shard.empty() ? std::pair<int, int>{0, 1} : parse_shard(args.shard);
    std::vector<fleet::FleetItem> items = scan(args, inputs, shard, shards, costs ? &*costs : nullptr);

    if (args.shard.empty()) return finish(args, std::move(items), time_model_of(args), t0);

    fleet::FleetPart part;
    part.shard = shard;
    part.shards = shards;
    part.members = inputs.size();
    part.listing_digest = fleet::listing_digest(inputs);
    part.time_model = time_model_of(args);
    size_t failed = 0;
    for (const auto& it : items) failed += !it.ok;
    part.items = std::move(items);
    write_output(args.out, fleet::part_to_json(part));
    std::fprintf(stderr, "mimic fleet: shard %d/%d: %zu of %zu members read (%zu unreadable) in %.2f s; wrote %s\n", shard, shards,
                 part.items.size(), inputs.size(), failed, seconds_since(t0), args.out.c_str());
    return 0;
}

int run_merge(const FleetArgs& args) {
    const auto t0 = Clock::now();
    std::vector<fleet::FleetPart> parts;
    for (const std::string& p : args.parts) parts.push_back(fleet::read_part(p));
    std::string time_model;
    std::vector<fleet::FleetItem> items = fleet::merge_parts(parts, args.parts, &time_model);
    return finish(args, std::move(items), time_model, t0);
}

void add_cluster_options(CLI::App& app, FleetArgs& args) {
    app.add_option("--json", args.json, "also write fleet.json to FILE ('-': the JSON alone on stdout)");
    app.add_option("--max-k", args.cluster.max_k, "largest number of clusters tried (default 12)")->check(CLI::Range(1, 1000));
    app.add_option("--resolution", args.cluster.resolution,
                   "signature distance below which traces count as the same workload (default 0.02)")
        ->check(CLI::Range(0.0, 10.0));
    app.add_option("--min-silhouette", args.cluster.min_silhouette, "below this best silhouette the fleet is one cluster (default 0.25)")
        ->check(CLI::Range(-1.0, 1.0));
}

const Registrar registrar{{
    "fleet",
    "Sign many traces, cluster them and write representatives with weights (--shard/merge for array jobs)",
    [](CLI::App& app) -> RunFn {
        auto args = std::make_shared<FleetArgs>();
        auto merge_run = std::make_shared<bool>(false);
        app.footer(
            "Example: mimic fleet traces/ more/job.et -o fleet-out --json fleet.json\n"
            "Slurm array: mimic fleet traces/ --shard $SLURM_ARRAY_TASK_ID/$SLURM_ARRAY_TASK_COUNT -o parts/$SLURM_ARRAY_TASK_ID.json;\n"
            "  then: mimic fleet merge parts/*.json -o fleet-out");
        app.add_option("inputs", args->inputs,
                       "traces: PyTorch ETs, Chakra .et files, `mimic record` directories, directories of them (walked recursively)");
        app.add_option("-o,--out", args->out,
                       "output directory (fleet.json and representatives/); with --shard, the part file to write");
        app.add_option("--shard", args->shard, "read only members with index % N == I and write their signatures to OUT");
        app.add_option("--jobs", args->jobs, "reading threads (default: every core)")->check(CLI::Range(1u, 4096u));
        app.add_option("--costs", args->costs, "time untimed traces with this `mimic calibrate` database instead of nominal rates");
        app.add_option("--threads", args->threads, "intra-op thread count of --costs measurements to use (default: the first it has)");
        add_cluster_options(app, *args);

        CLI::App* merge = app.add_subcommand("merge", "Cluster the part files of a sharded run as one run would");
        merge->footer("Example: mimic fleet merge parts/*.json -o fleet-out");
        merge->add_option("parts", args->parts, "part files written with --shard I/N, one per shard")->required();
        merge->add_option("-o,--out", args->out, "output directory (fleet.json and representatives/)")->required();
        add_cluster_options(*merge, *args);
        merge->callback([merge_run] { *merge_run = true; });
        return [args, merge_run] { return *merge_run ? run_merge(*args) : run(*args); };
    },
}};

}  // namespace
}  // namespace mimic::cli

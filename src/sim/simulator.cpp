#include "sim/simulator.h"

#include <simdjson.h>

#include <chrono>
#include <memory>
#include <set>
#include <string>

#include "sim/event_queue.h"
#include "sim/network.h"
#include "sim/rank_system.h"
#include "sim/remote_memory.h"
#include "support/error.h"

namespace mimic::sim {
namespace {

const char* type_name(ChakraNodeType t) {
    switch (t) {
        case ChakraNodeType::Invalid: return "INVALID";
        case ChakraNodeType::Metadata: return "METADATA";
        case ChakraNodeType::MemLoad: return "MEM_LOAD";
        case ChakraNodeType::MemStore: return "MEM_STORE";
        case ChakraNodeType::Comp: return "COMP";
        case ChakraNodeType::CommSend: return "COMM_SEND";
        case ChakraNodeType::CommRecv: return "COMM_RECV";
        case ChakraNodeType::CommColl: return "COMM_COLL";
    }
    return "?";
}

// The implementations each collective runs with, one per network dimension,
// and the warnings for what mimic does differently from ASTRA-sim.
void settle_implementations(SharedSetup& setup, std::vector<std::string>& warnings) {
    const size_t dims = setup.network.dims.size();
    for (int c = 0; c < kCollectiveKinds; ++c) {
        const char* const key = implementation_key(static_cast<CollectiveKind>(c));
        auto impls = setup.system.implementations[c];
        const std::string& src = setup.system.source;
        if (impls.empty()) continue;  // an error only if the workload runs this collective
        bool flat = false;
        for (const auto& i : impls) flat = flat || i.flat();
        if (impls.size() > dims && !flat)
            fail({src, -1, -1, key}, "lists " + std::to_string(impls.size()) + " implementations for a network of " +
                                              std::to_string(dims) + " dimensions");
        if (impls.size() < dims && !flat) {
            warnings.push_back(src + ": '" + key + "' lists " + std::to_string(impls.size()) + " implementation(s) for " +
                               std::to_string(dims) + " network dimensions; mimic uses '" + algorithm_name(impls.back().kind) +
                               "' for the rest (ASTRA-sim silently runs the collective on the first dimensions only)");
            while (impls.size() < dims) impls.push_back(impls.back());
        }
        for (auto& i : impls) {
            if (static_cast<CollectiveKind>(c) == CollectiveKind::AllToAll &&
                (i.kind == AlgorithmKind::HalvingDoubling || i.kind == AlgorithmKind::OneHalvingDoubling)) {
                warnings.push_back(src + ": halvingDoubling has no all-to-all; mimic runs it as direct (ASTRA-sim exits with an error)");
                i = CollectiveImpl{i.kind == AlgorithmKind::HalvingDoubling ? AlgorithmKind::Direct : AlgorithmKind::OneDirect, -1};
            }
            if (static_cast<CollectiveKind>(c) == CollectiveKind::AllReduce && i.kind == AlgorithmKind::DoubleBinaryTree &&
                setup.system.local_bw_aware && &i != &impls.back())
                warnings.push_back(src + ": doubleBinaryTree before the last dimension under localBWAware: mimic runs that "
                                         "dimension's reduce-scatter and all-gather phases as ring (ASTRA-sim runs a whole "
                                         "all-reduce in the place of each)");
            if (static_cast<CollectiveKind>(c) != CollectiveKind::AllReduce && i.kind == AlgorithmKind::DoubleBinaryTree)
                warnings.push_back(src + ": doubleBinaryTree is an all-reduce algorithm; mimic runs " +
                                   collective_name(static_cast<CollectiveKind>(c)) +
                                   " with ring on that dimension (ASTRA-sim runs an all-reduce in its place)");
        }
        setup.impls[c] = impls;
    }
    if (setup.system.any_custom() && setup.system.preferred_dataset_splits > 1)
        warnings.push_back(setup.system.source + ": a custom collective implementation runs as one chunk; ASTRA-sim waits for " +
                           std::to_string(setup.system.preferred_dataset_splits) +
                           " (preferred-dataset-splits) and never finishes it, mimic finishes it with its one");
}

void check_groups(const SimulationInput& input, int ranks) {
    for (const auto& [id, members] : input.comm_groups) {
        const ErrorLocation where{input.comm_groups_source, -1, -1, std::to_string(id)};
        if (id <= 0) fail(where, "group ids start at 1 (0 and \"\" mean every rank)");
        if (members.empty()) fail(where, "group has no ranks");
        std::set<int> seen;
        for (int r : members) {
            if (r < 0 || r >= ranks) fail(where, "rank " + std::to_string(r) + " is not one of the " + std::to_string(ranks) + " ranks");
            if (!seen.insert(r).second) fail(where, "rank " + std::to_string(r) + " is listed twice");
        }
    }
}

std::string describe(const WorkloadNode& n) {
    std::string s = std::string(type_name(n.type)) + " node " + std::to_string(n.id);
    if (n.type == ChakraNodeType::CommSend) s += " (to rank " + std::to_string(n.comm_dst) + ", tag " + std::to_string(n.comm_tag) + ", " + std::to_string(n.comm_size) + " B)";
    if (n.type == ChakraNodeType::CommRecv) s += " (from rank " + std::to_string(n.comm_src) + ", tag " + std::to_string(n.comm_tag) + ", " + std::to_string(n.comm_size) + " B)";
    if (n.type == ChakraNodeType::CommColl) s += " (collective type " + std::to_string(static_cast<int>(n.comm_type)) + ", " + std::to_string(n.comm_size) + " B)";
    return s;
}

}  // namespace

std::map<int, std::vector<int>> read_comm_groups(const std::string& path) {
    simdjson::padded_string text;
    if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS) fail({path, -1, -1, ""}, "cannot open the communicator groups");
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    if (parser.parse(text).get(root) != simdjson::SUCCESS) fail({path, -1, -1, ""}, "not a JSON object");
    std::map<int, std::vector<int>> groups;
    for (auto field : root) {
        const std::string key(field.key);
        int id;
        try {
            size_t used = 0;
            id = std::stoi(key, &used);
            if (used != key.size()) throw std::invalid_argument(key);
        } catch (const std::exception&) {
            fail({path, -1, -1, key}, "group names are numbers");
        }
        simdjson::dom::array list;
        if (field.value.get(list) != simdjson::SUCCESS) fail({path, -1, -1, key}, "expected a list of ranks");
        std::vector<int> members;
        for (auto item : list) {
            int64_t r;
            if (item.get(r) != simdjson::SUCCESS) fail({path, -1, -1, key}, "ranks are integers");
            members.push_back(static_cast<int>(r));
        }
        groups[id] = std::move(members);
    }
    return groups;
}

namespace {

std::string obstacle_in(const SimulationInput& input, const SharedSetup& setup) {
    if (input.graphs.empty()) return "no ranks";
    if (input.options.congestion_aware) return "links contend (congestion-aware model)";
    if (!input.options.straggler.empty()) return "a straggler rank";
    if (input.options.host_cores.enabled()) return "ranks share a host's cores";
    if (setup.system.any_custom()) return "custom collective implementations (a graph of its own per NPU)";
    const RankGraph& first = *input.graphs[0];
    for (size_t r = 1; r < input.graphs.size(); ++r)
        if (input.graphs[r] != input.graphs[0] && !input.graphs[r]->same_graph(first))
            return "rank " + std::to_string(r) + "'s graph differs from rank 0's";
    bool used[kCollectiveKinds] = {};
    for (const WorkloadNode& n : first.nodes) {
        if (n.type == ChakraNodeType::CommSend || n.type == ChakraNodeType::CommRecv) return "point-to-point messages";
        if (n.type == ChakraNodeType::MemLoad || n.type == ChakraNodeType::MemStore) return "remote memory";
        if (n.type != ChakraNodeType::CommColl || input.system.replay_only) continue;
        if (n.comm_group != 0) return "communicator groups";
        switch (n.comm_type) {
            case ChakraCollective::AllReduce: used[0] = true; break;
            case ChakraCollective::ReduceScatter:
            case ChakraCollective::ReduceScatterBlock: used[1] = true; break;
            case ChakraCollective::AllGather: used[2] = true; break;
            case ChakraCollective::AllToAll: used[3] = true; break;
            default: break;
        }
    }
    for (int c = 0; c < kCollectiveKinds; ++c) {
        if (!used[c]) continue;
        for (const CollectiveImpl& impl : setup.impls[c]) {
            if (impl.kind == AlgorithmKind::HalvingDoubling || impl.kind == AlgorithmKind::OneHalvingDoubling)
                return "halving-doubling pairs NPUs by position";
            // One ring over every NPU in id order: on a grid of several
            // dimensions, neighbours sit at different offsets and distances.
            if (impl.flat() && setup.network.dims.size() > 1) return "a one* ring over every NPU of a multi-dimensional network";
            if (impl.kind == AlgorithmKind::DoubleBinaryTree) return "the double binary tree gives NPUs different roles";
        }
    }
    return "";
}

bool power_of_two(size_t n) { return n > 0 && (n & (n - 1)) == 0; }

// Where a deadlock's cause is a setting, not the trace: halving-doubling
// pairs NPU i with i +- 2^k, so over a ring whose size is not a power of two
// some NPUs wait for partners that never send to them (ASTRA-sim hangs there
// too: exit 0 with "unreleased nodes"). "" when no such ring is configured.
std::string uneven_halving_doubling(const SharedSetup& setup) {
    std::string rings;
    const auto add = [&](int c, const std::string& where, size_t npus) {
        if (power_of_two(npus)) return;
        rings += std::string(rings.empty() ? "" : "; ") + implementation_key(static_cast<CollectiveKind>(c)) + ": " + where +
                 " (" + std::to_string(npus) + " NPUs)";
    };
    for (int c = 0; c < kCollectiveKinds; ++c) {
        const std::vector<CollectiveImpl>& impls = setup.impls[c];
        for (size_t d = 0; d < impls.size(); ++d) {
            const AlgorithmKind k = impls[d].kind;
            if (k == AlgorithmKind::OneHalvingDoubling) add(c, "oneHalvingDoubling over every NPU", size_t(setup.total_npus));
            if (k == AlgorithmKind::HalvingDoubling && d < setup.network.dims.size())
                add(c, "halvingDoubling on dimension " + std::to_string(d), size_t(setup.network.dims[d].npus));
            if ((k == AlgorithmKind::HalvingDoubling || k == AlgorithmKind::OneHalvingDoubling) && d == 0)
                for (const auto& [id, members] : setup.comm_groups)
                    add(c, "halving-doubling in communicator group " + std::to_string(id), members.size());
        }
    }
    if (rings.empty()) return "";
    return setup.system.source + ": halving-doubling pairs NPUs by powers of two, so some wait for partners that never "
           "send on " + rings + "; use ring or direct there (ASTRA-sim hangs on it as well)";
}

SharedSetup make_setup(const SimulationInput& input, std::vector<std::string>& warnings) {
    SharedSetup setup;
    setup.network = input.network;
    setup.system = input.system;
    setup.options = input.options;
    setup.total_npus = input.network.total_npus();
    setup.comm_groups = input.comm_groups;
    setup.endpoint_delay = static_cast<Tick>(static_cast<int64_t>(static_cast<int64_t>(input.system.endpoint_delay) * input.options.injection_scale));
    settle_implementations(setup, warnings);
    return setup;
}

}  // namespace

std::string symmetry_obstacle(const SimulationInput& input) {
    std::vector<std::string> ignored;
    return obstacle_in(input, make_setup(input, ignored));
}

SimulationResult simulate(const SimulationInput& input, const SimulationOptions& options) {
    SimulationResult result;
    const int ranks = static_cast<int>(input.graphs.size());
    if (input.options.num_queues_per_dim < 1) fail({"--num-queues-per-dim", -1, -1, ""}, "must be at least 1");
    const int total_npus = input.network.total_npus();
    if (total_npus != ranks) {
        std::string dims;
        for (const auto& d : input.network.dims) dims += (dims.empty() ? "" : " x ") + std::to_string(d.npus);
        fail({input.network.source, -1, -1, "npus_count"},
             "the network has " + std::to_string(total_npus) + " NPUs (" + dims + ") but the workload has " + std::to_string(ranks) + " ranks");
    }
    const SharedSetup setup = make_setup(input, result.warnings);
    check_groups(input, ranks);
    result.simulated_once = options.use_symmetry && ranks > 1 && obstacle_in(input, setup).empty();
    const int simulated = result.simulated_once ? 1 : ranks;
    for (size_t r = 0; r < input.graphs.size(); ++r)
        if (r == 0 || input.graphs[r] != input.graphs[r - 1])
            for (const auto& w : input.graphs[r]->warnings) result.warnings.push_back(w);

    EventQueue queue(simulated);
    Network network(setup.network, input.options.congestion_aware, queue);
    SharedCores cores(input.options.host_cores, simulated, queue);
    network.set_mirrored(result.simulated_once);
    RemoteMemory memory(input.memory);
    std::vector<std::unique_ptr<RankSystem>> systems;
    std::vector<std::unique_ptr<RankWorkload>> workloads;
    // Each system reports to its workload, made right after it.
    struct Relay final : CollectiveListener {
        RankWorkload* target = nullptr;
        void collective_done(uint32_t node, Tick started) override { target->collective_done(node, started); }
    };
    std::vector<std::unique_ptr<Relay>> relays;
    std::vector<RankSystem*> raw_systems;
    for (int r = 0; r < simulated; ++r) {
        relays.push_back(std::make_unique<Relay>());
        systems.push_back(std::make_unique<RankSystem>(r, setup, queue, network, *relays.back()));
        raw_systems.push_back(systems.back().get());
    }
    memory.attach(raw_systems);
    for (int r = 0; r < simulated; ++r) {
        const RankGraph& graph = *input.graphs[static_cast<size_t>(r)];
        const std::string file = r < static_cast<int>(input.files.size()) ? input.files[static_cast<size_t>(r)] : graph.file;
        workloads.push_back(std::make_unique<RankWorkload>(graph, r, file, *systems[static_cast<size_t>(r)], memory));
        relays[static_cast<size_t>(r)]->target = workloads.back().get();
    }
    if (cores.enabled()) {
        network.share_cores(&cores);
        for (auto& w : workloads) w->share_cores(&cores);
    }
    for (auto& w : workloads) w->start();

    auto last_report = std::chrono::steady_clock::now();
    uint64_t count = 0;
    while (queue.run_one()) {
        if (options.progress && (++count & 0xFFFF) == 0) {
            const auto now = std::chrono::steady_clock::now();
            if (now - last_report > std::chrono::seconds(5)) {
                last_report = now;
                size_t done = 0;
                for (const auto& w : workloads) done += w->finished() ? 1 : 0;
                options.progress(queue.now(), queue.events_run(), done);
            }
        }
    }
    result.events = queue.events_run();
    result.end_ns = queue.now();
    for (auto& w : workloads) result.ranks.push_back(w->result());
    for (int r = simulated; r < ranks; ++r) {
        result.ranks.push_back(result.ranks[0]);
        result.ranks.back().rank = r;
    }

    // Ranks still waiting: name what each waits on.
    size_t reported = 0;
    for (const auto& w : workloads) {
        if (w->finished()) continue;
        if (reported++ >= 8) continue;
        std::string waits;
        for (uint32_t i : w->in_flight()) {
            if (!waits.empty()) waits += "; ";
            waits += describe(w->graph().nodes[i]);
        }
        if (waits.empty()) waits = std::to_string(w->waiting_nodes()) + " nodes whose dependencies never finish";
        result.errors.push_back(w->file() + ": rank " + std::to_string(w->rank()) + " never finishes: it waits on " + waits);
    }
    if (reported > 8) result.errors.push_back("... and " + std::to_string(reported - 8) + " more ranks that never finish");
    // Messages whose other half never came: a deadlock's cause, or (a send
    // completes when its message lands) a trace whose ranks disagree.
    {
        for (const auto& p : network.unmatched_list(8)) {
            // Tag ranges as RankSystem sends them: workload messages, collectives', rendezvous handshakes.
            const std::string what = p.tag >= 1000000000 ? "a rendezvous handshake"
                                     : p.tag >= 500000000 ? "a collective's message"
                                                          : "tag " + std::to_string(p.tag);
            result.errors.push_back(std::string(p.send_side ? "a send" : "a receive") + " from rank " + std::to_string(p.src) + " to rank " +
                                    std::to_string(p.dst) + " (" + std::to_string(p.size) + " B, " + what + ") has no matching " +
                                    (p.send_side ? "receive" : "send"));
        }
    }
    if (!result.errors.empty()) {
        const std::string cause = uneven_halving_doubling(setup);
        if (!cause.empty()) result.errors.push_back(cause);
    }
    if (options.record_spans) {
        for (const auto& w : workloads)
            for (uint32_t i = 0; i < w->graph().nodes.size(); ++i)
                if (w->done(i)) result.spans.push_back({w->rank(), i, w->class_of(i), w->start_of(i), w->end_of(i)});
    }
    return result;
}

}  // namespace mimic::sim

#include "sim/trace_workload.h"

#include <set>

#include "io/chakra/chakra_convert.h"
#include "io/kineto/kineto_reader.h"
#include "io/recording/recording_dir.h"
#include "io/trace_loader.h"
#include "link/link_profile.h"
#include "support/error.h"
#include "support/text.h"

namespace mimic::sim {
namespace {

// Numbers the trace's process groups that are not the whole world, from 1.
class GroupNumbers {
public:
    GroupNumbers(const Trace& trace, TraceWorkload& out) : trace_(trace), out_(out) {}
    int32_t of(StrId pg_name) {
        const std::string name(trace_.str(pg_name));
        if (name.empty()) return 0;
        for (const ProcessGroup& pg : trace_.process_groups) {
            if (pg.name != name) continue;
            const int64_t world = trace_.world_size;
            if (pg.ranks.empty() || (world > 0 && static_cast<int64_t>(pg.ranks.size()) == world)) return 0;
            std::vector<int> ranks(pg.ranks.begin(), pg.ranks.end());
            for (const auto& [id, members] : out_.comm_groups)
                if (members == ranks) return id;
            const int id = static_cast<int>(out_.comm_groups.size()) + 1;
            out_.comm_groups[id] = ranks;
            return id;
        }
        return 0;  // a group the trace does not describe: taken as the world
    }

private:
    const Trace& trace_;
    TraceWorkload& out_;
};

// Whether a collective call's tensors live on the CPU (Gloo's; NCCL takes
// device tensors only). Tensors in lists count (c10d's ops take Tensor[]).
bool on_cpu_tensors(const Trace& trace, uint32_t node) {
    const Node& n = trace.nodes[node];
    auto cpu = [&](const Value& v) {
        if (v.kind != ValueKind::Tensor) return -1;
        const std::string_view device = trace.str(trace.tensor(v).device);
        if (device.empty()) return -1;
        return starts_with(device, "cpu") ? 1 : 0;
    };
    for (uint32_t i = 0; i < n.inputs.count; ++i) {
        const Value& v = trace.values[n.inputs.begin + i];
        int found = cpu(v);
        if (v.kind == ValueKind::List)
            for (uint32_t k = 0; k < v.payload.range.count && found < 0; ++k) found = cpu(*trace.value_ptr(v.payload.range, k));
        if (found >= 0) return found == 1;
    }
    return false;
}

RankGraph graph_of(const Trace& trace, int rank, TraceWorkload& out, const HostOpTime& host_op_time) {
    // A Chakra file runs as written, as ASTRA-sim and a workload prefix run
    // it: its device nodes and their durations, its dependencies. Converting
    // it as if it were an ET kept its host operators only (a GPU trace's
    // kernels went missing), unless predict gives host costs of its own.
    if (trace.format == TraceFormat::Chakra && !host_op_time) return build_rank_graph(trace, rank);
    const ChakraPlan plan = plan_chakra_nodes(trace);
    GroupNumbers groups(trace, out);
    RankGraphBuilder builder(trace.source_path, rank);
    std::vector<uint64_t> deps;
    size_t timed = 0, comp = 0, traced_cpu = 0;
    for (const ChakraPlanNode& p : plan.nodes) {
        WorkloadNode node;
        node.id = p.id;
        node.type = p.type;
        node.is_cpu_op = p.is_cpu_op && p.type == ChakraNodeType::Comp;
        node.duration_us = p.duration_us;
        if (host_op_time && p.source != UINT32_MAX && p.type == ChakraNodeType::Comp) node.duration_ns = host_op_time(trace, p.source);
        node.num_ops = p.num_ops > 0 ? static_cast<uint64_t>(p.num_ops) : 0;
        node.tensor_size = p.tensor_size;
        if (p.type == ChakraNodeType::Comp) {
            ++comp;
            timed += p.duration_us > 0 || node.duration_ns > 0 ? 1 : 0;
            traced_cpu += node.is_cpu_op && p.duration_us > 0 && !host_op_time ? 1 : 0;
        } else {
            if (p.type == ChakraNodeType::CommColl && p.device_event == UINT32_MAX && p.source != UINT32_MAX &&
                on_cpu_tensors(trace, p.source))
                ++out.cpu_collectives;
            node.comm_type = static_cast<ChakraCollective>(static_cast<int>(p.comm.type));
            node.comm_size = p.comm.size_bytes > 0 ? static_cast<uint64_t>(p.comm.size_bytes) : 0;
            node.comm_group = groups.of(p.comm.pg_name);
            node.comm_tag = p.comm.tag > 0 ? p.comm.tag : 0;
            if (p.type == ChakraNodeType::CommSend) {
                node.comm_src = rank;
                node.comm_dst = p.comm.peer;
            } else if (p.type == ChakraNodeType::CommRecv) {
                node.comm_src = p.comm.peer;
                node.comm_dst = rank;
            }
        }
        deps.assign(plan.edges.begin() + p.ctrl_begin, plan.edges.begin() + p.ctrl_begin + p.ctrl_count);
        deps.insert(deps.end(), plan.edges.begin() + p.data_begin, plan.edges.begin() + p.data_begin + p.data_count);
        builder.add(node, deps);
        if (host_op_time) out.node_names[rank][p.id] = std::string(plan_node_name(trace, p));
    }
    if (comp > 0 && timed == 0)
        out.notes.push_back(trace.source_path + ": no compute durations (no profile linked): compute takes 1 ns per node");
    if (traced_cpu > 0) ++out.ranks_with_traced_cpu_ops;
    return builder.finish();
}

}  // namespace

TraceWorkload read_trace_workload(const std::vector<std::string>& paths, const std::string& profile, const HostOpTime& host_op_time) {
    TraceWorkload out;
    std::vector<TraceInput> inputs = expand_trace_inputs(paths);
    if (!profile.empty()) {
        if (inputs.size() != 1) fail({profile, -1, -1, ""}, "--profile goes with exactly one trace; " + std::to_string(inputs.size()) + " were given");
        inputs[0].profile_path = profile;
    }
    std::map<int64_t, RankGraph> by_rank;
    for (size_t k = 0; k < inputs.size(); ++k) {
        const TraceInput& input = inputs[k];
        auto [trace, read_profile] = load_trace_and_profile(input.trace_path, input.profile_path);
        if (!input.meta_path.empty()) apply_recording_meta(trace, input.meta_path);
        if (read_profile) link_profile(trace, *read_profile);
        int64_t rank = trace.rank;
        if (rank < 0) {
            rank = static_cast<int64_t>(k);
            if (inputs.size() > 1) out.notes.push_back(input.trace_path + ": rank unknown; taken as rank " + std::to_string(k) + " (its position)");
        }
        if (by_rank.count(rank))
            fail({input.trace_path, -1, -1, "rank"}, "rank " + std::to_string(rank) + " is also " + by_rank[rank].file);
        by_rank[rank] = graph_of(trace, static_cast<int>(rank), out, host_op_time);
    }
    int64_t expected = 0;
    for (auto& [rank, graph] : by_rank) {
        if (rank != expected)
            fail({graph.file, -1, -1, "rank"}, "rank " + std::to_string(expected) + " is missing (this trace is rank " + std::to_string(rank) + ")");
        ++expected;
        out.graphs.push_back(std::move(graph));
    }
    if (out.ranks_with_traced_cpu_ops > 0)
        out.notes.push_back(std::to_string(out.ranks_with_traced_cpu_ops) + (out.ranks_with_traced_cpu_ops == 1 ? " rank takes its" : " ranks take their") +
                            " CPU ops' durations from the profile, as recorded under the profiler and the execution-graph "
                            "observer (small ops several times their untraced time); mimic predict costs them untraced");
    return out;
}

int collectives_in_flight_for(const TraceWorkload& workload, int given, const SystemConfig& system,
                              std::vector<std::string>& notes) {
    const bool fifo = system.scheduling == SchedulingPolicy::Fifo;
    if (given > 1 && !fifo)
        notes.push_back("--collectives-in-flight " + std::to_string(given) + " under " + system.source +
                        "'s non-FIFO scheduling: a rank may start its collectives in another order than its peers "
                        "and never finish");
    if (given > 0) return given;
    if (workload.cpu_collectives == 0) return 1;
    const std::string what = std::to_string(workload.cpu_collectives) +
                             " collectives on CPU tensors run on Gloo's worker threads, up to 2 at once per rank "
                             "(ProcessGroupGloo's default)";
    if (!fifo) {
        notes.push_back(what + ", but " + system.source +
                        " does not schedule FIFO, under which two in flight could start in another order on each "
                        "rank: one at a time (calibrate --collectives writes FIFO)");
        return 1;
    }
    notes.push_back(what + ": 2 in flight (--collectives-in-flight N says otherwise)");
    return 2;
}

std::vector<SharedGraph> replicate_ranks(const RankGraph& graph, int ranks, std::vector<std::string>& notes) {
    bool grouped = false;
    RankGraph base = graph;
    for (WorkloadNode& n : base.nodes) {
        if (n.type == ChakraNodeType::CommSend || n.type == ChakraNodeType::CommRecv)
            fail({graph.file, static_cast<int64_t>(n.id), -1, "type"},
                 "point-to-point messages do not replicate to other ranks (--ranks takes data-parallel traces)");
        if (n.comm_group != 0) grouped = true;
        n.comm_group = 0;
    }
    if (grouped) notes.push_back(graph.file + ": collectives of process groups run over all " + std::to_string(ranks) + " ranks");
    bool communicates = false;
    for (const WorkloadNode& n : base.nodes) communicates = communicates || n.type == ChakraNodeType::CommColl;
    if (!communicates && ranks > 1)
        notes.push_back(graph.file + ": has no collectives, so its " + std::to_string(ranks) +
                        " copies never communicate (no data-parallel gradient all-reduce is added)");
    return std::vector<SharedGraph>(static_cast<size_t>(ranks), std::make_shared<const RankGraph>(std::move(base)));
}

}  // namespace mimic::sim

#include "sim/workload_graph.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unordered_map>

#include "io/chakra/chakra_json.h"
#include "io/chakra/chakra_reader.h"
#include "support/error.h"
#include "trace/trace.h"

namespace mimic::sim {
namespace {

// Reads one attribute into the node, failing with file, node and field on a
// value of the wrong kind.
class AttrReader {
public:
    AttrReader(const Trace& trace, RankGraph& graph, WorkloadNode& node) : trace_(trace), graph_(graph), node_(node) {}

    void read(const Attr& attr) {
        const std::string_view name = trace_.str(attr.name);
        const Value& v = attr.value;
        if (name == "is_cpu_op") node_.is_cpu_op = as_bool(v, name);
        else if (name == "comm_type") node_.comm_type = static_cast<ChakraCollective>(as_int(v, name));
        else if (name == "comm_size") node_.comm_size = as_unsigned(v, name);
        else if (name == "comm_src") node_.comm_src = as_int(v, name);
        else if (name == "comm_dst") node_.comm_dst = as_int(v, name);
        else if (name == "comm_tag") node_.comm_tag = as_int(v, name);
        else if (name == "comm_priority") node_.comm_priority = as_int(v, name);
        else if (name == "num_ops") node_.num_ops = as_unsigned(v, name);
        else if (name == "tensor_size") node_.tensor_size = as_unsigned(v, name);
        else if (name == "pg_name") node_.comm_group = group_of(v, name);
        else if (name == "involved_dim") read_involved(v, name);
    }

private:
    [[noreturn]] void bad(std::string_view field, const std::string& what) const {
        fail({graph_.file, static_cast<int64_t>(node_.id), -1, std::string(field)}, what);
    }
    int64_t as_int(const Value& v, std::string_view field) const {
        switch (v.kind) {
            case ValueKind::Int: return v.payload.i;
            case ValueKind::Bool: return v.payload.b ? 1 : 0;
            case ValueKind::Double: return static_cast<int64_t>(v.payload.d);
            default: bad(field, "expected an integer");
        }
    }
    uint64_t as_unsigned(const Value& v, std::string_view field) const {
        const int64_t i = as_int(v, field);
        // uint64 attributes read as the same bits; only a negative int64 is refused.
        if (i < 0 && trace_.str(v.type).find("uint") == std::string_view::npos) bad(field, "must not be negative");
        return static_cast<uint64_t>(i);
    }
    bool as_bool(const Value& v, std::string_view field) const { return as_int(v, field) != 0; }
    int32_t group_of(const Value& v, std::string_view field) const {
        if (v.kind == ValueKind::Int) return static_cast<int32_t>(v.payload.i);
        if (v.kind != ValueKind::String) bad(field, "expected a string");
        const std::string_view s = trace_.str(v.payload.str);
        if (s.empty()) return 0;
        int64_t n = 0;
        for (char c : s) {
            if (c < '0' || c > '9' || n > 1'000'000'000) bad(field, "communicator group '" + std::string(s) + "' is not a number");
            n = n * 10 + (c - '0');
        }
        return static_cast<int32_t>(n);
    }
    void read_involved(const Value& v, std::string_view field) {
        if (v.kind != ValueKind::List) bad(field, "expected a bool list");
        node_.involved_begin = static_cast<uint32_t>(graph_.involved_dims.size());
        for (uint32_t i = 0; i < v.payload.range.count; ++i)
            graph_.involved_dims.push_back(as_bool(trace_.values[v.payload.range.begin + i], field) ? 1 : 0);
        node_.involved_count = v.payload.range.count;
    }

    const Trace& trace_;
    RankGraph& graph_;
    WorkloadNode& node_;
};

}  // namespace

bool operator==(const WorkloadNode& a, const WorkloadNode& b) {
    return a.id == b.id && a.type == b.type && a.is_cpu_op == b.is_cpu_op && a.duration_us == b.duration_us &&
           a.duration_ns == b.duration_ns &&
           a.comm_type == b.comm_type && a.comm_size == b.comm_size && a.comm_src == b.comm_src && a.comm_dst == b.comm_dst &&
           a.comm_tag == b.comm_tag && a.comm_priority == b.comm_priority && a.comm_group == b.comm_group &&
           a.num_ops == b.num_ops && a.tensor_size == b.tensor_size && a.involved_begin == b.involved_begin &&
           a.involved_count == b.involved_count && a.parents == b.parents && a.children_begin == b.children_begin &&
           a.children_count == b.children_count;
}

bool RankGraph::same_graph(const RankGraph& other) const {
    return nodes == other.nodes && children == other.children && involved_dims == other.involved_dims;
}

const WorkloadNode* RankGraph::find(uint64_t id) const {
    auto it = std::lower_bound(nodes.begin(), nodes.end(), id, [](const WorkloadNode& n, uint64_t v) { return n.id < v; });
    return it != nodes.end() && it->id == id ? &*it : nullptr;
}

void RankGraphBuilder::add(const WorkloadNode& node, const std::vector<uint64_t>& deps) {
    WorkloadNode n = node;
    const bool comm = n.type == ChakraNodeType::CommColl || n.type == ChakraNodeType::CommSend || n.type == ChakraNodeType::CommRecv;
    if (comm && n.is_cpu_op) {
        // ASTRA-sim hangs on these (the rank never finishes, exit code 0).
        graph_.warnings.push_back(graph_.file + ": node " + std::to_string(n.id) +
                                  ": a communication node marked is_cpu_op; simulated as device communication");
        n.is_cpu_op = false;
    }
    n.children_begin = static_cast<uint32_t>(deps_.size());  // until finish(): where its dependencies start
    n.children_count = static_cast<uint32_t>(deps.size());
    deps_.insert(deps_.end(), deps.begin(), deps.end());
    graph_.nodes.push_back(n);
}

RankGraph RankGraphBuilder::finish() {
    RankGraph& graph = graph_;
    const size_t n = graph.nodes.size();
    std::stable_sort(graph.nodes.begin(), graph.nodes.end(), [](const WorkloadNode& a, const WorkloadNode& b) { return a.id < b.id; });
    for (size_t i = 1; i < n; ++i)
        if (graph.nodes[i - 1].id == graph.nodes[i].id)
            fail({graph.file, static_cast<int64_t>(graph.nodes[i].id), -1, "id"}, "two nodes have this id");

    // Dependencies: data and control together, each parent once.
    std::vector<std::vector<uint32_t>> kids(n);
    std::vector<uint32_t> parents;
    for (size_t i = 0; i < n; ++i) {
        WorkloadNode& node = graph.nodes[i];
        parents.clear();
        for (uint32_t e = 0; e < node.children_count; ++e) {
            const uint64_t dep = deps_[node.children_begin + e];
            const WorkloadNode* parent = graph.find(dep);
            if (dep == node.id || !parent) {
                graph.warnings.push_back(graph.file + ": node " + std::to_string(node.id) +
                                         (dep == node.id ? ": depends on itself" : ": depends on node " + std::to_string(dep) + ", which the file does not have") +
                                         "; the dependency is dropped");
                continue;
            }
            parents.push_back(static_cast<uint32_t>(parent - graph.nodes.data()));
        }
        std::sort(parents.begin(), parents.end());
        parents.erase(std::unique(parents.begin(), parents.end()), parents.end());
        node.parents = static_cast<uint32_t>(parents.size());
        for (uint32_t p : parents) kids[p].push_back(static_cast<uint32_t>(i));
    }
    for (size_t i = 0; i < n; ++i) {
        graph.nodes[i].children_begin = static_cast<uint32_t>(graph.children.size());
        graph.nodes[i].children_count = static_cast<uint32_t>(kids[i].size());
        graph.children.insert(graph.children.end(), kids[i].begin(), kids[i].end());
    }

    // A cycle would leave its nodes waiting forever: find one now (Kahn).
    std::vector<uint32_t> waiting(n);
    std::vector<uint32_t> ready;
    for (size_t i = 0; i < n; ++i) {
        waiting[i] = graph.nodes[i].parents;
        if (waiting[i] == 0) ready.push_back(static_cast<uint32_t>(i));
    }
    size_t done = 0;
    while (!ready.empty()) {
        const uint32_t i = ready.back();
        ready.pop_back();
        ++done;
        const WorkloadNode& node = graph.nodes[i];
        for (uint32_t c = 0; c < node.children_count; ++c) {
            const uint32_t kid = graph.children[node.children_begin + c];
            if (--waiting[kid] == 0) ready.push_back(kid);
        }
    }
    if (done != n) {
        // Every node still waiting has a waiting parent: follow them back
        // until one repeats, and name that cycle (a file's own, e.g. a node
        // whose ctrl_deps name its child).
        std::vector<uint32_t> waiting_parent(n, UINT32_MAX);
        for (size_t p = 0; p < n; ++p)
            if (waiting[p] > 0)
                for (uint32_t c = 0; c < graph.nodes[p].children_count; ++c)
                    waiting_parent[graph.children[graph.nodes[p].children_begin + c]] = static_cast<uint32_t>(p);
        size_t start = 0;
        while (waiting[start] == 0) ++start;
        std::vector<uint32_t> walk;
        std::vector<uint8_t> on_walk(n, 0);
        uint32_t at = static_cast<uint32_t>(start);
        while (at != UINT32_MAX && !on_walk[at]) {
            on_walk[at] = 1;
            walk.push_back(at);
            at = waiting_parent[at];
        }
        std::string cycle;
        if (at != UINT32_MAX) {
            for (auto it = std::find(walk.begin(), walk.end(), at); it != walk.end() && cycle.size() < 200; ++it)
                cycle += std::to_string(graph.nodes[*it].id) + " -> ";
            cycle += std::to_string(graph.nodes[at].id);
        }
        fail({graph.file, static_cast<int64_t>(graph.nodes[at == UINT32_MAX ? start : at].id), -1, "ctrl_deps/data_deps"},
             "is part of a dependency cycle" + (cycle.empty() ? std::string() : " (" + cycle + ", each waiting for the next)"));
    }
    deps_.clear();
    return std::move(graph_);
}

RankGraph build_rank_graph(const Trace& trace, int rank) {
    RankGraphBuilder builder(trace.source_path, rank);
    std::vector<uint64_t> deps;
    for (const Node& src : trace.nodes) {
        WorkloadNode node;
        node.id = src.id.value;
        node.type = src.chakra_type;
        node.duration_us = src.chakra_duration_us;
        AttrReader reader(trace, builder.graph(), node);
        for (uint32_t a = 0; a < src.attrs.count; ++a) reader.read(trace.attrs[src.attrs.begin + a]);
        deps.clear();
        for (ValueRange range : {src.data_deps, src.deps})
            for (uint32_t e = 0; e < range.count; ++e) deps.push_back(trace.edges[range.begin + e].value);
        builder.add(node, deps);
    }
    return builder.finish();
}

RankGraph read_rank_graph(const std::string& path, int rank) {
    ChakraReadOptions options;
    options.progress = false;
    const Trace trace = read_chakra_any(path, options);
    // The reader's own warnings are about dependencies on absent nodes, which
    // build_rank_graph reports node by node.
    return build_rank_graph(trace, rank);
}

std::string workload_prefix_extension(const std::string& prefix) {
    for (const char* ext : {".et", ".json"})
        if (std::filesystem::exists(prefix + ".0" + ext)) return ext;
    return "";
}

std::vector<SharedGraph> read_workload_prefix(const std::string& prefix, int ranks) {
    std::string ext = workload_prefix_extension(prefix);
    if (ext.empty()) ext = ".et";  // the missing rank 0 is named below
    std::vector<SharedGraph> graphs;
    graphs.reserve(static_cast<size_t>(ranks));
    // Files already read, by content: the same bytes make the same graph.
    std::unordered_map<std::string, SharedGraph> by_content;
    for (int r = 0; r < ranks; ++r) {
        const std::string path = prefix + "." + std::to_string(r) + ext;
        if (!std::filesystem::exists(path)) {
            const std::string present = r > 0 ? " (ranks 0-" + std::to_string(r - 1) + " are there)" : "";
            fail({path, -1, -1, ""}, "rank " + std::to_string(r) + "'s workload file is missing" + present + "; the network has " +
                                         std::to_string(ranks) + " NPUs");
        }
        std::ifstream in(path, std::ios::binary);
        std::ostringstream bytes;
        bytes << in.rdbuf();
        SharedGraph& graph = by_content[bytes.str()];
        if (!graph) graph = std::make_shared<const RankGraph>(read_rank_graph(path, r));
        graphs.push_back(graph);
    }
    return graphs;
}

}  // namespace mimic::sim

// One rank's Chakra graph in the form the simulator walks: nodes sorted by
// id, each with the fields ASTRA-sim's workload layer reads, and its children.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "trace/node.h"

namespace mimic {
class Trace;
}

namespace mimic::sim {

// Chakra's CollectiveCommType numbering.
enum class ChakraCollective : int32_t {
    AllReduce = 0, Reduce = 1, AllGather = 2, Gather = 3, Scatter = 4, Broadcast = 5,
    AllToAll = 6, ReduceScatter = 7, ReduceScatterBlock = 8, Barrier = 9, None = -1,
};

struct WorkloadNode {
    uint64_t id = 0;
    ChakraNodeType type = ChakraNodeType::Invalid;
    bool is_cpu_op = false;  // absent means a device (GPU) node, as ASTRA-sim reads it
    uint64_t duration_us = 0;
    uint64_t duration_ns = 0;  // when set (a prediction's finer time), used instead of duration_us
    ChakraCollective comm_type = ChakraCollective::None;
    uint64_t comm_size = 0;
    int64_t comm_src = -1;  // -1: absent (the issuing rank)
    int64_t comm_dst = -1;
    int64_t comm_tag = 0;
    int64_t comm_priority = 0;
    int32_t comm_group = 0;  // pg_name as a number; 0 for "" and "0" (all ranks)
    uint64_t num_ops = 0;
    uint64_t tensor_size = 0;
    uint32_t involved_begin = 0;  // into RankGraph::involved_dims
    uint32_t involved_count = 0;  // 0: attribute absent (all dimensions)
    uint32_t parents = 0;         // distinct dependencies (data and control)
    uint32_t children_begin = 0;  // into RankGraph::children
    uint32_t children_count = 0;
};

bool operator==(const WorkloadNode& a, const WorkloadNode& b);

struct RankGraph {
    int rank = 0;
    std::string file;
    std::vector<WorkloadNode> nodes;   // sorted by id
    std::vector<uint32_t> children;    // node positions
    std::vector<uint8_t> involved_dims;
    std::vector<std::string> warnings;
    const WorkloadNode* find(uint64_t id) const;
    // The same graph: nodes, dependencies and attributes (file and rank aside).
    bool same_graph(const RankGraph& other) const;
};

// Collects nodes with their dependencies (node ids, data and control alike)
// and makes the graph: nodes sorted by id, children listed, dependencies on
// absent nodes or on the node itself dropped with a warning naming the file
// and node, a cycle or a duplicate id thrown as mimic::Error.
class RankGraphBuilder {
public:
    RankGraphBuilder(std::string file, int rank) {
        graph_.file = std::move(file);
        graph_.rank = rank;
    }
    void add(const WorkloadNode& node, const std::vector<uint64_t>& deps);
    RankGraph& graph() { return graph_; }  // for attributes read into it while adding
    RankGraph finish();

private:
    RankGraph graph_;
    std::vector<uint64_t> deps_;
};

// Builds a rank's graph from a Chakra trace. Dependencies on absent nodes or
// on the node itself are dropped with a warning naming the file and node (they
// could never be met); a dependency cycle, a duplicate node id or an
// attribute of the wrong kind throws mimic::Error naming file, node and field.
RankGraph build_rank_graph(const Trace& trace, int rank);

// Reads one rank's Chakra file (plain or gzip; protobuf or one of Chakra's
// JSON forms).
RankGraph read_rank_graph(const std::string& path, int rank);

// Graphs of a workload, one per rank; ranks whose files are byte for byte
// the same share one graph (a data-parallel job's thousands of ranks).
using SharedGraph = std::shared_ptr<const RankGraph>;

// The extension of a workload prefix's rank files: ".et" when PREFIX.0.et
// exists, else ".json" when PREFIX.0.json does (the extension Chakra's
// wrapper feeder took for its JSON format), else "".
std::string workload_prefix_extension(const std::string& prefix);

// Reads PREFIX.<r>.et (or .json, as rank 0's) for r in 0..ranks-1, as
// ASTRA-sim does; a missing file throws mimic::Error naming it and the
// ranks that are there.
std::vector<SharedGraph> read_workload_prefix(const std::string& prefix, int ranks);

}  // namespace mimic::sim

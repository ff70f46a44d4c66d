// ASTRA-sim's system-layer configuration (the system JSON) and the command
// line options of its analytical binaries that change results.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "sim/shared_cores.h"

namespace mimic::sim {

enum class CollectiveKind : uint8_t { AllReduce, ReduceScatter, AllGather, AllToAll };
inline constexpr int kCollectiveKinds = 4;
const char* collective_name(CollectiveKind kind);
// The system file's key for its implementations: "all-reduce-implementation".
const char* implementation_key(CollectiveKind kind);

enum class AlgorithmKind : uint8_t { Ring, OneRing, Direct, OneDirect, HalvingDoubling, OneHalvingDoubling, DoubleBinaryTree };
const char* algorithm_name(AlgorithmKind kind);

struct CollectiveImpl {
    AlgorithmKind kind = AlgorithmKind::Ring;
    int window = -1;  // directK's K; -1: all peers at once
    // The implementations that build one flat ring over every NPU.
    bool flat() const {
        return kind == AlgorithmKind::OneRing || kind == AlgorithmKind::OneDirect || kind == AlgorithmKind::OneHalvingDoubling;
    }
};

enum class SchedulingPolicy : uint8_t { Lifo, Fifo, Explicit };

struct SystemConfig {
    std::string source;
    SchedulingPolicy scheduling = SchedulingPolicy::Lifo;
    bool local_bw_aware = false;  // collective-optimization: localBWAware (else baseline)
    int active_chunks_per_dimension = 1;
    int preferred_dataset_splits = 1;
    double endpoint_delay = 10;   // ns, before injection-scale
    int local_reduction_delay = 1;
    double peak_perf_tflops = 0;
    double local_mem_bw_GBps = 0;  // 0: reductions cost nothing (not set)
    bool roofline = false;
    bool replay_only = false;
    // One list per CollectiveKind, one implementation per network dimension.
    std::vector<CollectiveImpl> implementations[kCollectiveKinds];
    // Custom implementations (`*-implementation-custom`): the path prefix of
    // a Chakra graph per NPU, PREFIX.<position>.et, of sends, receives and
    // reduction COMP nodes run in place of the native algorithm over every
    // dimension; "" where the native one runs.
    std::string custom_implementations[kCollectiveKinds];
    // `per-node-custom-implementation`: a YAML file mapping workload node ids
    // to such prefixes, which take precedence for those nodes.
    std::map<int64_t, std::string> per_node_custom;
    bool any_custom() const;
};

// Reads every key ASTRA-sim reads. Unknown keys, and keys its documentation
// lists but its code never reads (boost-mode, intra-/inter-dimension-scheduling),
// become warnings naming the key; so do defaults taken for missing keys.
// Throws mimic::Error naming the file and key for values it cannot use.
SystemConfig read_system_config(const std::string& path, std::vector<std::string>& warnings);
SystemConfig parse_system_config(const std::string& text, const std::string& source, std::vector<std::string>& warnings);

// The options of ASTRA-sim's command line that change results, same names.
struct RunOptions {
    int num_queues_per_dim = 1;
    double comm_scale = 1;       // ASTRA-sim ignores it; mimic scales every communication size
    double compute_scale = 1;    // ASTRA-sim ignores it; mimic scales every compute duration
    double injection_scale = 1;  // scales endpoint-delay, as in ASTRA-sim
    bool rendezvous = false;
    bool congestion_aware = false;
    // What-if: these ranks compute this many times slower (--straggler RANK=FACTOR).
    std::map<int, double> straggler;
    // Ranks sharing a host's cores (mimic predict of local Gloo ranks); off for ASTRA-sim's inputs.
    HostCores host_cores;
    // Collectives one rank runs at once. ASTRA-sim's workload layer keeps one
    // in flight (as NCCL runs a process group's collectives on one stream);
    // Gloo's process group runs one per worker thread, two by default, and
    // DDP's buckets overlap pairwise in its profiles (docs/findings.md, 2026-12-07).
    int collectives_in_flight = 1;
};

// Remote memory (ASTRA-sim's remote-memory JSON).
struct RemoteMemoryConfig {
    std::string type = "NO_MEMORY_EXPANSION";
    double latency_ns = 0;
    double bytes_per_ns = 0;       // remote-mem-bw, as ASTRA-sim divides by it
    int num_nodes = 0;             // PER_NODE_MEMORY_EXPANSION
    int npus_per_node = 0;
};
RemoteMemoryConfig read_remote_memory_config(const std::string& path, std::vector<std::string>& warnings);

}  // namespace mimic::sim

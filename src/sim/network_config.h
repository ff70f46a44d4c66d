// ASTRA-sim's network description (the analytical backends' YAML): one entry
// per dimension, dimension 0 varying fastest in a rank's coordinates.
#pragma once

#include <string>
#include <vector>

namespace mimic::sim {

enum class TopologyKind { Ring, Switch, FullyConnected };

struct NetworkDimension {
    TopologyKind topology = TopologyKind::Ring;
    int npus = 0;
    double bandwidth_GBps = 0;  // 1 GB/s = 2^30 bytes per 1e9 ns, as ASTRA-sim counts
    double latency_ns = 0;
};

struct NetworkConfig {
    std::string source;  // file it was read from, for messages
    std::vector<NetworkDimension> dims;
    int total_npus() const;
    // Bytes per ns of a dimension's links.
    double bytes_per_ns(size_t dim) const;
};

// Reads the YAML keys topology, npus_count, bandwidth and latency (flow lists
// "[a, b]", block lists "- a" or scalars). Throws mimic::Error naming the file
// and key on a missing key, lists of different lengths, an unknown topology or
// a non-positive count or bandwidth; unknown keys are returned as warnings.
NetworkConfig read_network_config(const std::string& path, std::vector<std::string>& warnings);
NetworkConfig parse_network_config(const std::string& text, const std::string& source,
                                   std::vector<std::string>& warnings);

const char* topology_name(TopologyKind kind);

}  // namespace mimic::sim

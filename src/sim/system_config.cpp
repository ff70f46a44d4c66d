#include "sim/system_config.h"

#include <simdjson.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "sim/yaml_line.h"
#include "support/error.h"
#include "support/json_file.h"

namespace mimic::sim {
namespace {

using simdjson::dom::element;

double number_of(element value, const std::string& source, const std::string& key) { return json_number(value, source, key); }

std::string string_of(element value, const std::string& source, const std::string& key) {
    std::string_view s;
    if (value.get(s) != simdjson::SUCCESS) fail({source, -1, -1, key}, "expected a string");
    return std::string(s);
}

CollectiveImpl impl_of(const std::string& text, const std::string& source, const std::string& key) {
    CollectiveImpl impl;
    auto window = [&](size_t prefix) {
        if (text.size() == prefix) return -1;
        try {
            const int k = std::stoi(text.substr(prefix));
            if (k < 1) throw std::invalid_argument(text);
            return k;
        } catch (const std::exception&) {
            fail({source, -1, -1, key}, "bad window in '" + text + "'");
        }
    };
    if (text == "ring") impl.kind = AlgorithmKind::Ring;
    else if (text == "oneRing") impl.kind = AlgorithmKind::OneRing;
    else if (text == "doubleBinaryTree") impl.kind = AlgorithmKind::DoubleBinaryTree;
    else if (text == "halvingDoubling") impl.kind = AlgorithmKind::HalvingDoubling;
    else if (text == "oneHalvingDoubling") impl.kind = AlgorithmKind::OneHalvingDoubling;
    else if (text.rfind("oneDirect", 0) == 0) impl = {AlgorithmKind::OneDirect, window(9)};
    else if (text.rfind("direct", 0) == 0) impl = {AlgorithmKind::Direct, window(6)};
    else
        fail({source, -1, -1, key},
             "unknown implementation '" + text +
                 "' (ring, oneRing, direct, directK, oneDirect, halvingDoubling, oneHalvingDoubling, doubleBinaryTree)");
    return impl;
}

int custom_key_kind(const std::string& key) {
    for (int c = 0; c < kCollectiveKinds; ++c)
        if (key == std::string(implementation_key(static_cast<CollectiveKind>(c))) + "-custom") return c;
    return -1;
}

// ASTRA-sim opens the paths of custom implementations relative to its
// working directory (its examples name them from the repository's root). mimic
// takes them as given when they exist, else relative to the configuration's
// own directory or the nearest directory above it where they do, so the
// examples run from anywhere.
std::string resolve_from(const std::string& path, const std::string& source, const std::string& probe_suffix) {
    namespace fs = std::filesystem;
    if (fs::exists(path + probe_suffix) || fs::path(path).is_absolute()) return path;
    for (fs::path dir = fs::absolute(source).parent_path();; dir = dir.parent_path()) {
        const fs::path candidate = dir / path;
        if (fs::exists(candidate.string() + probe_suffix)) return candidate.string();
        if (dir == dir.parent_path()) break;
    }
    return path;
}

std::string resolve_custom_prefix(const std::string& prefix, const std::string& source, const std::string& key) {
    const std::string found = resolve_from(prefix, source, ".0.et");
    if (!std::filesystem::exists(found + ".0.et"))
        fail({source, -1, -1, key}, "no " + prefix + ".0.et, in the working directory or under the directories above " + source);
    return found;
}

std::string resolve_beside(const std::string& file, const std::string& source) {
    const std::string found = resolve_from(file, source, "");
    if (!std::filesystem::exists(found))
        fail({source, -1, -1, "per-node-custom-implementation"}, "no " + file + ", in the working directory or under the directories above " + source);
    return found;
}

// A YAML mapping of workload node ids to path prefixes ("12: path/prefix").
std::map<int64_t, std::string> read_per_node_custom(const std::string& file, const std::string& source, const std::string& key) {
    std::ifstream in(file);
    if (!in) fail({source, -1, -1, key}, "cannot open " + file);
    std::map<int64_t, std::string> out;
    std::string line;
    int number = 0;
    while (std::getline(in, line)) {
        ++number;
        line = yaml_trim(line);
        if (line.empty() || line.rfind("---", 0) == 0) continue;
        const auto colon = line.find(':');
        const std::string where = file + " line " + std::to_string(number);
        if (colon == std::string::npos) fail({source, -1, -1, key}, where + ": expected 'NODE_ID: PATH_PREFIX'");
        const std::string id_text = yaml_unquote(yaml_trim(line.substr(0, colon)));
        const std::string prefix = yaml_unquote(yaml_trim(line.substr(colon + 1)));
        int64_t id = 0;
        try {
            size_t used = 0;
            id = std::stoll(id_text, &used);
            if (used != id_text.size()) throw std::invalid_argument(id_text);
        } catch (const std::exception&) {
            fail({source, -1, -1, key}, where + ": '" + id_text + "' is not a node id");
        }
        if (prefix.empty()) fail({source, -1, -1, key}, where + ": no path prefix for node " + id_text);
        out[id] = resolve_custom_prefix(prefix, file, key);
    }
    return out;
}

}  // namespace

bool SystemConfig::any_custom() const {
    for (const auto& prefix : custom_implementations)
        if (!prefix.empty()) return true;
    return !per_node_custom.empty();
}

const char* implementation_key(CollectiveKind kind) {
    static const char* const kKeys[kCollectiveKinds] = {"all-reduce-implementation", "reduce-scatter-implementation",
                                                        "all-gather-implementation", "all-to-all-implementation"};
    return kKeys[static_cast<int>(kind)];
}

const char* collective_name(CollectiveKind kind) {
    switch (kind) {
        case CollectiveKind::AllReduce: return "all_reduce";
        case CollectiveKind::ReduceScatter: return "reduce_scatter";
        case CollectiveKind::AllGather: return "all_gather";
        case CollectiveKind::AllToAll: return "all_to_all";
    }
    return "?";
}

const char* algorithm_name(AlgorithmKind kind) {
    switch (kind) {
        case AlgorithmKind::Ring: return "ring";
        case AlgorithmKind::OneRing: return "oneRing";
        case AlgorithmKind::Direct: return "direct";
        case AlgorithmKind::OneDirect: return "oneDirect";
        case AlgorithmKind::HalvingDoubling: return "halvingDoubling";
        case AlgorithmKind::OneHalvingDoubling: return "oneHalvingDoubling";
        case AlgorithmKind::DoubleBinaryTree: return "doubleBinaryTree";
    }
    return "?";
}

SystemConfig parse_system_config(const std::string& text, const std::string& source, std::vector<std::string>& warnings) {
    simdjson::dom::parser parser;
    simdjson::padded_string padded(text);
    simdjson::dom::object root;
    if (parser.parse(padded).get(root) != simdjson::SUCCESS) fail({source, -1, -1, ""}, "not a JSON object");

    SystemConfig config;
    config.source = source;
    bool have_splits = false, have_policy = false, have_optimization = false, have_mem_bw = false;
    for (auto field : root) {
        const std::string key(field.key);
        const element value = field.value;
        if (key == "scheduling-policy") {
            const std::string v = string_of(value, source, key);
            if (v == "LIFO") config.scheduling = SchedulingPolicy::Lifo;
            else if (v == "FIFO") config.scheduling = SchedulingPolicy::Fifo;
            else if (v == "EXPLICIT") config.scheduling = SchedulingPolicy::Explicit;
            else fail({source, -1, -1, key}, "'" + v + "' is not LIFO, FIFO or EXPLICIT");
            have_policy = true;
        } else if (key == "collective-optimization") {
            const std::string v = string_of(value, source, key);
            if (v == "localBWAware") config.local_bw_aware = true;
            else if (v == "baseline") config.local_bw_aware = false;
            else fail({source, -1, -1, key}, "'" + v + "' is not baseline or localBWAware");
            have_optimization = true;
        } else if (key == "active-chunks-per-dimension") {
            const double v = number_of(value, source, key);
            if (v < 1) fail({source, -1, -1, key}, "must be at least 1");
            config.active_chunks_per_dimension = static_cast<int>(v);
        } else if (key == "preferred-dataset-splits") {
            const double v = number_of(value, source, key);
            if (v < 1) fail({source, -1, -1, key}, "must be at least 1");
            config.preferred_dataset_splits = static_cast<int>(v);
            have_splits = true;
        } else if (key == "endpoint-delay") {
            config.endpoint_delay = number_of(value, source, key);
            if (config.endpoint_delay < 0) fail({source, -1, -1, key}, "must be >= 0");
        } else if (key == "local-reduction-delay") {
            config.local_reduction_delay = static_cast<int>(number_of(value, source, key));
        } else if (key == "peak-perf") {
            config.peak_perf_tflops = number_of(value, source, key);
        } else if (key == "local-mem-bw") {
            config.local_mem_bw_GBps = number_of(value, source, key);
            if (config.local_mem_bw_GBps < 0) fail({source, -1, -1, key}, "must be >= 0");
            have_mem_bw = true;
        } else if (key == "roofline-enabled") {
            config.roofline = number_of(value, source, key) != 0;
        } else if (key == "replay-only") {
            config.replay_only = number_of(value, source, key) != 0;
        } else if (key == "trace-enabled" || key == "track-local-mem" || key == "local-mem-trace-filename") {
            // Logging switches: no effect on simulated times.
        } else if (key == "model-shared-bus" || key == "L" || key == "o" || key == "g" || key == "G") {
            if (key != "model-shared-bus" || number_of(value, source, key) != 0)
                warnings.push_back(source + ": '" + key + "' (the LogGP shared-bus model) is not modelled by mimic and is ignored");
        } else if (key == "boost-mode" || key == "intra-dimension-scheduling" || key == "inter-dimension-scheduling") {
            warnings.push_back(source + ": '" + key + "' has no effect (ASTRA-sim documents it but never reads it)");
        } else if (const int custom = custom_key_kind(key); custom >= 0) {
            simdjson::dom::array list;
            if (value.get(list) != simdjson::SUCCESS || list.size() != 1)
                fail({source, -1, -1, key}, "expected a list of one Chakra path prefix (it covers every network dimension)");
            config.custom_implementations[custom] = resolve_custom_prefix(string_of(list.at(0), source, key), source, key);
        } else if (key == "per-node-custom-implementation") {
            const std::string file = resolve_beside(string_of(value, source, key), source);
            config.per_node_custom = read_per_node_custom(file, source, key);
        } else {
            bool impl_key = false;
            for (int c = 0; c < kCollectiveKinds; ++c) {
                if (key != implementation_key(static_cast<CollectiveKind>(c))) continue;
                impl_key = true;
                simdjson::dom::array list;
                if (value.get(list) != simdjson::SUCCESS) fail({source, -1, -1, key}, "expected a list of implementations");
                for (element item : list) config.implementations[c].push_back(impl_of(string_of(item, source, key), source, key));
                if (config.implementations[c].empty()) fail({source, -1, -1, key}, "empty list");
            }
            if (!impl_key) warnings.push_back(source + ": unknown system key '" + key + "' ignored");
        }
    }
    if (!have_splits) warnings.push_back(source + ": 'preferred-dataset-splits' not set; using 1");
    if (!have_policy) warnings.push_back(source + ": 'scheduling-policy' not set; using LIFO");
    if (!have_optimization) warnings.push_back(source + ": 'collective-optimization' not set; using baseline");
    if (!have_mem_bw) warnings.push_back(source + ": 'local-mem-bw' not set; reductions take no time");
    if (config.roofline && (config.peak_perf_tflops <= 0 || config.local_mem_bw_GBps <= 0))
        fail({source, -1, -1, "roofline-enabled"}, "the roofline needs peak-perf and local-mem-bw above 0");
    return config;
}

SystemConfig read_system_config(const std::string& path, std::vector<std::string>& warnings) {
    simdjson::padded_string text;
    if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS)
        fail({path, -1, -1, ""}, "cannot open the system configuration");
    return parse_system_config(std::string(text.data(), text.size()), path, warnings);
}

RemoteMemoryConfig read_remote_memory_config(const std::string& path, std::vector<std::string>& warnings) {
    simdjson::padded_string text;
    if (simdjson::padded_string::load(path).get(text) != simdjson::SUCCESS)
        fail({path, -1, -1, ""}, "cannot open the remote-memory configuration");
    simdjson::dom::parser parser;
    simdjson::dom::object root;
    if (parser.parse(text).get(root) != simdjson::SUCCESS) fail({path, -1, -1, ""}, "not a JSON object");
    RemoteMemoryConfig config;
    for (auto field : root) {
        const std::string key(field.key);
        if (key == "memory-type") {
            config.type = string_of(field.value, path, key);
            if (config.type != "NO_MEMORY_EXPANSION" && config.type != "PER_NODE_MEMORY_EXPANSION" &&
                config.type != "PER_NPU_MEMORY_EXPANSION" && config.type != "MEMORY_POOL")
                fail({path, -1, -1, key}, "unknown memory type '" + config.type + "'");
        } else if (key == "remote-mem-latency") {
            config.latency_ns = number_of(field.value, path, key);
        } else if (key == "remote-mem-bw") {
            config.bytes_per_ns = number_of(field.value, path, key);
        } else if (key == "num-nodes") {
            config.num_nodes = static_cast<int>(number_of(field.value, path, key));
        } else if (key == "num-npus-per-node") {
            config.npus_per_node = static_cast<int>(number_of(field.value, path, key));
        } else {
            warnings.push_back(path + ": unknown remote-memory key '" + key + "' ignored");
        }
    }
    if (config.type != "NO_MEMORY_EXPANSION" && config.bytes_per_ns <= 0)
        fail({path, -1, -1, "remote-mem-bw"}, "must be above 0 for " + config.type);
    if (config.type == "PER_NODE_MEMORY_EXPANSION" && (config.num_nodes < 1 || config.npus_per_node < 1))
        fail({path, -1, -1, "num-npus-per-node"}, "PER_NODE_MEMORY_EXPANSION needs num-nodes and num-npus-per-node");
    return config;
}

}  // namespace mimic::sim

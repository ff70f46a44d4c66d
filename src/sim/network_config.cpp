#include "sim/network_config.h"

#include <cmath>
#include <fstream>
#include <map>
#include <sstream>

#include "sim/yaml_line.h"
#include "support/error.h"

namespace mimic::sim {
namespace {

std::vector<std::string> split_flow_list(const std::string& text) {
    std::vector<std::string> items;
    std::string inner = text.substr(1, text.size() - 2);
    std::stringstream in(inner);
    std::string item;
    while (std::getline(in, item, ',')) {
        item = yaml_trim(item);
        if (!item.empty()) items.push_back(yaml_unquote(item));
    }
    return items;
}

double parse_number(const std::string& text, const std::string& source, const std::string& key) {
    try {
        size_t used = 0;
        const double v = std::stod(text, &used);
        if (used != text.size() || !std::isfinite(v)) throw std::invalid_argument(text);
        return v;
    } catch (const std::exception&) {
        fail({source, -1, -1, key}, "'" + text + "' is not a number");
    }
}

}  // namespace

const char* topology_name(TopologyKind kind) {
    switch (kind) {
        case TopologyKind::Ring: return "Ring";
        case TopologyKind::Switch: return "Switch";
        case TopologyKind::FullyConnected: return "FullyConnected";
    }
    return "?";
}

int NetworkConfig::total_npus() const {
    int total = 1;
    for (const auto& d : dims) total *= d.npus;
    return total;
}

double NetworkConfig::bytes_per_ns(size_t dim) const {
    return dims[dim].bandwidth_GBps * static_cast<double>(1u << 30) / 1e9;
}

NetworkConfig parse_network_config(const std::string& text, const std::string& source,
                                   std::vector<std::string>& warnings) {
    std::map<std::string, std::vector<std::string>> values;
    std::stringstream in(text);
    std::string line;
    std::string open_block;  // key whose block list ("- item" lines) is being read
    int line_no = 0;
    while (std::getline(in, line)) {
        ++line_no;
        const std::string t = yaml_trim(line);
        if (t.empty() || t == "---") continue;
        if (t[0] == '-') {
            if (open_block.empty()) fail({source, -1, -1, "line " + std::to_string(line_no)}, "list item outside a key");
            values[open_block].push_back(yaml_unquote(yaml_trim(t.substr(1))));
            continue;
        }
        const auto colon = t.find(':');
        if (colon == std::string::npos) fail({source, -1, -1, "line " + std::to_string(line_no)}, "expected 'key: value'");
        const std::string key = yaml_trim(t.substr(0, colon));
        const std::string rest = yaml_trim(t.substr(colon + 1));
        open_block.clear();
        if (rest.empty()) {
            open_block = key;
            values[key];
        } else if (rest.front() == '[') {
            if (rest.back() != ']') fail({source, -1, -1, key}, "unterminated list");
            values[key] = split_flow_list(rest);
        } else {
            values[key] = {yaml_unquote(rest)};
        }
    }
    static const char* const kKnown[] = {"topology", "npus_count", "bandwidth", "latency"};
    for (const auto& [key, list] : values) {
        bool known = false;
        for (const char* k : kKnown) known = known || key == k;
        if (!known) warnings.push_back(source + ": unknown network key '" + key + "' ignored");
    }
    for (const char* k : kKnown)
        if (!values.count(k)) fail({source, -1, -1, k}, "missing key");
    const size_t n = values["topology"].size();
    if (n == 0) fail({source, -1, -1, "topology"}, "empty list");
    for (const char* k : kKnown)
        if (values[k].size() != n)
            fail({source, -1, -1, k}, "has " + std::to_string(values[k].size()) + " entries, topology has " + std::to_string(n));

    NetworkConfig config;
    config.source = source;
    for (size_t d = 0; d < n; ++d) {
        NetworkDimension dim;
        const std::string& topo = values["topology"][d];
        if (topo == "Ring") dim.topology = TopologyKind::Ring;
        else if (topo == "Switch") dim.topology = TopologyKind::Switch;
        else if (topo == "FullyConnected") dim.topology = TopologyKind::FullyConnected;
        else fail({source, -1, -1, "topology"}, "unknown topology '" + topo + "' (Ring, Switch or FullyConnected)");
        const double npus = parse_number(values["npus_count"][d], source, "npus_count");
        if (npus < 1 || npus != std::floor(npus) || npus > 1e7)
            fail({source, -1, -1, "npus_count"}, "dimension " + std::to_string(d) + " has " + values["npus_count"][d] + " NPUs");
        dim.npus = static_cast<int>(npus);
        dim.bandwidth_GBps = parse_number(values["bandwidth"][d], source, "bandwidth");
        if (dim.bandwidth_GBps <= 0) fail({source, -1, -1, "bandwidth"}, "dimension " + std::to_string(d) + " bandwidth must be > 0");
        dim.latency_ns = parse_number(values["latency"][d], source, "latency");
        if (dim.latency_ns < 0) fail({source, -1, -1, "latency"}, "dimension " + std::to_string(d) + " latency must be >= 0");
        config.dims.push_back(dim);
    }
    double total = 1;
    for (const auto& d : config.dims) total *= d.npus;
    if (total > 1e7) fail({source, -1, -1, "npus_count"}, "more than 10 million NPUs");
    return config;
}

NetworkConfig read_network_config(const std::string& path, std::vector<std::string>& warnings) {
    std::ifstream in(path);
    if (!in) fail({path, -1, -1, ""}, "cannot open the network configuration");
    std::stringstream text;
    text << in.rdbuf();
    return parse_network_config(text.str(), path, warnings);
}

}  // namespace mimic::sim

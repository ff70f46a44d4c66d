#include "io/recording/op_faults.h"

#include <simdjson.h>

#include "io/recording/recording_dir.h"
#include "support/error.h"
#include "support/json_file.h"

namespace mimic {

OpFaults read_op_faults(const std::string& path) {
    OpFaults out;
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object doc = parse_json_object_file(path, parser, text);
    simdjson::dom::array pairs;
    if (doc["faults"].get_array().get(pairs) != simdjson::SUCCESS)
        fail({path, -1, -1, "faults"}, "expected a list of [node id, page faults] pairs");
    size_t i = 0;
    for (simdjson::dom::element e : pairs) {
        const std::string field = "faults[" + std::to_string(i++) + "]";
        simdjson::dom::array pair;
        uint64_t node = 0;
        int64_t faults = 0;
        if (e.get_array().get(pair) != simdjson::SUCCESS || pair.size() != 2 ||
            pair.at(0).get_uint64().get(node) != simdjson::SUCCESS ||
            pair.at(1).get_int64().get(faults) != simdjson::SUCCESS)
            fail({path, -1, -1, field}, "expected [node id, page faults], two non-negative integers");
        if (faults < 0 || faults > (int64_t(1) << 40))
            fail({path, static_cast<int64_t>(node), -1, field},
                 "page faults " + std::to_string(faults) + " out of range (0 to 2^40)");
        out.by_node[node] = faults;
        out.total += faults;
    }
    return out;
}

std::optional<OpFaults> read_op_faults_beside(const std::string& meta_path) {
    const std::optional<std::string> path = recording_file_beside(meta_path, "op_faults.json");
    if (!path) return std::nullopt;
    return read_op_faults(*path);
}

}  // namespace mimic

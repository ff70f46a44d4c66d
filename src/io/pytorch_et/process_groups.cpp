#include "io/pytorch_et/process_groups.h"

#include <simdjson.h>

namespace mimic {

void read_process_groups(Trace& trace) {
    for (const Node& node : trace.nodes) {
        if (node.kind != NodeKind::ProcessGroupInit || node.inputs.count == 0) continue;
        const Value& v = trace.values[node.inputs.begin];
        if (v.kind != ValueKind::String) continue;
        std::string_view text = trace.str(v.payload.str);
        simdjson::dom::parser parser;
        simdjson::padded_string padded(text);
        simdjson::dom::array groups;
        if (parser.parse(padded).get_array().get(groups) != simdjson::SUCCESS) {
            trace.warn("node " + std::to_string(node.id.value) + ": process group description is not a JSON list");
            continue;
        }
        for (simdjson::dom::element g : groups) {
            ProcessGroup pg;
            std::string_view s;
            int64_t i;
            uint64_t u;
            if (g["pg_name"].get_string().get(s) == simdjson::SUCCESS) pg.name = std::string(s);
            else if (g["pg_name"].get_int64().get(i) == simdjson::SUCCESS) pg.name = std::to_string(i);
            if (g["pg_desc"].get_string().get(s) == simdjson::SUCCESS) pg.desc = std::string(s);
            if (g["backend_config"].get_string().get(s) == simdjson::SUCCESS) pg.backend = std::string(s);
            if (g["group_size"].get_int64().get(i) == simdjson::SUCCESS) pg.size = i;
            simdjson::dom::array ranks;
            if (g["ranks"].get_array().get(ranks) == simdjson::SUCCESS) {
                for (simdjson::dom::element r : ranks) {
                    if (r.get_int64().get(i) == simdjson::SUCCESS) pg.ranks.push_back(i);
                    else if (r.get_uint64().get(u) == simdjson::SUCCESS) pg.ranks.push_back(static_cast<int64_t>(u));
                }
            }
            trace.process_groups.push_back(std::move(pg));
        }
        return;  // one init label per trace
    }
}

}  // namespace mimic

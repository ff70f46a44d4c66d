// Chakra traces as JSON and back, message for message, with protobuf's own
// JSON mapping (field names as in et_def.proto): {"metadata": {...},
// "nodes": [{...}, ...]}, one node per line. Encoding a dump gives the same
// message bytes as the trace it came from.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>

namespace mimic {

struct ChakraJsonStats {
    uint64_t nodes = 0;
    uint64_t bytes = 0;  // bytes written (JSON text for dump, .et for encode)
};

// Writes the JSON of the Chakra trace at `et_path` (plain or gzip) to `out`.
// Throws mimic::Error on a broken trace or a write error.
ChakraJsonStats dump_chakra_json(const std::string& et_path, std::ostream& out);

// Reads a JSON dump (plain or gzip, streamed: the nodes array need not fit
// in memory twice) and writes the Chakra trace `et_path`. Throws
// mimic::Error naming the node index and field on JSON that does not map to
// the schema.
ChakraJsonStats encode_chakra_json(const std::string& json_path, const std::string& et_path);

}  // namespace mimic

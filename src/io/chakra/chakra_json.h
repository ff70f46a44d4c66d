// Chakra traces as JSON and back, message for message, with protobuf's own
// JSON mapping (field names as in et_def.proto): {"metadata": {...},
// "nodes": [{...}, ...]}, one node per line. Encoding a dump gives the same
// message bytes as the trace it came from. Encoding also takes the JSON
// forms Chakra's own tools write (chakra_json_forms.h), and
// read_chakra_json reads any of them as a trace.
#pragma once

#include <cstdint>
#include <ostream>
#include <string>
#include <vector>

#include "io/chakra/chakra_reader.h"

namespace mimic {

struct ChakraJsonStats {
    uint64_t nodes = 0;
    uint64_t bytes = 0;  // bytes written (JSON text for dump, .et for encode)
    // Encode: what of the input no Chakra message holds (fields dropped).
    std::vector<std::string> warnings;
};

// Writes the JSON of the Chakra trace at `et_path` (plain or gzip) to `out`.
// Throws mimic::Error on a broken trace or a write error.
ChakraJsonStats dump_chakra_json(const std::string& et_path, std::ostream& out);

// Reads a Chakra trace as JSON (plain or gzip, streamed: the nodes need not
// fit in memory twice) in any form chakra_json_form() knows (mimic's dump,
// Chakra's jsonizer output, Chakra's JSON feeder format) and writes the
// Chakra trace `et_path`. Throws mimic::Error naming the node index and
// field on JSON that does not map to the schema, and naming the file when it
// is none of those forms.
ChakraJsonStats encode_chakra_json(const std::string& json_path, const std::string& et_path);

// True when the file is a Chakra trace in one of those JSON forms.
bool is_chakra_json(const std::string& path);

// Reads a Chakra trace written as JSON: encoded into a temporary .et and
// read by read_chakra, so it means exactly what the same messages mean in a
// .et file. The trace's source is `json_path`, its rank from that name
// (PREFIX.<rank>.json), and dropped fields are one warning each.
Trace read_chakra_json(const std::string& json_path, const ChakraReadOptions& options = {});

// read_chakra or read_chakra_json, by the file's content.
Trace read_chakra_any(const std::string& path, const ChakraReadOptions& options = {});

}  // namespace mimic

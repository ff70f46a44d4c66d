// The JSON forms a Chakra trace is found in, besides mimic's own dump:
// - Chakra's jsonizer (src/jsonizer): protobuf's MessageToJson of the
//   GlobalMetadata and then of each Node, objects written one after another
//   with no array around them, field names in lowerCamelCase, enums by name
//   and 64-bit integers as strings.
// - Chakra's JSON feeder (src/feeder/json_node.cpp, the format ASTRA-sim's
//   wrapper feeder picked by the ".json" extension): {"workload_graph":
//   [{"Id", "Name", "NodeType", "is_cpu_op", "runtime", "data_deps",
//   "ctrlDeps", "comm_type", "comm_size", ...}]}, flat fields and no
//   GlobalMetadata.
// Each is turned into the protobuf messages of a .et file, so every reader
// of Chakra traces reads all of them.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace mimic {

class ChakraFrameWriter;

enum class ChakraJsonForm {
    NotChakra,
    MimicDump,  // {"metadata": {...}, "nodes": [...]}, what `mimic dump` writes
    Jsonizer,
    Feeder,
};

// Decides from the first bytes of a file (a few KiB suffice) which form it
// is; NotChakra for anything else, PyTorch ETs and Kineto traces included.
ChakraJsonForm chakra_json_form(std::string_view head);

// What an encode found besides the nodes it wrote.
struct ChakraJsonEncodeNotes {
    uint64_t nodes = 0;
    // Feeder fields no Chakra message has, each named once with its count.
    std::vector<std::string> ignored_fields;
};

// Encode the feeder form at `json_path` (plain or gzip; chakra_json_form()
// has found it to be one, so "workload_graph" is there) into `out`: an empty
// GlobalMetadata, then each node: Id, Name, NodeType, runtime (as
// duration_micros), data_deps, ctrlDeps (as ctrl_deps: the schema's control
// dependencies; the JSON feeder itself ignored them) and the flat attributes
// as the attributes Chakra's converter writes (is_cpu_op bool, comm_type and
// comm_size int64, comm_src/dst/tag/priority int32, tensor_size uint64,
// num_ops int64). Throws mimic::Error naming the file, node index and field
// on a missing Id or NodeType or a value of the wrong type.
ChakraJsonEncodeNotes encode_chakra_feeder_json(const std::string& json_path, ChakraFrameWriter& out);

// Encode the jsonizer form: the first object is the GlobalMetadata, each
// later one a Node, parsed by protobuf's own JSON parser (strict: a field the
// schema lacks is an error naming the object).
ChakraJsonEncodeNotes encode_chakra_jsonizer_json(const std::string& json_path, ChakraFrameWriter& out);

}  // namespace mimic

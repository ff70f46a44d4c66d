// One node of a trace: an operator, a label, a thread or the root, with its
// inputs, outputs and attributes as ranges into the trace's flat arrays.
#pragma once

#include <cstdint>

#include "support/interner.h"
#include "trace/ids.h"
#include "trace/value.h"

namespace mimic {

enum class NodeKind : uint8_t {
    Root,              // [pytorch|profiler|execution_trace|process], its own parent
    Thread,            // [pytorch|profiler|execution_trace|thread]
    Operator,          // has an op schema: a dispatcher op that can be replayed
    Label,             // user record_function, ProfilerStep#N, ## ... ## markers
    Autograd,          // autograd engine wrappers (no schema; their children run)
    ProcessGroupInit,  // ## process_group:init ##
    Unknown,           // a node of a Chakra trace with no PyTorch meaning
};

// Chakra's NodeType numbering, kept so a Chakra trace reads and writes back as it was.
enum class ChakraNodeType : uint8_t {
    Invalid = 0,
    Metadata = 1,
    MemLoad = 2,
    MemStore = 3,
    Comp = 4,
    CommSend = 5,
    CommRecv = 6,
    CommColl = 7,
};

struct Attr {
    StrId name;
    Value value;
};

struct Node {
    NodeId id;
    NodeId parent;  // ET "parent"/"ctrl_deps"; equal to id for the root, 0 when absent
    StrId name;
    StrId op_schema;
    NodeKind kind = NodeKind::Unknown;
    ChakraNodeType chakra_type = ChakraNodeType::Invalid;  // set for Chakra input, else derived on write
    int32_t scope = -1;
    int64_t seq_id = -1;
    uint64_t rf_id = 0;
    uint64_t fw_parent = 0;
    uint64_t tid = 0;
    uint64_t fw_tid = 0;
    ValueRange inputs;   // top-level input values (contiguous in Trace::values)
    ValueRange outputs;
    ValueRange attrs;    // attributes with no field above, in Trace::attrs
    ValueRange deps;     // Chakra ctrl_deps beyond the parent, node ids in Trace::edges
    ValueRange data_deps;  // Chakra data_deps, node ids in Trace::edges
    // Chakra timing as written in a Chakra trace; linked profiler timing lives in Trace::timing.
    uint64_t chakra_start_us = 0;
    uint64_t chakra_duration_us = 0;
};

}  // namespace mimic

// Writes a Trace as a Chakra execution trace, PREFIX.<rank>.et (rank 0 when
// the trace does not know its rank). A PyTorch ET is converted (see
// chakra_convert.h for which nodes and dependencies); a trace read from
// Chakra is written back node for node.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

#include "trace/trace.h"

namespace mimic {

struct ChakraWriteOptions {
    bool progress = true;  // progress bar on a terminal for long writes
    // The duration of a host operator that has none from a profile, in us
    // (mimic convert --costs: the cost model's); null leaves it 0.
    std::function<double(const Trace& trace, uint32_t node)> host_op_us;
};

struct ChakraWriteStats {
    std::string path;
    uint64_t nodes = 0;
    uint64_t bytes = 0;
    uint64_t comp_nodes = 0;
    uint64_t comm_coll_nodes = 0;
    uint64_t comm_send_recv_nodes = 0;
    uint64_t device_nodes = 0;      // nodes made from device events (is_cpu_op false)
    uint64_t ctrl_deps = 0;
    uint64_t data_deps = 0;
    uint64_t et_nodes_skipped = 0;  // ET nodes folded into their top-level op or left out
    uint64_t unlinked_events = 0;   // device events with no launching operator
    uint64_t modelled_durations = 0;  // host ops timed by ChakraWriteOptions::host_op_us
};

std::string chakra_output_path(const std::string& prefix, int64_t rank);

// Throws mimic::Error when the file cannot be written.
ChakraWriteStats write_chakra(const Trace& trace, const std::string& prefix, const ChakraWriteOptions& options = {});

// The Chakra schema version mimic writes (the field numbers of proto/et_def.proto).
inline constexpr const char* kChakraSchemaVersion = "0.0.4";

}  // namespace mimic

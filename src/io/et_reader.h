// Reads a PyTorch execution trace (every schema from 1.0.1 to
// 1.1.1-chakra.1.0.0; flat or nested node shape detected per node), plain or
// gzip, streaming the nodes array in batches so traces of many GB read in
// bounded memory.
#pragma once

#include <cstddef>
#include <string>

#include "trace/trace.h"

namespace mimic {

struct EtReadOptions {
    size_t batch_bytes = 8 << 20;  // JSON text handed to the parser at a time
    bool progress = true;          // progress bar on a terminal for long reads
};

// Throws mimic::Error naming file, node id or byte offset, and field.
Trace read_pytorch_et(const std::string& path, const EtReadOptions& options = {});

// Schema versions mimic knows; an unknown one is read with a warning when its
// node shape is one of these.
bool is_known_et_schema(const std::string& version);

}  // namespace mimic

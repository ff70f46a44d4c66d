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
    // JSON text handed to the parser at a time. 1 MiB, about this machine's
    // L2 per core: against 8 MiB it read the ResNet ETs at 355-380 MB/s
    // instead of 220-260 and the 1 GB generated ET at 291 instead of 254, and
    // the parser's buffers (a few times the batch) no longer dominate a
    // 12 MB trace's peak memory (28 MB instead of 75, 20 of it the process).
    size_t batch_bytes = 1 << 20;
    bool progress = true;          // progress bar on a terminal for long reads
};

// Throws mimic::Error naming file, node id or byte offset, and field.
Trace read_pytorch_et(const std::string& path, const EtReadOptions& options = {});

// Schema versions mimic knows; an unknown one is read with a warning when its
// node shape is one of these.
bool is_known_et_schema(const std::string& version);

}  // namespace mimic

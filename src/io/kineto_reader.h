// Reads a profiler trace in Chrome trace JSON, the format Kineto and
// torch.profiler's export_chrome_trace write (and mimic's recorder writes as
// profile.json): {"traceEvents": [...], ...} or a bare list of events, plain
// or gzip (told from the content). The events list is streamed in batches, so
// traces of many GB read in bounded memory.
#pragma once

#include <cstddef>
#include <string>

#include "io/kineto_trace.h"

namespace mimic {

struct KinetoReadOptions {
    size_t batch_bytes = 1 << 20;  // JSON text handed to the parser at a time (see et_reader.h)
    bool progress = true;          // progress bar on a terminal for long reads
};

// Throws mimic::Error naming the file, byte offset and field of what is wrong.
ProfileTrace read_kineto_trace(const std::string& path, const KinetoReadOptions& options = {});

}  // namespace mimic

// Reads a profiler trace in Chrome trace JSON, the format Kineto and
// torch.profiler's export_chrome_trace write (and mimic's recorder writes as
// profile.json): {"traceEvents": [...], ...} or a bare list of events, plain
// or gzip (told from the content). The events list is streamed in batches, so
// traces of many GB read in bounded memory.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "io/kineto/kineto_trace.h"

namespace mimic {

struct KinetoReadOptions {
    size_t batch_bytes = 1 << 20;  // JSON text handed to the parser at a time (see et_reader.h)
    bool progress = true;          // progress bar on a terminal for long reads
};

// Throws mimic::Error naming the file, byte offset and field of what is wrong.
ProfileTrace read_kineto_trace(const std::string& path, const KinetoReadOptions& options = {});

// Kineto's "distributedInfo" object ({"backend", "rank", "world_size", ...})
// from its JSON text; throws mimic::Error naming the file when it is not one.
ProfileDistributedInfo parse_distributed_info(std::string_view raw, const std::string& path, uint64_t offset = 0);

// Which rank and process a profile is of, from its first megabyte only (a
// directory's profiles are paired with their ETs without reading them whole):
// distributedInfo when it is there (PyTorch writes it before the events), and
// the pid of the first event.
struct ProfileIdentity {
    ProfileDistributedInfo distributed;
    int64_t pid = -1;
};
ProfileIdentity peek_profile_identity(const std::string& path);

}  // namespace mimic

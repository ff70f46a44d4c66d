// Opens any trace mimic reads, choosing the reader from the file's content:
// a JSON object with "nodes" is a PyTorch ET; a varint-framed protobuf stream
// is Chakra. Gzip is undone first in both cases.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "io/kineto/kineto_reader.h"
#include "trace/trace.h"

namespace mimic {

// Chakra: a Chakra trace, as protobuf (.et) or in one of its JSON forms.
enum class FileKind { PyTorchEt, KinetoJson, Chakra, Unknown };

// Looks at the first bytes (after gzip) to tell the kind.
FileKind detect_file_kind(const std::string& path);

// The "pid" a PyTorch ET's header gives, from its first kilobytes; -1 when absent.
int64_t peek_et_pid(const std::string& path);

// The rank a trace's path names, -1 when none: "rank3", "rank-3", "rank_3" in
// the file's or its directory's name (any case), else a ".3." part before
// the extensions ("trace.3.json.gz", "workload.3.et").
int64_t rank_from_path(const std::string& path);

// Reads an ET or Chakra trace into a finalized Trace; a trace that does not
// know its rank takes the one its path names (rank_from_path). Throws
// mimic::Error.
Trace load_trace(const std::string& path);

// An input's trace and, when it has one, its profile, each read once: a
// profile given alone (`profile_path` == `trace_path`) is both, its
// operators the trace's nodes. Throws mimic::Error.
struct TraceAndProfile {
    Trace trace;
    std::optional<ProfileTrace> profile;
};
TraceAndProfile load_trace_and_profile(const std::string& trace_path, const std::string& profile_path);

}  // namespace mimic

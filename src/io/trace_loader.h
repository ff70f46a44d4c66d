// Opens any trace mimic reads, choosing the reader from the file's content:
// a JSON object with "nodes" is a PyTorch ET; a varint-framed protobuf stream
// is Chakra. Gzip is undone first in both cases.
#pragma once

#include <string>

#include "trace/trace.h"

namespace mimic {

enum class FileKind { PyTorchEt, KinetoJson, Chakra, Unknown };

// Looks at the first bytes (after gzip) to tell the kind.
FileKind detect_file_kind(const std::string& path);

// Reads an ET or Chakra trace into a finalized Trace. Throws mimic::Error.
Trace load_trace(const std::string& path);

}  // namespace mimic

#include "io/trace_loader.h"

#include <vector>

#include "io/chakra_reader.h"
#include "io/chakra_wire.h"
#include "io/et_reader.h"
#include "support/byte_source.h"
#include "support/error.h"

namespace mimic {

FileKind detect_file_kind(const std::string& path) {
    ByteSource src(path);
    std::vector<char> head;
    while (head.size() < 4096 && src.read(head, 4096 - head.size()) > 0) {
    }
    // Chakra first, by a strict check: a GlobalMetadata 123 or 91 bytes long
    // makes the file start with '{' or '[', which the JSON sniffing below
    // would take for JSON.
    if (looks_like_chakra(std::string_view(head.data(), head.size()))) return FileKind::Chakra;
    size_t i = 0;
    while (i < head.size() && (head[i] == ' ' || head[i] == '\n' || head[i] == '\r' || head[i] == '\t')) ++i;
    if (i < head.size() && (head[i] == '{' || head[i] == '[')) {
        std::string_view text(head.data() + i, head.size() - i);
        if (text.find("\"schema\"") != std::string_view::npos || text.find("\"nodes\"") != std::string_view::npos)
            return FileKind::PyTorchEt;
        if (text.find("\"traceEvents\"") != std::string_view::npos || head[i] == '[') return FileKind::KinetoJson;
        return FileKind::PyTorchEt;  // a JSON object: let the ET reader say what is wrong with it
    }
    // Chakra: a varint length, then GlobalMetadata whose first field is tag 0x0a (field 1, bytes).
    size_t k = 0;
    while (k < head.size() && k < 5 && (static_cast<unsigned char>(head[k]) & 0x80)) ++k;
    if (k + 1 < head.size() && (head[k + 1] == 0x0a || head[k + 1] == 0x12)) return FileKind::Chakra;
    return FileKind::Unknown;
}

Trace load_trace(const std::string& path) {
    {
        ByteSource probe(path);
        std::vector<char> one;
        if (probe.read(one, 1) == 0) fail({path, -1, 0, ""}, "empty file");
    }
    switch (detect_file_kind(path)) {
        case FileKind::PyTorchEt: return read_pytorch_et(path);
        case FileKind::Chakra: return read_chakra(path);
        case FileKind::KinetoJson:
            fail({path, -1, -1, ""}, "this is a profiler (Kineto) trace, not an execution trace; pass it with --profile");
        case FileKind::Unknown: break;
    }
    fail({path, -1, 0, ""}, "unrecognised file: neither a PyTorch execution trace (JSON) nor a Chakra trace");
}

}  // namespace mimic

#include "io/trace_loader.h"

#include <cctype>
#include <filesystem>
#include <string_view>
#include <vector>

#include "io/chakra/chakra_json.h"
#include "io/chakra/chakra_json_forms.h"
#include "io/chakra/chakra_reader.h"
#include "io/chakra/chakra_wire.h"
#include "io/kineto/kineto_reader.h"
#include "io/kineto/profile_skeleton.h"
#include "io/pytorch_et/et_reader.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_file.h"
#include "support/text.h"

namespace mimic {

FileKind detect_file_kind(const std::string& path) {
    const std::string head = read_file_head(path, 4096);
    // Chakra first, by a strict check: a GlobalMetadata 123 or 91 bytes long
    // makes the file start with '{' or '[', which the JSON sniffing below
    // would take for JSON.
    if (looks_like_chakra(std::string_view(head.data(), head.size()))) return FileKind::Chakra;
    size_t i = 0;
    while (i < head.size() && is_json_space(head[i])) ++i;
    if (i < head.size() && (head[i] == '{' || head[i] == '[')) {
        std::string_view text(head.data() + i, head.size() - i);
        // Chakra written as JSON (mimic's dump, Chakra's jsonizer or its JSON
        // feeder format): read as the Chakra trace it encodes.
        if (chakra_json_form(text) != ChakraJsonForm::NotChakra) return FileKind::Chakra;
        if (text.find("\"schema\"") != std::string_view::npos || text.find("\"nodes\"") != std::string_view::npos)
            return FileKind::PyTorchEt;
        // Kineto writes its header first; a long one (a distributedInfo listing
        // 300 ranks' process groups) puts "traceEvents" beyond the head.
        for (const char* key : {"\"traceEvents\"", "\"schemaVersion\"", "\"deviceProperties\"", "\"distributedInfo\""})
            if (text.find(key) != std::string_view::npos) return FileKind::KinetoJson;
        if (head[i] == '[') return FileKind::KinetoJson;
        return FileKind::PyTorchEt;  // a JSON object: let the ET reader say what is wrong with it
    }
    // Chakra: a varint length, then GlobalMetadata whose first field is tag 0x0a (field 1, bytes).
    size_t k = 0;
    while (k < head.size() && k < 5 && (static_cast<unsigned char>(head[k]) & 0x80)) ++k;
    if (k + 1 < head.size() && (head[k + 1] == 0x0a || head[k + 1] == 0x12)) return FileKind::Chakra;
    return FileKind::Unknown;
}

int64_t peek_et_pid(const std::string& path) {
    const std::string text = read_file_head(path, 4096);
    // Only the header's: a "pid" inside the nodes is not the process's.
    const size_t nodes = text.find("\"nodes\"");
    const size_t at = text.find("\"pid\"");
    if (nodes != std::string::npos && at != std::string::npos && at > nodes) return -1;
    return json_int_after_key(text, "pid");
}

namespace {

// "rank" then an optional '-' or '_', then digits, in `name` (any case).
int64_t rank_word(std::string_view name) {
    for (size_t i = 0; i + 4 < name.size(); ++i) {
        if (std::tolower(static_cast<unsigned char>(name[i])) != 'r' || std::tolower(static_cast<unsigned char>(name[i + 1])) != 'a' ||
            std::tolower(static_cast<unsigned char>(name[i + 2])) != 'n' || std::tolower(static_cast<unsigned char>(name[i + 3])) != 'k')
            continue;
        size_t j = i + 4;
        if (j < name.size() && (name[j] == '-' || name[j] == '_')) ++j;
        size_t k = j;
        int64_t rank = 0;
        while (k < name.size() && std::isdigit(static_cast<unsigned char>(name[k])) && k - j < 9) rank = rank * 10 + (name[k++] - '0');
        if (k > j) return rank;
    }
    return -1;
}

}  // namespace

namespace {
void take_rank_from_path(Trace& t, const std::string& path) {
    if (t.rank >= 0) {
        if (t.rank_source.empty()) t.rank_source = "trace";
        return;
    }
    t.rank = rank_from_path(path);
    if (t.rank >= 0) t.rank_source = "file name";
}

// A profile on its own as a trace: its operators as nodes, its rank from its path.
Trace trace_of_profile(const ProfileTrace& profile, const std::string& path) {
    Trace t = trace_skeleton_of_profile(profile);
    take_rank_from_path(t, path);
    return t;
}
}  // namespace

int64_t rank_from_path(const std::string& path) {
    const std::filesystem::path p(path);
    const std::string file = p.filename().string();
    if (int64_t r = rank_word(file); r >= 0) return r;
    // A ".N." part: "trace.3.json.gz", "workload.3.et"; not a version's
    // digits ("et_1.1.1.json": a digit before the dot, or after the next).
    for (size_t dot = file.find('.'); dot != std::string::npos; dot = file.find('.', dot + 1)) {
        if (dot == 0 || std::isdigit(static_cast<unsigned char>(file[dot - 1]))) continue;
        size_t k = dot + 1;
        int64_t rank = 0;
        while (k < file.size() && std::isdigit(static_cast<unsigned char>(file[k])) && k - dot < 10) rank = rank * 10 + (file[k++] - '0');
        if (k > dot + 1 && k + 1 < file.size() && file[k] == '.' && !std::isdigit(static_cast<unsigned char>(file[k + 1]))) return rank;
    }
    return rank_word(p.parent_path().filename().string());
}

Trace load_trace(const std::string& path) {
    {
        ByteSource probe(path);
        std::vector<char> one;
        if (probe.read(one, 1) == 0) fail({path, -1, 0, ""}, "empty file");
    }
    switch (detect_file_kind(path)) {
        case FileKind::PyTorchEt: {
            Trace t = read_pytorch_et(path);
            take_rank_from_path(t, path);
            return t;
        }
        case FileKind::Chakra: {
            Trace t = read_chakra_any(path);
            take_rank_from_path(t, path);
            return t;
        }
        case FileKind::KinetoJson: {
            // A profile on its own: its operators as nodes, to be linked to
            // the same profile for their times (expand_trace_inputs pairs it
            // with itself; load_trace_and_profile reads it once for both).
            KinetoReadOptions quiet;
            quiet.progress = false;
            return trace_of_profile(read_kineto_trace(path, quiet), path);
        }
        case FileKind::Unknown: break;
    }
    fail({path, -1, 0, ""}, "unrecognised file: neither a PyTorch execution trace (JSON) nor a Chakra trace");
}

TraceAndProfile load_trace_and_profile(const std::string& trace_path, const std::string& profile_path) {
    TraceAndProfile out;
    if (!profile_path.empty() && profile_path == trace_path && detect_file_kind(trace_path) == FileKind::KinetoJson) {
        out.profile = read_kineto_trace(profile_path);
        out.trace = trace_of_profile(*out.profile, trace_path);
        return out;
    }
    out.trace = load_trace(trace_path);
    if (!profile_path.empty()) out.profile = read_kineto_trace(profile_path);
    return out;
}

}  // namespace mimic

#include "io/recording/recording_dir.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <simdjson.h>

#include "io/kineto/kineto_reader.h"
#include "io/trace_loader.h"
#include "support/byte_source.h"
#include "support/error.h"
#include "support/json_file.h"

namespace mimic {
namespace {

namespace fs = std::filesystem;

constexpr const char* kEtNames[] = {"et.json.gz", "et.json"};
constexpr const char* kProfileName = "profile.json";
constexpr const char* kMetaName = "meta.json";

bool find_recording(const fs::path& dir, TraceInput& out) {
    for (const char* name : kEtNames) {
        std::error_code ec;
        if (!fs::is_regular_file(dir / name, ec)) continue;
        out.trace_path = (dir / name).string();
        out.profile_path = fs::is_regular_file(dir / kProfileName, ec) ? (dir / kProfileName).string() : "";
        out.meta_path = fs::is_regular_file(dir / kMetaName, ec) ? (dir / kMetaName).string() : "";
        return true;
    }
    return false;
}

// A file in a rank directory is a trace if it reads as an ET (a JSON object
// with "nodes" or "schema" near the top) or a Chakra stream; meta.json,
// job.json and profiler traces beside it are not.
bool looks_like_trace(const fs::path& file) {
    const std::string path = file.string();
    const FileKind kind = detect_file_kind(path);
    if (kind == FileKind::Chakra) return true;
    if (kind != FileKind::PyTorchEt) return false;
    const std::string head = read_file_head(path, 4096);
    const std::string_view text(head);
    return text.find("\"nodes\"") != std::string_view::npos || text.find("\"schema\"") != std::string_view::npos;
}

// "rank10" after "rank9", "x.10.et" after "x.9.et": compare runs of digits as numbers.
bool natural_less(const std::string& a, const std::string& b) {
    size_t i = 0, j = 0;
    while (i < a.size() && j < b.size()) {
        if (std::isdigit(static_cast<unsigned char>(a[i])) && std::isdigit(static_cast<unsigned char>(b[j]))) {
            size_t ie = i, je = j;
            while (ie < a.size() && std::isdigit(static_cast<unsigned char>(a[ie]))) ++ie;
            while (je < b.size() && std::isdigit(static_cast<unsigned char>(b[je]))) ++je;
            std::string_view na(a.data() + i, ie - i), nb(b.data() + j, je - j);
            while (na.size() > 1 && na.front() == '0') na.remove_prefix(1);
            while (nb.size() > 1 && nb.front() == '0') nb.remove_prefix(1);
            if (na.size() != nb.size()) return na.size() < nb.size();
            if (na != nb) return na < nb;
            i = ie;
            j = je;
        } else {
            if (a[i] != b[j]) return a[i] < b[j];
            ++i;
            ++j;
        }
    }
    return a.size() - i < b.size() - j;
}

// Pairs each ET of a group of files with one of the profiles beside it.
void pair_profiles(std::vector<TraceInput>& ets, const std::vector<std::string>& profiles) {
    if (profiles.empty()) return;
    struct Side {
        int64_t rank = -1;
        std::string rank_from;
        int64_t pid = -1;
        bool taken = false;
    };
    std::vector<Side> p(profiles.size());
    for (size_t i = 0; i < profiles.size(); ++i) {
        ProfileIdentity id = peek_profile_identity(profiles[i]);
        p[i].pid = id.pid;
        p[i].rank = id.distributed.rank >= 0 ? id.distributed.rank : rank_from_path(profiles[i]);
        p[i].rank_from = id.distributed.rank >= 0 ? "distributedInfo" : "file names";
    }
    auto unique = [&](auto&& match) -> size_t {
        size_t found = SIZE_MAX;
        for (size_t i = 0; i < p.size(); ++i) {
            if (p[i].taken || !match(p[i])) continue;
            if (found != SIZE_MAX) return SIZE_MAX;  // two candidates: no pairing by this
            found = i;
        }
        return found;
    };
    auto take = [&](TraceInput& et, size_t i, std::string how) {
        p[i].taken = true;
        et.profile_path = profiles[i];
        et.pairing = std::move(how);
    };
    for (TraceInput& et : ets) {
        const int64_t rank = rank_from_path(et.trace_path);
        if (rank < 0) continue;
        size_t i = unique([&](const Side& s) { return s.rank == rank; });
        if (i != SIZE_MAX) take(et, i, "rank (" + p[i].rank_from + ")");
    }
    for (TraceInput& et : ets) {
        if (!et.profile_path.empty()) continue;
        const int64_t pid = detect_file_kind(et.trace_path) == FileKind::PyTorchEt ? peek_et_pid(et.trace_path) : -1;
        if (pid < 0) continue;
        size_t i = unique([&](const Side& s) { return s.pid == pid; });
        if (i != SIZE_MAX) take(et, i, "pid");
    }
    if (ets.size() == 1 && profiles.size() == 1 && ets.front().profile_path.empty()) {
        const int64_t rank = rank_from_path(ets.front().trace_path);
        if (rank < 0 || p.front().rank < 0 || rank == p.front().rank) take(ets.front(), 0, "the only profile beside it");
    }
}

// The ETs of a directory of files (no `mimic record` layout), each with its profile.
void expand_files(const fs::path& dir, const std::vector<std::string>& names, std::vector<TraceInput>& out) {
    std::vector<TraceInput> ets;
    std::vector<std::string> profiles;
    std::error_code ec;
    for (const std::string& name : names) {
        const fs::path p = dir / name;
        if (!fs::is_regular_file(p, ec)) continue;
        if (looks_like_trace(p)) ets.push_back({p.string(), "", "", ""});
        else if (detect_file_kind(p.string()) == FileKind::KinetoJson) profiles.push_back(p.string());
    }
    pair_profiles(ets, profiles);
    for (TraceInput& t : ets) out.push_back(std::move(t));
    // Profiles with no ET at all: each is a trace of its own, timed by itself.
    if (ets.empty())
        for (const std::string& p : profiles) out.push_back(TraceInput::profile_alone(p));
}

void expand_directory(const fs::path& dir, std::vector<TraceInput>& out) {
    TraceInput one;
    if (find_recording(dir, one)) {
        out.push_back(std::move(one));
        return;
    }
    std::vector<std::string> entries;
    std::error_code ec;
    for (const auto& entry : fs::directory_iterator(dir, ec)) entries.push_back(entry.path().filename().string());
    if (ec) fail({dir.string(), -1, -1, ""}, "cannot list directory: " + ec.message());
    std::sort(entries.begin(), entries.end(), natural_less);
    const size_t before = out.size();
    for (const std::string& name : entries) {
        const fs::path p = dir / name;
        TraceInput input;
        if (!fs::is_directory(p, ec)) continue;
        if (find_recording(p, input)) {
            out.push_back(std::move(input));
            continue;
        }
        // A rank's directory of foreign files (rank3/ with an ET and a profile under any names).
        std::vector<std::string> inner;
        for (const auto& entry : fs::directory_iterator(p, ec)) inner.push_back(entry.path().filename().string());
        std::sort(inner.begin(), inner.end(), natural_less);
        expand_files(p, inner, out);  // its rank: the directory's name says it (rank_from_path)
    }
    expand_files(dir, entries, out);
    if (out.size() == before)
        fail({dir.string(), -1, -1, ""},
             "no trace in this directory (expected et.json.gz, rank subdirectories or trace files)");
}

std::vector<PythonCollective> python_collectives_of(simdjson::dom::object meta, const std::string& meta_path);

}  // namespace

std::vector<TraceInput> expand_trace_inputs(const std::vector<std::string>& paths) {
    std::vector<TraceInput> out;
    for (const std::string& path : paths) {
        std::error_code ec;
        const fs::file_status st = fs::status(path, ec);
        if (ec || !fs::exists(st)) fail({path, -1, -1, ""}, "no such file or directory");
        if (fs::is_directory(st))
            expand_directory(path, out);
        else if (detect_file_kind(path) == FileKind::KinetoJson)
            out.push_back(TraceInput::profile_alone(path));
        else
            out.push_back({path, "", "", ""});
    }
    return out;
}

void apply_recording_meta(Trace& trace, const std::string& meta_path) {
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    const simdjson::dom::object meta = parse_json_object_file(meta_path, parser, text);
    auto int_field = [&](std::string_view key, int64_t& out) {
        simdjson::dom::element e;
        if (meta[key].get(e) != simdjson::SUCCESS || e.is_null()) return;
        if (e.get_int64().get(out) != simdjson::SUCCESS) fail({meta_path, -1, -1, std::string(key)}, "expected an integer");
    };
    const int64_t rank_before = trace.rank;
    trace.rank = -1;
    int_field("rank", trace.rank);
    if (trace.rank >= 0) trace.rank_source = "meta.json";
    else trace.rank = rank_before;
    int_field("world_size", trace.world_size);
    trace.python_collectives = python_collectives_of(meta, meta_path);

    simdjson::dom::element groups_el;
    if (!trace.process_groups.empty() || meta["process_groups"].get(groups_el) != simdjson::SUCCESS ||
        groups_el.is_null())
        return;
    simdjson::dom::array groups;
    if (groups_el.get_array().get(groups) != simdjson::SUCCESS)
        fail({meta_path, -1, -1, "process_groups"}, "expected a list");
    for (simdjson::dom::element g : groups) {
        ProcessGroup pg;
        std::string_view s;
        int64_t i = 0;
        // Groups this rank is not in have no name here; a trace never refers to them.
        if (g["pg_name"].get_string().get(s) != simdjson::SUCCESS) continue;
        pg.name = std::string(s);
        if (g["backend"].get_string().get(s) == simdjson::SUCCESS) pg.backend = std::string(s);
        if (g["group_size"].get_int64().get(i) == simdjson::SUCCESS) pg.size = i;
        if (g["created_by"].get_string().get(s) == simdjson::SUCCESS && s == "init_process_group") pg.desc = "default_pg";
        simdjson::dom::array ranks;
        if (g["ranks"].get_array().get(ranks) == simdjson::SUCCESS) {
            for (simdjson::dom::element r : ranks) {
                if (r.get_int64().get(i) != simdjson::SUCCESS)
                    fail({meta_path, -1, -1, "process_groups.ranks"}, "expected integer ranks");
                pg.ranks.push_back(i);
            }
        }
        trace.process_groups.push_back(std::move(pg));
    }
}

std::vector<PythonCollective> read_python_collectives(const std::string& meta_path) {
    simdjson::dom::parser parser;
    simdjson::padded_string text;
    return python_collectives_of(parse_json_object_file(meta_path, parser, text), meta_path);
}

namespace {

std::vector<PythonCollective> python_collectives_of(simdjson::dom::object meta, const std::string& meta_path) {
    std::vector<PythonCollective> out;
    simdjson::dom::element calls_el;
    if (meta["python_collectives"].get(calls_el) != simdjson::SUCCESS || calls_el.is_null()) return out;
    simdjson::dom::array calls;
    if (calls_el.get_array().get(calls) != simdjson::SUCCESS)
        fail({meta_path, -1, -1, "python_collectives"}, "expected a list");
    size_t index = 0;
    for (simdjson::dom::element c : calls) {
        const std::string where = "python_collectives[" + std::to_string(index++) + "]";
        PythonCollective pc;
        std::string_view s;
        if (c["op"].get_string().get(s) != simdjson::SUCCESS) fail({meta_path, -1, -1, where + ".op"}, "expected a string");
        pc.op = std::string(s);
        if (c["pg_name"].get_string().get(s) == simdjson::SUCCESS) pc.pg_name = std::string(s);
        if (c["reduce_op"].get_string().get(s) == simdjson::SUCCESS) pc.reduce_op = std::string(s);
        bool b = false;
        if (c["async_op"].get_bool().get(b) == simdjson::SUCCESS) pc.async_op = b;
        auto splits = [&](const char* key, std::vector<int64_t>& into) {
            simdjson::dom::element e;
            if (c[key].get(e) != simdjson::SUCCESS || e.is_null()) return;
            simdjson::dom::array a;
            if (e.get_array().get(a) != simdjson::SUCCESS) fail({meta_path, -1, -1, where + "." + key}, "expected a list");
            for (simdjson::dom::element v : a) {
                int64_t n = 0;
                if (v.get_int64().get(n) != simdjson::SUCCESS || n < 0)
                    fail({meta_path, -1, -1, where + "." + key}, "expected non-negative integers");
                into.push_back(n);
            }
        };
        splits("input_split_sizes", pc.input_split_sizes);
        splits("output_split_sizes", pc.output_split_sizes);
        out.push_back(std::move(pc));
    }
    return out;
}

}  // namespace

std::optional<std::string> recording_file_beside(const std::string& meta_path, const char* name) {
    if (meta_path.empty()) return std::nullopt;
    const std::filesystem::path p = std::filesystem::path(meta_path).parent_path() / name;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(p, ec)) return std::nullopt;
    return p.string();
}

void copy_recording_op_files(const std::string& meta_path, const std::string& out_dir) {
    for (const char* name : {"op_faults.json", "op_gaps.json", "op_layouts.json"}) {
        std::optional<std::string> beside = recording_file_beside(meta_path, name);
        if (!beside) continue;
        std::error_code ec;
        std::filesystem::copy_file(*beside, std::filesystem::path(out_dir) / name,
                                   std::filesystem::copy_options::overwrite_existing, ec);
        if (ec) fail({*beside, -1, -1, ""}, "cannot copy it to " + out_dir + ": " + ec.message());
    }
}

}  // namespace mimic

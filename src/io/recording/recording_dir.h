// What a command that takes traces is given: files, a directory `mimic record`
// wrote (DIR/et.json.gz, DIR/profile.json, DIR/meta.json), or a directory of
// ranks (DIR/rank0/, DIR/rank1/... or PREFIX.0.et, PREFIX.1.et...). This
// expands them into one input per rank and reads meta.json's rank, world size
// and process groups into the trace, which torch 1.13's ET does not carry.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace mimic {

struct TraceInput {
    std::string trace_path;
    std::string profile_path;  // "" when there is none
    std::string meta_path;     // "" when there is none
    // How a directory's profile was paired with this trace: "rank (distributedInfo)",
    // "rank (file names)", "pid", "the only profile beside it"; "" when given or recorded.
    std::string pairing;

    // A profiler trace with no ET: read as a trace of its own
    // (io/kineto/profile_skeleton.h) and timed by itself.
    static TraceInput profile_alone(const std::string& path) { return {path, path, "", "the profile itself (no execution trace)"}; }
    bool is_profile_alone() const { return !profile_path.empty() && profile_path == trace_path; }
};

// Files are taken as they are; directories are expanded (ranks in numeric
// order). In a directory of foreign files (ETs and Kineto profiles under any
// names, or one subdirectory of them per rank), each ET is paired with its
// profile: by rank (the profile's distributedInfo, else the file names), then
// by the process id both record, else the one profile beside one ET. Throws mimic::Error for a path that does not exist or a directory
// with no trace in it.
std::vector<TraceInput> expand_trace_inputs(const std::vector<std::string>& paths);

// Sets trace.rank and trace.world_size from meta.json, its process groups
// when the trace has none of its own, and trace.python_collectives. Throws mimic::Error naming the file and
// field on malformed JSON or a field of the wrong type.
void apply_recording_meta(Trace& trace, const std::string& meta_path);

// The file `name` that `mimic record` writes beside meta.json (op_faults.json,
// op_layouts.json, op_gaps.json), if the recording has it.
std::optional<std::string> recording_file_beside(const std::string& meta_path, const char* name);

// Copies those per-op files the recording has into `out_dir`, as they are:
// they are keyed by ET node id, so they stay valid for a trace rewritten with
// the same ids (a cut, an obfuscated copy). Throws mimic::Error naming the
// file that cannot be copied.
void copy_recording_op_files(const std::string& meta_path, const std::string& out_dir);

// meta.json's python_collectives; empty when it has none. Throws
// mimic::Error naming the file and field when they are malformed.
std::vector<PythonCollective> read_python_collectives(const std::string& meta_path);

}  // namespace mimic

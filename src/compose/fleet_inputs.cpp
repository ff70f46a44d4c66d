#include "compose/fleet_inputs.h"

#include <algorithm>
#include <filesystem>

#include "support/error.h"

namespace mimic::fleet {
namespace {

namespace fs = std::filesystem;

// Deep enough for any real layout (job/date/rank/...), and a stop for a
// symlink that points back up the tree.
constexpr int kMaxDepth = 32;

bool is_recording(const fs::path& dir) {
    std::error_code ec;
    return fs::is_regular_file(dir / "et.json.gz", ec) || fs::is_regular_file(dir / "et.json", ec);
}

// PREFIX.comm_groups.json sits beside a Chakra workload's PREFIX.<rank>.et
// as profile.json sits beside an ET: a part of the workload, not a member.
bool is_companion(const fs::path& file) {
    const std::string name = file.filename().string();
    const std::string suffix = ".comm_groups.json";
    return name.size() > suffix.size() && name.compare(name.size() - suffix.size(), suffix.size(), suffix) == 0;
}

bool is_excluded(const fs::path& path, const fs::path& exclude) {
    if (exclude.empty()) return false;
    std::error_code ec;
    const fs::path p = fs::weakly_canonical(path, ec);
    if (ec) return false;
    auto e = exclude.begin(), q = p.begin();
    for (; e != exclude.end(); ++e, ++q)
        if (q == p.end() || *q != *e) return false;
    return true;
}

void walk(const fs::path& path, int depth, const fs::path& exclude, std::vector<FleetInput>& out) {
    if (is_excluded(path, exclude)) return;
    std::error_code ec;
    const fs::file_status st = fs::status(path, ec);
    if (ec || !fs::exists(st)) {
        out.push_back({path.string(), {}, "no such file or directory"});
        return;
    }
    if (!fs::is_directory(st)) {
        FleetInput in;
        in.path = path.string();
        in.trace.trace_path = in.path;
        out.push_back(std::move(in));
        return;
    }
    if (is_recording(path)) {
        FleetInput in;
        in.path = path.string();
        // The recording's own reading of its files (profile, meta), as analyze and predict have it.
        try {
            in.trace = expand_trace_inputs({in.path}).front();
        } catch (const Error& e) {
            in.problem = e.what();
        }
        out.push_back(std::move(in));
        return;
    }
    if (depth >= kMaxDepth) {
        out.push_back({path.string(), {}, "directory nested more than " + std::to_string(kMaxDepth) + " levels deep (a symlink loop?)"});
        return;
    }
    std::vector<fs::path> entries;
    for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec)) entries.push_back(it->path());
    if (ec) {
        out.push_back({path.string(), {}, "cannot list directory: " + ec.message()});
        return;
    }
    std::sort(entries.begin(), entries.end());
    for (const fs::path& p : entries)
        if (!is_companion(p)) walk(p, depth + 1, exclude, out);
}

}  // namespace

std::vector<FleetInput> list_fleet_inputs(const std::vector<std::string>& paths, const std::string& exclude) {
    std::vector<FleetInput> out;
    std::error_code ec;
    fs::path excluded = exclude.empty() ? fs::path() : fs::weakly_canonical(exclude, ec);
    if (ec) excluded.clear();
    if (!excluded.empty() && excluded.filename().empty()) excluded = excluded.parent_path();  // "out/"
    for (const std::string& p : paths) walk(fs::path(p), 0, excluded, out);
    return out;
}

uint64_t listing_digest(const std::vector<FleetInput>& inputs) {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&h](unsigned char c) {
        h ^= c;
        h *= 1099511628211ull;
    };
    for (const FleetInput& in : inputs) {
        for (char c : in.path) mix(static_cast<unsigned char>(c));
        mix(0);
    }
    return h;
}

}  // namespace mimic::fleet

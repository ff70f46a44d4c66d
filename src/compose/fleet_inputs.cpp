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

void walk(const fs::path& path, int depth, std::vector<FleetInput>& out) {
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
        if (!is_companion(p)) walk(p, depth + 1, out);
}

}  // namespace

std::vector<FleetInput> list_fleet_inputs(const std::vector<std::string>& paths) {
    std::vector<FleetInput> out;
    for (const std::string& p : paths) walk(fs::path(p), 0, out);
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

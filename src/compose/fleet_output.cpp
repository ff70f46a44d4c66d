#include "compose/fleet_output.h"

#include <cctype>
#include <filesystem>

#include "support/error.h"
#include "support/output.h"

namespace mimic::fleet {
namespace {

namespace fs = std::filesystem;

void link_or_copy_file(const fs::path& from, const fs::path& to, OutputStats& stats) {
    std::error_code ec;
    fs::create_hard_link(from, to, ec);
    if (!ec) {
        ++stats.linked;
        return;
    }
    fs::copy_file(from, to, fs::copy_options::overwrite_existing, ec);
    if (ec) fail({to.string(), -1, -1, ""}, "cannot copy " + from.string() + " here: " + ec.message());
    ++stats.copied;
}

void link_or_copy(const fs::path& from, const fs::path& to, OutputStats& stats) {
    std::error_code ec;
    if (!fs::is_directory(from, ec)) {
        link_or_copy_file(from, to, stats);
        return;
    }
    fs::create_directories(to, ec);
    if (ec) fail({to.string(), -1, -1, ""}, "cannot create directory: " + ec.message());
    for (fs::directory_iterator it(from, ec), end; !ec && it != end; it.increment(ec))
        link_or_copy(it->path(), to / it->path().filename(), stats);
    if (ec) fail({from.string(), -1, -1, ""}, "cannot list directory: " + ec.message());
}

// A previous run's representatives ("c<k>-..."), and nothing else, make way
// for this run's.
void clear_previous(const fs::path& dir) {
    std::error_code ec;
    std::vector<fs::path> old;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
        const std::string name = it->path().filename().string();
        size_t i = 1;
        while (i < name.size() && std::isdigit(static_cast<unsigned char>(name[i]))) ++i;
        if (name.size() > 2 && name[0] == 'c' && i > 1 && i < name.size() && name[i] == '-') old.push_back(it->path());
    }
    for (const fs::path& p : old) {
        fs::remove_all(p, ec);
        if (ec) fail({p.string(), -1, -1, ""}, "cannot replace a previous run's representative: " + ec.message());
    }
}

}  // namespace

OutputStats write_fleet_dir(const FleetResult& result, const std::string& out_dir) {
    OutputStats stats;
    const fs::path out(out_dir);
    const fs::path reps = out / "representatives";
    std::error_code ec;
    fs::create_directories(reps, ec);
    if (ec) fail({reps.string(), -1, -1, ""}, "cannot create directory: " + ec.message());
    clear_previous(reps);
    const FleetClustering& c = result.clustering;
    for (size_t k = 0; k < c.clusters.size(); ++k) {
        const std::string& path = result.items[result.readable[c.clusters[k].representative]].path;
        link_or_copy(path, reps / representative_name(k, path), stats);
    }
    write_output((out / "fleet.json").string(), fleet_json(result));
    return stats;
}

}  // namespace mimic::fleet

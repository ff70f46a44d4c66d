#include "replay/process_groups.h"

#include <torch/csrc/distributed/c10d/PrefixStore.hpp>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include <algorithm>

#include "replay/replayer.h"
#include "support/error.h"

namespace mimic::replay {
namespace {

std::string where(const DistOptions& o) { return o.master_addr + ":" + std::to_string(o.master_port); }

c10::intrusive_ptr<c10d::ProcessGroup> make_gloo(const c10::intrusive_ptr<c10d::Store>& store, const std::string& prefix,
                                                 int group_rank, int group_size, const DistOptions& o) {
    auto opts = c10d::ProcessGroupGloo::Options::create(o.timeout);
    // Loopback for a local run; a launcher across hosts gives MASTER_ADDR,
    // and Gloo then binds the address this host resolves to.
    const bool local = o.master_addr == "127.0.0.1" || o.master_addr == "localhost";
    opts->devices.push_back(local ? c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1")
                                  : c10d::ProcessGroupGloo::createDefaultDevice());
    opts->threads = 2;
    auto prefixed = c10::make_intrusive<c10d::PrefixStore>(prefix, store);
    return c10::make_intrusive<c10d::ProcessGroupGloo>(prefixed, group_rank, group_size, opts);
}

}  // namespace

ProcessGroups::ProcessGroups(const DistOptions& options, const std::vector<ProcessGroup>& recorded)
    : options_(options) {
    if (options_.world_size < 1 || options_.rank < 0 || options_.rank >= options_.world_size)
        fail({"", -1, -1, "rank"}, "rank " + std::to_string(options_.rank) + " is outside a world of " +
                                       std::to_string(options_.world_size));
    c10d::TCPStoreOptions store_opts;
    store_opts.port = static_cast<uint16_t>(options_.master_port);
    store_opts.isServer = options_.rank == 0;
    store_opts.numWorkers = static_cast<size_t>(options_.world_size);
    store_opts.waitWorkers = true;
    store_opts.timeout = options_.timeout;
    try {
        store_ = c10::make_intrusive<c10d::TCPStore>(options_.master_addr, store_opts);
    } catch (const std::exception& e) {
        fail({"", -1, -1, "MASTER_PORT"}, "rank " + std::to_string(options_.rank) + " could not " +
                                              (options_.rank == 0 ? "serve" : "reach") + " the rendezvous store at " +
                                              where(options_) + ": " + short_reason(e));
    }

    // The default group first: the recorded one ("default_pg", else "0"), or one of all ranks.
    std::vector<ProcessGroup> wanted = recorded;
    auto is_default = [](const ProcessGroup& g) { return g.desc == "default_pg"; };
    auto it = std::find_if(wanted.begin(), wanted.end(), is_default);
    if (it == wanted.end()) it = std::find_if(wanted.begin(), wanted.end(), [](const ProcessGroup& g) { return g.name == "0"; });
    if (it == wanted.end()) {
        ProcessGroup all;
        all.name = "0";
        all.desc = "default_pg";
        wanted.insert(wanted.begin(), all);
        it = wanted.begin();
    }
    default_name_ = it->name;
    std::stable_partition(wanted.begin(), wanted.end(), [&](const ProcessGroup& g) { return g.name == default_name_; });

    for (const ProcessGroup& g : wanted) {
        if (groups_.count(g.name)) continue;
        ReplayGroup rg;
        rg.name = g.name;
        rg.ranks = g.ranks;
        if (rg.ranks.empty())  // a group with no ranks listed spans the world
            for (int r = 0; r < options_.world_size; ++r) rg.ranks.push_back(r);
        if (g.name == default_name_ && !g.ranks.empty() && g.ranks.size() != size_t(options_.world_size))
            fail({"", -1, -1, "--nproc"}, "the recording's default group has " + std::to_string(g.ranks.size()) +
                                              " ranks; the replay has " + std::to_string(options_.world_size));
        for (int64_t r : rg.ranks)
            if (r < 0 || r >= options_.world_size)
                fail({"", -1, -1, "process_groups"}, "group '" + g.name + "' has rank " + std::to_string(r) +
                                                         ", outside a replay of " + std::to_string(options_.world_size) +
                                                         " ranks (give --nproc as recorded)");
        auto self = std::find(rg.ranks.begin(), rg.ranks.end(), int64_t(options_.rank));
        if (self != rg.ranks.end()) {
            rg.group_rank = int(self - rg.ranks.begin());
            try {
                rg.pg = make_gloo(store_, "pg/" + g.name + "/", rg.group_rank, int(rg.ranks.size()), options_);
            } catch (const std::exception& e) {
                fail({"", -1, -1, "process_groups"}, "rank " + std::to_string(options_.rank) + ": group '" + g.name +
                                                         "' did not form within the timeout: " + short_reason(e));
            }
        }
        groups_.emplace(g.name, std::move(rg));
    }
}

const ReplayGroup& ProcessGroups::group(const std::string& pg_name) const {
    auto it = groups_.find(pg_name);
    return it == groups_.end() ? default_group() : it->second;
}

void ProcessGroups::barrier() {
    auto work = default_group().pg->barrier();
    work->wait();
}

}  // namespace mimic::replay

#include "replay/dist/process_groups.h"

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

std::string ranks_text(const std::vector<int64_t>& ranks) {
    std::string out = "[";
    for (size_t i = 0; i < ranks.size(); ++i) out += (i ? "," : "") + std::to_string(ranks[i]);
    return out + "]";
}

// "name ranks" lines, one group each.
std::string encode_groups(const std::vector<ReplayGroup>& groups) {
    std::string out;
    for (const ReplayGroup& g : groups) out += g.name + ' ' + ranks_text(g.ranks) + '\n';
    return out;
}

std::map<std::string, std::string> decode_groups(const std::string& text) {
    std::map<std::string, std::string> out;
    size_t at = 0;
    while (at < text.size()) {
        size_t end = text.find('\n', at);
        if (end == std::string::npos) end = text.size();
        const std::string line = text.substr(at, end - at);
        const size_t space = line.rfind(' ');
        if (space != std::string::npos) out[line.substr(0, space)] = line.substr(space + 1);
        at = end + 1;
    }
    return out;
}

std::vector<int64_t> parse_ranks(const std::string& text) {
    std::vector<int64_t> out;
    for (size_t i = 1; i < text.size();) {
        size_t end = text.find_first_of(",]", i);
        if (end == std::string::npos || end == i) break;
        out.push_back(std::stoll(text.substr(i, end - i)));
        i = end + 1;
    }
    return out;
}

}  // namespace

std::string ProcessGroups::read_peer(const std::string& key, int peer) {
    try {
        const std::vector<uint8_t> bytes = store_->get(key);
        return std::string(bytes.begin(), bytes.end());
    } catch (const std::exception& e) {
        fail({}, "rank " + std::to_string(options_.rank) + " never heard from rank " + std::to_string(peer) +
                     " within the " + std::to_string(options_.timeout.count() / 1000) +
                     " s timeout (it failed or hung before its first collective): " + short_reason(e));
    }
}

void ProcessGroups::publish(const std::string& key, const std::string& value) {
    try {
        store_->set(key, std::vector<uint8_t>(value.begin(), value.end()));
    } catch (const std::exception& e) {
        fail({}, "rank " + std::to_string(options_.rank) + " lost the rendezvous store (rank 0 failed?): " +
                     short_reason(e));
    }
}

void ProcessGroups::check_groups_agree(const std::vector<ReplayGroup>& mine) {
    // Before any group forms: a group one rank knows and a member does not
    // would wait for that member until the timeout.
    const std::string text = encode_groups(mine);
    publish("mimic/groups/" + std::to_string(options_.rank), text);
    std::vector<std::map<std::string, std::string>> all(size_t(options_.world_size));
    for (int r = 0; r < options_.world_size; ++r) all[size_t(r)] = decode_groups(read_peer("mimic/groups/" + std::to_string(r), r));
    for (int r = 0; r < options_.world_size; ++r)
        for (const auto& [name, ranks] : all[size_t(r)])
            for (int64_t m : parse_ranks(ranks)) {
                if (m < 0 || m >= options_.world_size) continue;  // reported when the group is built
                auto it = all[size_t(m)].find(name);
                if (it == all[size_t(m)].end() || it->second != ranks)
                    fail({"", -1, -1, "process_groups"},
                         "the ranks' recordings do not match: rank " + std::to_string(r) + " has group '" + name +
                             "' of ranks " + ranks + ", rank " + std::to_string(m) +
                             (it == all[size_t(m)].end() ? " has no such group" : " has it with ranks " + it->second));
            }
}

ProcessGroups::ProcessGroups(const DistOptions& options, const std::vector<ProcessGroup>& recorded)
    : options_(options) {
    if (options_.world_size < 1 || options_.rank < 0 || options_.rank >= options_.world_size)
        fail({"", -1, -1, "rank"}, "rank " + std::to_string(options_.rank) + " is outside a world of " +
                                       std::to_string(options_.world_size));
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

    std::vector<ReplayGroup> planned;
    for (const ProcessGroup& g : wanted) {
        if (std::any_of(planned.begin(), planned.end(), [&](const ReplayGroup& p) { return p.name == g.name; })) continue;
        ReplayGroup rg;
        rg.name = g.name;
        rg.ranks = g.ranks;
        if (rg.ranks.empty())  // a group with no ranks listed spans the world
            for (int r = 0; r < options_.world_size; ++r) rg.ranks.push_back(r);
        if (g.name == default_name_ && rg.ranks.size() != size_t(options_.world_size))
            fail({"", -1, -1, "--nproc"}, "the recording's default group has " + std::to_string(rg.ranks.size()) +
                                              " ranks; the replay has " + std::to_string(options_.world_size));
        for (int64_t r : rg.ranks)
            if (r < 0 || r >= options_.world_size)
                fail({"", -1, -1, "process_groups"}, "group '" + g.name + "' has rank " + std::to_string(r) +
                                                         ", outside a replay of " + std::to_string(options_.world_size) +
                                                         " ranks (give --nproc as recorded)");
        planned.push_back(std::move(rg));
    }
    // The store only once this rank's own plan is sound: a wrong --nproc is
    // reported before any peer is waited for.
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

    check_groups_agree(planned);
    for (ReplayGroup& rg : planned) {
        auto self = std::find(rg.ranks.begin(), rg.ranks.end(), int64_t(options_.rank));
        if (self != rg.ranks.end()) {
            rg.group_rank = int(self - rg.ranks.begin());
            try {
                rg.pg = make_gloo(store_, "pg/" + rg.name + "/", rg.group_rank, int(rg.ranks.size()), options_);
            } catch (const std::exception& e) {
                fail({"", -1, -1, "process_groups"}, "rank " + std::to_string(options_.rank) + ": group '" + rg.name +
                                                         "' did not form within the timeout: " + short_reason(e));
            }
        }
        std::string name = rg.name;
        groups_.emplace(std::move(name), std::move(rg));
    }
}

const ReplayGroup& ProcessGroups::group(const std::string& pg_name) const {
    auto it = groups_.find(pg_name);
    return it == groups_.end() ? default_group() : it->second;
}

void ProcessGroups::barrier() {
    try {
        auto work = default_group().pg->barrier();
        work->wait();
    } catch (const std::exception& e) {
        fail({}, "rank " + std::to_string(options_.rank) + ": the ranks did not meet before an iteration (a peer " +
                     "crashed, or hung past the " + std::to_string(options_.timeout.count() / 1000) +
                     " s timeout): " + short_reason(e));
    }
}

}  // namespace mimic::replay

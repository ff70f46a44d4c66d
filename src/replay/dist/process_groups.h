// The process groups of a multi-rank replay, on PyTorch's own c10d engine:
// a TCPStore that rank 0 serves, the default group of all ranks, and every
// group the recording created that this rank belongs to, each a
// ProcessGroupGloo rendezvousing under its own store prefix. Groups keep
// their recorded names, so a trace's calls find theirs by pg_name.
#pragma once

#include <torch/csrc/distributed/c10d/ProcessGroup.hpp>
#include <torch/csrc/distributed/c10d/Store.hpp>

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "trace/trace.h"

namespace mimic::replay {

struct DistOptions {
    int rank = 0;
    int world_size = 1;
    std::string master_addr = "127.0.0.1";
    int master_port = 29500;
    // How long a collective, the rendezvous or a store read may wait for a
    // peer before it fails: a crashed or hung rank stops the others this way.
    std::chrono::milliseconds timeout{std::chrono::seconds(60)};
};

struct ReplayGroup {
    std::string name;
    std::vector<int64_t> ranks;  // global ranks, in group-rank order
    c10::intrusive_ptr<c10d::ProcessGroup> pg;  // null when this rank is not a member
    int group_rank = -1;
};

class ProcessGroups {
public:
    // Connects every rank (blocks until all have joined or the timeout
    // passes) and creates the groups. `recorded` are the trace's groups (its
    // process_group:init record or meta.json); a group with no ranks listed
    // spans all ranks. Throws mimic::Error when a group names a rank outside
    // the world or the rendezvous fails.
    ProcessGroups(const DistOptions& options, const std::vector<ProcessGroup>& recorded);

    // The group a call names; "" or a name the recording never created is
    // the default group (1.13 ETs do not name groups at all).
    const ReplayGroup& group(const std::string& pg_name) const;
    const ReplayGroup& default_group() const { return groups_.at(default_name_); }
    const std::map<std::string, ReplayGroup>& groups() const { return groups_; }
    const DistOptions& options() const { return options_; }
    // All ranks meet here (untimed: lines iterations up across ranks).
    void barrier();

    // Another rank's value under `key` in the store, waiting up to the timeout.
    std::string read_peer(const std::string& key, int peer);
    // Puts this rank's value under `key`; fails clearly when the store (rank 0) is gone.
    void publish(const std::string& key, const std::string& value);

private:
    void check_groups_agree(const std::vector<ReplayGroup>& mine);

    DistOptions options_;
    c10::intrusive_ptr<c10d::Store> store_;
    std::map<std::string, ReplayGroup> groups_;
    std::string default_name_;
};

}  // namespace mimic::replay

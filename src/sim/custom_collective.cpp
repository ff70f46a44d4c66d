#include "sim/custom_collective.h"

#include <filesystem>
#include <set>

#include "support/error.h"

namespace mimic::sim {

SharedGraph CustomGraphs::get(const std::string& prefix, int position) {
    const auto key = std::make_pair(prefix, position);
    if (auto it = graphs_.find(key); it != graphs_.end()) return it->second;
    const std::string file = prefix + "." + std::to_string(position) + ".et";
    if (!std::filesystem::exists(file))
        fail({file, -1, -1, ""}, "missing: the custom collective implementation has no graph for position " + std::to_string(position));
    auto graph = std::make_shared<RankGraph>(read_rank_graph(file, position));
    for (const WorkloadNode& n : graph->nodes)
        if (n.type != ChakraNodeType::CommSend && n.type != ChakraNodeType::CommRecv && n.type != ChakraNodeType::Comp)
            fail({file, static_cast<int64_t>(n.id), -1, "type"},
                 "a custom collective implementation holds COMM_SEND, COMM_RECV and COMP nodes only");
    graphs_[key] = graph;
    return graph;
}

namespace {

class CustomPhase final : public PhaseAlgorithm {
public:
    CustomPhase(SharedGraph graph, std::shared_ptr<const std::vector<int>> members, int npus, double comm_scale)
        : graph_(std::move(graph)), members_(std::move(members)), npus_(npus), comm_scale_(comm_scale) {}

    bool run(PhaseEvent event) override {
        if (event != PhaseEvent::Start) return false;
        const auto& nodes = graph_->nodes;
        waiting_.resize(nodes.size());
        for (uint32_t i = 0; i < nodes.size(); ++i) {
            waiting_[i] = nodes[i].parents;
            if (waiting_[i] == 0) ready_.insert(i);
        }
        return issue();
    }

    bool done(uint32_t i) override {
        --running_;
        const WorkloadNode& n = graph_->nodes[i];
        for (uint32_t c = 0; c < n.children_count; ++c) {
            const uint32_t child = graph_->children[n.children_begin + c];
            if (--waiting_[child] == 0) ready_.insert(child);
        }
        return issue();
    }

private:
    // Starts every node whose dependencies are met; true when nothing runs
    // and nothing is left to start (the phase is over).
    bool issue() {
        while (!ready_.empty()) {
            const uint32_t i = *ready_.begin();
            ready_.erase(ready_.begin());
            ++running_;
            start(i);
        }
        return running_ == 0;
    }

    void start(uint32_t i) {
        const WorkloadNode& n = graph_->nodes[i];
        uint64_t bytes = n.comm_size;
        if (comm_scale_ != 1) bytes = static_cast<uint64_t>(static_cast<double>(bytes) * comm_scale_);
        const auto tag = static_cast<uint64_t>(n.comm_tag);
        switch (n.type) {
            case ChakraNodeType::CommSend: host_->send_message(npu_of(n.comm_dst, n, "comm_dst"), tag, bytes, i); return;
            case ChakraNodeType::CommRecv: host_->receive_message(npu_of(n.comm_src, n, "comm_src"), tag, bytes, i); return;
            default:
                // A reduction step: its duration in us, 1 ns when it has none (ASTRA-sim).
                host_->wait(n.duration_us == 0 ? 1 : n.duration_us * 1000, i);
                return;
        }
    }

    // The graph's ranks are positions in the group that runs it.
    int npu_of(int64_t rank, const WorkloadNode& n, const char* field) const {
        const int64_t count = members_ ? static_cast<int64_t>(members_->size()) : npus_;
        if (rank < 0 || rank >= count)
            fail({graph_->file, static_cast<int64_t>(n.id), -1, field},
                 "rank " + std::to_string(rank) + " is not a position in the group of " + std::to_string(count));
        return members_ ? (*members_)[static_cast<size_t>(rank)] : static_cast<int>(rank);
    }

    SharedGraph graph_;
    std::shared_ptr<const std::vector<int>> members_;
    int npus_;
    double comm_scale_;
    std::vector<uint32_t> waiting_;  // per node: dependencies not yet met
    std::set<uint32_t> ready_;       // in id order (nodes are sorted by id)
    uint32_t running_ = 0;
};

}  // namespace

std::unique_ptr<PhaseAlgorithm> make_custom_phase(SharedGraph graph, std::shared_ptr<const std::vector<int>> members, int npus,
                                                  double comm_scale) {
    return std::make_unique<CustomPhase>(std::move(graph), std::move(members), npus, comm_scale);
}

}  // namespace mimic::sim

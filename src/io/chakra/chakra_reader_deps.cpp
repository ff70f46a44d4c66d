#include "io/chakra/chakra_reader_deps.h"

#include <algorithm>
#include <bitset>
#include <deque>
#include <string>
#include <unordered_map>
#include <vector>

namespace mimic {

namespace {

// Whether an id names a node of the trace, asked once per dependency (tens
// of millions in a big trace). Usually the ids are dense: one bitmap over
// their range. Else they come in dense runs (one per trace merged in, per
// rank or copy): a bitmap per block of 65536 ids, the blocks found through a
// map, the last block remembered (a node's dependencies sit next to it).
// Ids too scattered for either (more blocks than one per 256 nodes: over 32
// bytes of bitmap a node) are looked up in the trace's id index.
class NodeIdSet {
public:
    explicit NodeIdSet(const Trace& trace) : trace_(trace) {
        if (trace.nodes.empty()) return;
        uint64_t hi = 0;
        for (const Node& n : trace.nodes) {
            lo_ = std::min(lo_, n.id.value);
            hi = std::max(hi, n.id.value);
        }
        if (hi - lo_ < 8 * trace.nodes.size() + 4096) {
            dense_.assign(hi - lo_ + 1, 0);
            for (const Node& n : trace.nodes) dense_[n.id.value - lo_] = 1;
            mode_ = Mode::Dense;
            return;
        }
        Block* block = nullptr;
        for (const Node& n : trace.nodes) {
            if (!block || n.id.value >> kBlockBits != last_block_) {
                last_block_ = n.id.value >> kBlockBits;
                auto [it, fresh] = block_of_.emplace(last_block_, static_cast<uint32_t>(blocks_.size()));
                if (fresh) blocks_.emplace_back();
                if (block_of_.size() > trace.nodes.size() / 256 + 16) {  // scattered: use the index
                    block_of_.clear();
                    blocks_.clear();
                    mode_ = Mode::Index;
                    return;
                }
                block = &blocks_[it->second];
            }
            block->set(n.id.value & kBlockMask);
        }
        last_ = block;
        mode_ = Mode::Blocks;
    }

    // Calls f(contains) with the test of the mode in use, chosen once, so
    // that the loop over every dependency is specialised for it.
    template <typename F>
    void with_test(F&& f) {
        switch (mode_) {
            case Mode::Dense: {
                const uint64_t lo = lo_, size = dense_.size();
                const uint8_t* dense = dense_.data();
                f([=](uint64_t id) { return id - lo < size && dense[id - lo]; });  // below lo wraps past size
                return;
            }
            case Mode::Index: f([this](uint64_t id) { return trace_.find(NodeId(id)) != kNoNode; }); return;
            case Mode::Blocks: f([this](uint64_t id) { return in_blocks(id); }); return;
        }
    }

private:
    bool in_blocks(uint64_t id) {
        const uint64_t block = id >> kBlockBits;
        if (block != last_block_ || !last_) {
            auto it = block_of_.find(block);
            if (it == block_of_.end()) return false;
            last_block_ = block;
            last_ = &blocks_[it->second];
        }
        return last_->test(id & kBlockMask);
    }

    static constexpr int kBlockBits = 16;
    static constexpr uint64_t kBlockMask = (uint64_t(1) << kBlockBits) - 1;
    using Block = std::bitset<size_t(1) << kBlockBits>;
    enum class Mode { Dense, Blocks, Index };
    const Trace& trace_;
    Mode mode_ = Mode::Dense;  // (no nodes: nothing is contained)
    uint64_t lo_ = UINT64_MAX;
    std::vector<uint8_t> dense_;  // bytes, not bits: the test is one load
    std::unordered_map<uint64_t, uint32_t> block_of_;
    std::deque<Block> blocks_;  // deque: a block's address stays put as more are added
    uint64_t last_block_ = 0;
    const Block* last_ = nullptr;
};

}  // namespace

// Unlike a PyTorch ET's parent links (an error there, see et_reader.cpp),
// dependencies on absent nodes and on the node itself are only warnings here:
// Chakra's own sample trace, converted from PyTorch by Chakra's tools
// (feeder_sample.0.et), has 1,277 dependencies on absent nodes and 383 on the
// node itself, and a reader of Chakra traces must read what Chakra writes.
void check_chakra_dependencies(Trace& trace, size_t self_deps) {
    NodeIdSet ids(trace);
    size_t missing = 0;
    uint64_t example_node = 0, example_dep = 0;
    ids.with_test([&](auto exists) {
        const NodeId* edges = trace.edges.data();
        for (const Node& n : trace.nodes) {
            for (const ValueRange r : {n.deps, n.data_deps}) {
                for (const NodeId* e = edges + r.begin; e != edges + r.begin + r.count; ++e) {
                    if (exists(e->value)) continue;
                    if (missing++ == 0) {
                        example_node = n.id.value;
                        example_dep = e->value;
                    }
                }
            }
        }
    });
    if (missing > 0)
        trace.warn(std::to_string(missing) + " dependencies name nodes that are not in the trace (first: node " +
                   std::to_string(example_node) + " depends on " + std::to_string(example_dep) + ")");
    if (self_deps > 0)
        trace.warn(std::to_string(self_deps) + " dependencies of a node on itself (a simulator would wait forever)");
}

}  // namespace mimic

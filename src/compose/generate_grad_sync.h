// Data-parallel gradient synchronisation of the parameters one rank holds.
// DDP (the default): gradients go into buckets of --bucket-mib in the
// reverse order of the parameters' registration (backward produces them in
// that order); a bucket is all-reduced over its group as soon as the last of
// its gradients is final, overlapping the rest of backward.
// --zero (ZeRO-2): the same buckets are reduce-scattered instead, the
// optimizer updates 1/dp of the parameters, and each bucket's updated
// parameters are all-gathered after it.
// --fsdp (ZeRO-3): each transformer layer is one unit whose parameters are
// all-gathered before its forward and its backward in every micro-batch and
// whose gradients are reduce-scattered after its last backward; what lies
// outside the layers (embedding, head) is bucketed as under --zero.
// Expert parameters synchronise over the expert-data-parallel group, every
// other parameter over the data-parallel group; a group of one rank has
// nothing to synchronise.
// Sizes: an all-reduce's and a reduce-scatter's comm_size is the whole
// bucket; an all-gather's is one rank's shard, ceil(bucket / group size),
// which is what ASTRA-sim takes as an all-gather's size.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compose/generate_chain.h"
#include "compose/generate_layout.h"
#include "compose/generate_options.h"

namespace mimic::compose {

struct ParamTensor {
    uint64_t elems = 0;
    GenGroup group = GenGroup::Data;  // Data, or ExpertData for experts
};

// Parameters registered together (a layer, the embedding), in registration order.
struct ParamUnit {
    std::string name;
    std::vector<ParamTensor> tensors;
    bool layer = false;  // a transformer layer (an FSDP unit of its own)
    uint64_t elems(GenGroup g) const;
};

class GradSync {
public:
    GradSync(const GenerateOptions& o, const RankLayout& layout);

    // FSDP: the all-gathers of a layer's parameters before its forward or backward.
    void gather_layer(ProgramChain& chain, const ParamUnit& unit, const std::string& when);
    // A unit's gradients are final (backward of the last micro-batch passed it).
    void gradients_ready(ProgramChain& chain, const ParamUnit& unit);
    // The buckets still open.
    void flush(ProgramChain& chain);
    // The optimizer over `units` (Adam), then ZeRO's all-gathers of the updated parameters.
    void optimizer(ProgramChain& chain, const std::vector<ParamUnit>& units);
    void finish(ProgramChain& chain, const std::vector<ParamUnit>& units) {
        flush(chain);
        optimizer(chain, units);
    }

    uint64_t bucket_cap_bytes() const { return cap_; }

private:
    struct Open {
        uint64_t bytes = 0;  // gradients in the bucket being filled
    };
    void emit(ProgramChain& chain, GenGroup g, uint64_t bytes);
    bool syncs(GenGroup g) const { return group_size(g) > 1; }
    int64_t group_size(GenGroup g) const;
    bool per_layer(const ParamUnit& u) const;

    const GenerateOptions& o_;
    const RankLayout& layout_;
    uint64_t cap_;
    uint64_t grad_bytes_;
    Open open_[2];  // Data, ExpertData
    std::vector<std::pair<GenGroup, uint64_t>> zero_buckets_;  // to all-gather after the optimizer
    int next_bucket_ = 0;
};

}  // namespace mimic::compose

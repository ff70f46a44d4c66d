// Where each rank sits in a generated job, and the process groups it
// communicates in. The order is Megatron-LM's default: tensor-parallel ranks
// vary fastest (a TP group is contiguous ranks, so it stays inside a node),
// then data-parallel, then pipeline stages:
//     rank = tp_index + tp * (dp_index + dp * stage)
// Expert parallelism is carved out of data parallelism: an EP group is `ep`
// consecutive data-parallel indices, and the expert-data-parallel group
// (which reduces expert gradients) the dp / ep ranks that hold the same experts.
// The embedding group (Megatron's) is the first and the last stage at the
// same tensor and data index: they hold the two copies of a tied embedding.
//
// Groups are ASTRA-sim communicator groups: numbered from 1, written as
// {"<id>": [ranks...]}, named by a collective's pg_name. A group that spans
// every rank is the world (pg_name "", id 0) and is not listed.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "compose/generate_options.h"

namespace mimic::compose {

enum class GenGroup : uint8_t { World, Tensor, Data, Pipeline, Expert, ExpertData, Embedding };
inline constexpr size_t kGenGroupKinds = 7;
const char* gen_group_name(GenGroup g);  // "world", "tp", "dp", "pp", "ep", "edp", "emb"

struct RankCoords {
    int64_t tp = 0, dp = 0, stage = 0;
};

class RankLayout {
public:
    explicit RankLayout(const GenerateOptions& o);

    int64_t ranks() const { return ranks_; }
    RankCoords coords(int64_t rank) const;
    int64_t rank_of(const RankCoords& c) const { return c.tp + tp_ * (c.dp + dp_ * c.stage); }
    // The rank at the same tensor and data index one stage later (+1) or earlier (-1).
    int64_t stage_peer(int64_t rank, int offset) const { return rank + offset * tp_ * dp_; }

    // Members of a group kind and how many groups of it there are.
    int64_t group_size(GenGroup g) const;
    // The communicator group id of `rank`'s group of kind g; 0 for the world.
    int64_t group_id(GenGroup g, int64_t rank) const;
    // The ranks of `rank`'s group of kind g, ascending.
    std::vector<int64_t> group_members(GenGroup g, int64_t rank) const;

    // ASTRA-sim's communicator-group JSON: every group that is not the world.
    std::string comm_groups_json() const;

private:
    int64_t index_in_kind(GenGroup g, int64_t rank) const;  // which group of its kind
    int64_t groups_of_kind(GenGroup g) const;
    bool listed(GenGroup g) const;  // has ids of its own: more than one member, not the world

    int64_t ranks_, tp_, dp_, pp_, ep_;
    bool tied_;  // the model ties its output layer to its embedding (gpt)
    std::array<int64_t, kGenGroupKinds> first_id_{};  // id of the first group of each kind
};

}  // namespace mimic::compose

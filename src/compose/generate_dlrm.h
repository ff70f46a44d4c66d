// One training iteration of DLRM as it runs on many ranks (the "hybrid
// parallel" of the DLRM paper): embedding tables are sharded whole over
// all ranks (table t on rank t mod ranks, or as --shard-tables places
// them; each table has its own rows and pooling); the bottom and top MLPs
// are replicated and trained data-parallel.
// Per micro-batch of B samples per rank:
// - forward: bottom MLP; each rank looks up its tables for all ranks'
//   samples (B x ranks x pooling rows per table) and pools them; an
//   all-to-all hands every rank the pooled vectors of its own samples for
//   every table, B x tables x emb_dim x dtype bytes; feature interaction
//   (pairwise dot products); top MLP and loss;
// - backward: the same in reverse, the all-to-all carrying the pooled
//   gradients back (the same size), sparse updates of the embedding rows;
// - the MLPs' gradients are all-reduced over all ranks in buckets
//   (generate_grad_sync.h), then the optimizer.
// All collectives span every rank (pg_name "").
#pragma once

#include <cstdint>
#include <vector>

#include "compose/generate_cost.h"
#include "compose/generate_grad_sync.h"
#include "compose/generate_layout.h"
#include "compose/generate_options.h"
#include "compose/generate_program.h"

namespace mimic::compose {

struct DlrmTable {
    int64_t index = 0, rows = 0, pooling = 0;
};

// The tables rank `rank` holds, in table order (o.table_ranks).
std::vector<DlrmTable> dlrm_rank_tables(const GenerateOptions& o, int64_t rank);
int64_t dlrm_local_tables(const GenerateOptions& o, int64_t rank);

// The MLPs' parameters (bottom, then top), in registration order.
std::vector<ParamUnit> dlrm_dense_params(const GenerateOptions& o);

// The program of a rank holding `tables`.
RankProgram build_dlrm_program(const GenerateOptions& o, const RankLayout& layout, const ComputeCost& cost, const std::vector<DlrmTable>& tables);

}  // namespace mimic::compose

// `mimic generate dlrm --format et`: one rank's training iteration of the
// sharded DLRM (generate_dlrm.h) as a PyTorch execution trace, op by op as
// torch 1.13's autograd runs it, so that `mimic replay` runs it on CPU over
// Gloo: embedding_bag per local table, the pooled vectors exchanged by an
// all_to_all_single with per-rank splits, bottom MLP, pairwise-dot
// interaction, top MLP, BCE with logits; backward in autograd's order; the
// MLPs' gradients flattened and all-reduced; SGD on every parameter.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compose/generate_et_ops.h"
#include "compose/generate_options.h"

namespace mimic::compose {

// The ET document of `rank`; appends the rank's Python-level collective
// calls to `calls` and sets `ops` to the number of ops written.
std::string build_dlrm_et(const GenerateOptions& o, int64_t rank, std::vector<PyCall>& calls, size_t& ops);

}  // namespace mimic::compose

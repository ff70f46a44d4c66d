// One training iteration of a decoder-only transformer (gpt, llama, moe) as
// one program per pipeline stage, Megatron-LM style:
// - tensor parallelism splits attention heads and the MLP's hidden width:
//   each layer all-reduces its output activations (micro_batch x seq x
//   hidden x dtype bytes) after attention and after the MLP in forward, and
//   the input gradients of the same two blocks in backward (moe: the
//   attention block only, its experts are not split);
// - the first stage embeds (one more all-reduce under tensor parallelism,
//   the vocabulary-parallel embedding's), the last computes logits and loss;
// - stages exchange activations forward and their gradients backward, one
//   message of micro_batch x seq x hidden x dtype bytes per micro-batch, in
//   a 1F1B (default) or GPipe schedule; tags 2m (activations) and 2m+1
//   (gradients) for micro-batch m;
// - moe layers route each token to top_k of the experts: dispatch and combine
//   all-to-alls of micro_batch x seq x top_k x hidden x dtype bytes within
//   the expert-parallel group, both in forward and in backward;
// - gradients synchronise after the last micro-batch (generate_grad_sync.h).
#pragma once

#include <vector>

#include "compose/generate_cost.h"
#include "compose/generate_grad_sync.h"
#include "compose/generate_layout.h"
#include "compose/generate_options.h"
#include "compose/generate_program.h"

namespace mimic::compose {

// The parameters one rank of `stage` holds, in registration order:
// embedding (first stage), layers, final norm and output layer (last stage).
std::vector<ParamUnit> transformer_stage_params(const GenerateOptions& o, int64_t stage);

// result[s] is the program of every rank of pipeline stage s.
std::vector<RankProgram> build_transformer_programs(const GenerateOptions& o, const RankLayout& layout, const ComputeCost& cost);

}  // namespace mimic::compose

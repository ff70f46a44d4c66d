// Inputs whose values matter for correctness, not only their shape: indices
// (embedding, embedding_bag, index_select, gather, scatter, index, take),
// loss targets (nll_loss, cross_entropy), bag offsets, max-pool indices, a
// packed sequence's lengths and batch sizes, and boolean masks (x[mask],
// masked_select, nonzero), which select as many elements as the recorded
// result holds, so that what follows gets the recorded shapes. For
// these the pool's arbitrary data would index out of range, which ATen's CPU
// kernels check only in part (max_pool2d_with_indices_backward writes where
// its indices say). Each gets a dedicated tensor of valid values derived from
// the op's other recorded arguments: rows of the weight, classes of the
// input, the forward op recomputed for saved indices.
#pragma once

#include <ATen/core/function_schema.h>
#include <ATen/core/ivalue.h>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "replay/exec/step_builder.h"
#include "replay/exec/tensor_pool.h"
#include "trace/trace.h"

namespace mimic::replay {

struct ValidValueContext {
    std::string_view op_name;  // recorded name, e.g. "aten::embedding_bag"
    NodeIndex node;            // the recorded call (its outputs give sizes the inputs do not)
    const c10::FunctionSchema& schema;
    const std::vector<ArgSource>& args;
    const Trace& trace;
    TensorPool& pool;
};

// Appends (argument index, value) for every argument that needs valid values;
// returns "" or the reason valid values cannot be made (the op is skipped).
std::string valid_values(const ValidValueContext& ctx, std::vector<std::pair<size_t, c10::IValue>>& overrides);

// Offsets of `bags` bags over `indices` indices: 0, then evenly spaced,
// monotone, each <= indices; with include_last, one more entry equal to indices.
std::vector<int64_t> bag_offsets(int64_t bags, int64_t indices, bool include_last);

// Lengths of `sequences` padded sequences holding `total` steps in all, the
// longest `longest` long: sorted longest first, each at least 1, as
// pack_padded_sequence requires. The recorded packed data (`total` rows) and
// batch sizes (`longest` entries) then keep their recorded shapes. Empty when
// no such lengths exist.
std::vector<int64_t> sequence_lengths(int64_t sequences, int64_t total, int64_t longest);

// A packed sequence's batch sizes: for each step, how many of the sequences
// (sorted longest first) are that long.
std::vector<int64_t> batch_sizes_of(const std::vector<int64_t>& lengths);

}  // namespace mimic::replay

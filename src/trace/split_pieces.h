// The pieces of one operator call that Chakra's PyTorch converter of early
// 2024 wrote as separate nodes. It cut a CPU op that launched a GPU kernel at
// each launch, so that the part after the launch could overlap the kernel,
// and named the pieces "aten::conv2d(0)", "aten::conv2d(1)", ..., each after
// the first depending on the one before (../shared's feeder_sample: 899 ops
// in 2,115 pieces). The pieces are one call: a replay runs the op once, and a
// cost model costs it once, under its own name.
#pragma once

#include <cstdint>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace mimic {

// "aten::conv2d(2)" -> "aten::conv2d"; any other name as it is.
std::string_view split_piece_base(std::string_view name);

// "aten::conv2d(0)" -> "aten::conv2d": the first piece stands for the call
// (its FLOPs, its cost); any other name, later pieces included, as it is.
std::string_view first_piece_base(std::string_view name);

// Per node: 1 for a piece after the first (named BASE(k), k >= 1, with a data
// dependency on BASE(k-1)), else 0. All 0 for traces that are not Chakra.
std::vector<uint8_t> later_split_pieces(const Trace& trace);

}  // namespace mimic

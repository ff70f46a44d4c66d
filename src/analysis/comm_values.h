// Small facts needed to read communication ops: element sizes of PyTorch
// dtype names, one spelling for each collective, argument names of an op
// schema, and the bytes of the tensors in a value.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "trace/trace.h"

namespace mimic::analysis {

// Bytes per element of a c10::ScalarType name as record_param_comms writes
// it ("Float", "BFloat16", "Long"...); nullopt for a name we do not know.
std::optional<uint32_t> dtype_size_bytes(std::string_view scalar_type);

// One name per collective, Chakra's spelling: "allreduce", "all_reduce",
// "c10d::allreduce_", "_allgather_base_" and "allgather_into_tensor_coalesced"
// all become "all_reduce" or "all_gather". Unknown names come back lowercased.
std::string normalize_collective_name(std::string_view raw);

// The collective of a Chakra CollectiveCommType number, "" if out of range.
std::string_view chakra_comm_type_name(int64_t comm_type);

// Argument names of a schema, in order, e.g. {"tensors", "process_group",
// "root_rank", ...} for c10d::broadcast_. Empty when it does not parse.
std::vector<std::string_view> schema_argument_names(std::string_view schema);

// An embedding lookup's arguments that grow with the batch, by schema name:
// indices, offsets and per-sample weights (aten's embedding ops and fbgemm's
// table-batched ones), not its tables or their per-table bookkeeping.
bool embedding_batch_argument(std::string_view argument_name);

// Sum of numel * itemsize over the tensors in a value (a tensor, or lists of
// them at any depth); undefined tensors count 0. nullopt when it holds none.
std::optional<uint64_t> tensor_bytes(const Trace& trace, const Value& value);

}  // namespace mimic::analysis

// A generated program bound to one rank, encoded as that rank's Chakra
// file: GlobalMetadata, then one node per op with the attributes ASTRA-sim's
// feeder and mimic's simulator read (src/sim/workload_graph.cpp):
// - every node: is_cpu_op false (a GPU stream), dependencies as data_deps;
// - compute: duration_micros, num_ops (FLOPs), tensor_size (bytes);
// - collective: comm_type, comm_size, pg_name (the group id; left out for
//   the world);
// - send/recv: comm_src, comm_dst (global ranks), comm_tag, comm_size.
// Nothing rank-specific goes into the file beyond what the rank's nodes
// say, so ranks with the same program and the same groups share bytes.
#pragma once

#include <cstdint>
#include <string>

#include "compose/generate_files.h"
#include "compose/generate_workload.h"
#include "io/chakra/chakra_wire_encoder.h"

namespace mimic::compose {

// Encodes rank's whole file into `out`.
void encode_generated_rank(const GenWorkload& w, int64_t rank, ChakraWireEncoder& out);

// What makes rank's file differ from another rank's of the same program:
// the ids of the groups it uses and, with pipeline messages, the rank itself.
std::string generated_rank_key(const GenWorkload& w, int64_t rank);

// PREFIX.<r>.et for every rank, and PREFIX.comm_groups.json.
RankFilesStats write_generated_chakra(const GenWorkload& w, const std::string& prefix, int threads);

std::string comm_groups_path(const std::string& prefix);

}  // namespace mimic::compose

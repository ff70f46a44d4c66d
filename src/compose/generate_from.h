// `mimic generate --from TRACE --ranks N`: a data-parallel trace recorded on
// one rank (or rank 0 of a recording of several), run by N ranks, as N
// Chakra files. The trace becomes the simulator's rank graph exactly as
// `mimic simulate TRACE --ranks N` reads it (sim::read_trace_workload, with
// the recording's profile for compute durations), and sim::replicate_ranks
// decides what replication means (every collective over all N ranks;
// point-to-point messages refused), so the files simulate the same as that
// command. Every rank's file is the same bytes, encoded once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compose/generate_files.h"
#include "io/chakra/chakra_wire_encoder.h"
#include "sim/workload_graph.h"

namespace mimic::compose {

struct FromTraceResult {
    std::vector<std::string> notes;
    RankFilesStats files;
    std::string table, json;
};

FromTraceResult expand_trace(const std::string& trace, const std::string& profile, int64_t ranks, const std::string& prefix,
                             int threads);

// One rank graph as a Chakra file: the fields the simulator reads, node for node.
void encode_rank_graph(const sim::RankGraph& graph, ChakraWireEncoder& out);

}  // namespace mimic::compose

// Writes one Chakra file per rank, PREFIX.<r>.et, for tens of thousands of
// ranks: ranks whose files would hold the same bytes (the same key) are
// encoded once and the bytes written to each of their files; distinct
// encodings are spread over the machine's cores (at most `threads`).
// Progress goes to stderr every two seconds once the work has taken one,
// as lines when stderr is not a terminal (a batch job's log) and as one
// redrawn line when it is; MIMIC_NO_PROGRESS silences it.
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "io/chakra/chakra_wire_encoder.h"

namespace mimic::compose {

struct RankFilesStats {
    int64_t files = 0;
    int64_t encodings = 0;             // distinct files encoded
    uint64_t bytes = 0;                // written, all files
    std::vector<uint64_t> file_bytes;  // per rank
    double seconds = 0;
};

struct RankFilesJob {
    std::string prefix;
    int64_t ranks = 0;
    int threads = 2;
    std::string label = "mimic generate";  // progress lines start with it
    // Ranks with equal keys get the same bytes.
    std::function<std::string(int64_t rank)> key;
    // Fills `out` (cleared) with rank's whole file.
    std::function<void(int64_t rank, ChakraWireEncoder& out)> encode;
};

// Throws mimic::Error naming the file that could not be written.
RankFilesStats write_rank_files(const RankFilesJob& job);

}  // namespace mimic::compose

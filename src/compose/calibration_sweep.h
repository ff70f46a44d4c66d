// The shape sweeps `mimic calibrate` times besides the ops of the traces it
// is given: one PyTorch ET (schema 1.0.1, as torch 1.13's observer writes)
// of independent operator calls, a grid of shapes per op family (GEMM, conv,
// embedding, norms, softmax and losses, elementwise, reductions, optimizer
// updates, copies), forward and backward ops alike. Each call reads tensors
// nothing made, so the replay materialises them (valid indices for
// embeddings) and times every call on its own. The family models of
// `mimic predict` then rest on measured points across the shapes a trace
// rescaled to another batch or a model never measured reaches, not only on
// the shapes of the traces at hand.
#pragma once

#include <cstddef>
#include <map>
#include <string>

namespace mimic::compose {

struct SweepStats {
    size_t ops = 0;
    std::map<std::string, size_t> ops_per_family;  // by model::family_name
};

// Writes the sweep ET to `path`. `quick` keeps a coarser grid (for
// `calibrate --quick`); the largest calls stay under about 1 GFLOP so a full
// sweep takes well under a minute on one core.
SweepStats write_calibration_sweep(const std::string& path, bool quick);

}  // namespace mimic::compose

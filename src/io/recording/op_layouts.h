// op_layouts.json, which `mimic record` writes next to meta.json: the sizes,
// strides and storage offset of every tensor each top-level operator of the
// original took, by ET node id (python/mimic_record/fault_probe.py).
//
// Why: a torch 1.13 ET (schema 1.0.1) records no strides, so a replay builds
// such tensors contiguous and feeds operators other layouts than the
// original's. `W.t()` saved for a backward `mm` comes back as a contiguous
// [in, out] tensor, and BLAS then runs NT where the original ran NN: on this
// machine up to 1.8x slower. Applied to the trace, the recorded strides make
// the replay build the original's views.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace.h"

namespace mimic {

struct RecordedLayout {
    std::vector<int64_t> sizes, strides;
    int64_t offset = 0;
};

struct OpLayouts {
    // ET node id -> its tensors in argument order (lists flattened); nullopt: undefined.
    std::vector<std::pair<uint64_t, std::vector<std::optional<RecordedLayout>>>> ops;
};

// Throws mimic::Error naming the file and field when it is not such a file.
OpLayouts read_op_layouts(const std::string& path);
// The op_layouts.json in the directory of `meta_path`, if there is one.
std::optional<OpLayouts> read_op_layouts_beside(const std::string& meta_path);

struct LayoutsApplied {
    size_t tensors = 0;        // given their recorded strides
    size_t ops = 0;            // whose tensors all matched
    size_t mismatched_ops = 0; // skipped: another tensor count, or sizes that differ from the ET's
};

// Gives each input tensor of the listed ops that has no strides in the trace
// the recorded ones, where the op's tensors match the record one for one
// (same count, same sizes); an op that does not match is left as it was.
LayoutsApplied apply_op_layouts(Trace& trace, const OpLayouts& layouts);

}  // namespace mimic

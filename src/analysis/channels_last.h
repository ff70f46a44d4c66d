// Channels-last tensors in a trace that records no strides.
//
// Why: a torch 1.13 ET (schema 1.0.1) has shapes but no strides, so a replay
// builds every tensor the step reads from outside (inputs, parameters,
// optimizer state) contiguous. A model converted with
// `.to(memory_format=torch.channels_last)`, the usual advice for CNNs on
// CPUs, then runs other kernels than the original: its convolutions,
// norms and pointwise ops on NCHW instead of NHWC, and none of the
// conversions the original paid for where the two met (a segmentation net
// recorded at 13.6 ms replayed in 7.9 ms). The trace still shows those
// conversions: ops that make a tensor channels-last (`contiguous`, `clone`,
// `to`, `_to_copy`, `empty_like` with memory_format ChannelsLast or
// ChannelsLast3d). Where it does, the step's 4-D (5-D) tensors from outside
// are taken to be channels-last, as a converted model's and input are.
#pragma once

#include <cstddef>
#include <optional>

#include "trace/trace.h"

namespace mimic::analysis {

struct ChannelsLastEvidence {
    NodeIndex node;    // the first op that converted to the format
    int64_t format = 0;  // 2: ChannelsLast (4-D), 3: ChannelsLast3d (5-D)
    size_t ops = 0;    // how many ops did
};

// The ops of the trace that convert a tensor to channels-last, 2-D or 3-D
// (the more frequent when both occur); nullopt when none does.
std::optional<ChannelsLastEvidence> channels_last_evidence(const Trace& trace);

// Gives every 4-D (format 2) or 5-D (format 3) tensor that the step reads
// before any op of it writes that tensor, and that has no strides in the
// trace, dense channels-last strides. Returns how many tensors it changed
// (distinct tensor and storage ids).
size_t assume_channels_last_sources(Trace& trace, int64_t format);

}  // namespace mimic::analysis

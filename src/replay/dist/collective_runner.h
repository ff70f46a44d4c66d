// Issues a recorded communication call again on a c10d process group, with
// buffers of the recorded sizes. Tensors the trace records are views of the
// tensor pool, so a collective reduces in place the very buffer the ops
// around it write and read (DDP's gradient buckets). What Gloo cannot do is
// run the nearest way that moves the same data, and says so.
#pragma once

#include <ATen/core/Tensor.h>
#include <torch/csrc/distributed/c10d/Work.hpp>

#include <string>
#include <vector>

#include "analysis/collective_schedule.h"
#include "replay/dist/process_groups.h"
#include "replay/exec/tensor_pool.h"

namespace mimic::replay {

struct ReplayCollective {
    analysis::ScheduledCollective recorded;
    const ReplayGroup* group = nullptr;
    std::vector<at::Tensor> inputs;
    std::vector<at::Tensor> outputs;
    std::string emulation;  // "" when the call runs as recorded
    c10::intrusive_ptr<c10d::Work> work;  // in flight between issue and wait
};

class CollectiveRunner {
public:
    CollectiveRunner(const Trace& trace, TensorPool& pool, ProcessGroups& groups)
        : trace_(trace), pool_(pool), groups_(groups) {}

    // Builds the call's buffers; returns "" or why it cannot be replayed
    // (the rank is not in its group, a wait with nothing to wait for...).
    std::string prepare(ReplayCollective& c);
    // Starts the call on its group. Throws what c10d throws.
    void issue(ReplayCollective& c);
    // Blocks until the call issued last completes (no-op when none is in
    // flight). Throws on a failed or timed-out call: a peer went away.
    void wait(ReplayCollective& c);

private:
    const Trace& trace_;
    TensorPool& pool_;
    ProcessGroups& groups_;
};

}  // namespace mimic::replay

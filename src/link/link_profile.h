// Links a profiler trace to an execution trace: each ET node that the
// profiler saw gets its host timing (start, inclusive and exclusive duration,
// thread), and the device work its profiler op launched (kernels, memcpys,
// memsets) is attached to it.
//
// Host ops are matched in three ways, in this order:
//  1. by id: ET rf_id == the profiler's "Record function id" (newer PyTorch,
//     and mimic's own recorder), names checked;
//  2. by autograd sequence number: ET seq_id == "Sequence number", names
//     checked; it tells which of many profiled iterations the ET recorded;
//  3. in order: per thread, the ET nodes (sorted by id) and the profiler's
//     host events (sorted by start) are aligned by name, skipping what either
//     side lacks. Nodes already linked are fixed points of the alignment.
//     Gloo's gloo:* labels, which the ET files on the calling thread and the
//     profiler on Gloo's worker threads, are aligned in order on their own.
// Device work joins its launch (runtime call) by correlation id; the launch
// joins the host op with its External id on the same thread if that op
// encloses it, else the innermost host op that encloses it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "io/kineto/kineto_trace.h"
#include "trace/trace.h"

namespace mimic {

struct LinkOptions {
    bool by_record_function_id = true;
    bool by_sequence_number = true;
    bool in_order = true;
    bool attach_device_work = true;
};

enum class LinkMethod : uint8_t { None, RecordFunctionId, SequenceNumber, InOrder };

// Which profiler thread an ET thread was aligned with, and how well.
struct ThreadPairing {
    uint64_t et_tid = 0;
    int64_t profile_pid = 0;
    int64_t profile_tid = 0;
    size_t et_nodes = 0;          // linkable nodes of the ET thread
    size_t profile_events = 0;    // host ops of the profiler thread
    size_t linked = 0;
};

struct LinkStats {
    size_t et_nodes = 0;            // all nodes of the trace
    size_t linkable = 0;            // nodes a profiler could record: all but the root and thread nodes
    size_t linked = 0;
    size_t unlinked = 0;
    size_t operators = 0;           // nodes of kind Operator (with a schema)
    size_t operators_linked = 0;
    size_t by_record_function_id = 0;
    size_t by_sequence_number = 0;
    size_t in_order = 0;
    size_t rf_id_name_mismatches = 0;  // "Record function id" found but the names differ: not linked
    size_t nesting_conflicts = 0;      // pairs dropped: the event lies outside its linked parent's event
    size_t profile_host_events = 0;    // cpu_op + user_annotation events of the profile
    size_t profile_host_events_linked = 0;
    size_t profile_device_events = 0;
    size_t kernels_attached = 0;
    size_t memcpys_attached = 0;
    size_t memsets_attached = 0;
    size_t device_without_launch = 0;   // no runtime event with its correlation
    size_t device_outside_et = 0;       // launched by host ops that no linked ET node covers
    // Profiled iterations repeating a linked label (link/iteration_repeats.h):
    // the most found for one label, the linked one included (0: none), and
    // the linked nodes whose durations are medians over more than one.
    size_t profiled_iterations = 0;
    size_t nodes_with_repeats = 0;
    std::vector<ThreadPairing> threads;
    double link_rate() const { return linkable ? double(linked) / double(linkable) : 0.0; }
};

// Fills trace.timing (one entry per node, with each op's median over the
// profiled iterations that repeat the linked one) and trace.device_events, replacing
// what was there. A profile that matches nothing leaves every node unlinked.
LinkStats link_profile(Trace& trace, const ProfileTrace& profile, const LinkOptions& options = {});

const char* to_string(LinkMethod m);

}  // namespace mimic

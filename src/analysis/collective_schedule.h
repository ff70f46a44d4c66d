// The communication calls one rank made, in the order it made them, with what
// a replay needs to issue each again on a real process group: the collective,
// the group, the tensors sent and received, splits, root or peer, and when
// the caller waited for it. Both dialects:
//  - PyTorch 1.13 (Gloo): c10d:: dispatcher ops whose arguments are
//    positional (_0, _1...) and whose group is an opaque object; calls that
//    bypass the dispatcher (all_to_all_single) leave only a gloo:* label.
//    meta.json's python_collectives give group, splits and async flag.
//  - PyTorch 2.x: c10d:: ops with named arguments, and record_param_comms
//    below them naming the group; "wait" records and c10d::wait ops.
// A backend label (gloo:*, nccl:*) repeats the c10d op that queued it and is
// not a call of its own unless no c10d op of that collective came before it.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "io/chakra/chakra_comm.h"
#include "io/recording/recording_dir.h"
#include "trace/trace.h"

namespace mimic::analysis {

struct ScheduledCollective {
    NodeIndex node;  // the node standing for the call in execution order
    CommKind kind = CommKind::Collective;  // Collective, Send, Recv or Wait
    CollectiveType type = CollectiveType::Unknown;
    std::string op_name;        // as recorded: "c10d::allreduce_", "gloo:all_to_all"
    std::string pg_name;        // "" = the default group
    std::vector<uint32_t> inputs;   // Trace::tensors indices of the tensors sent (reduced in place)
    std::vector<uint32_t> outputs;  // received into: all_gather's list, all_to_all's output...
    std::vector<int64_t> input_splits;   // all_to_all rows per rank; empty = equal
    std::vector<int64_t> output_splits;
    int64_t root = 0;  // broadcast/reduce/gather/scatter root, send/recv peer (group rank)
    int64_t tag = 0;
    std::string reduce_op;  // "SUM" unless recorded otherwise
    // record_param_comms' sequence number (2.x): a "wait" names the call it
    // waits for by it. -1 when not recorded.
    int64_t seq = -1;
    // The caller waited at once (Python's async_op=False). Otherwise the work
    // runs on while later ops do, until an explicit wait or a later op reads
    // one of its tensors (DDP waits for its buckets that way).
    bool waits_at_once = false;
    uint64_t input_bytes = 0;
    uint64_t output_bytes = 0;
};

// Names of CollectiveType values as reports write them ("all_reduce").
std::string collective_type_name(CollectiveType t);

// What a call does, as reports and the ranks' comparison name it: "send",
// "recv", else its collective ("all_reduce"...).
std::string call_name(const ScheduledCollective& c);

// Bus bandwidth over algorithm bandwidth for a collective over `ranks` ranks
// (the nccl-tests convention): 2(n-1)/n for all_reduce, (n-1)/n for
// all_gather, reduce_scatter and all_to_all, 1 for the rest.
double bus_bandwidth_factor(CollectiveType t, int64_t ranks);

// The calls among `order` (nodes in execution order, e.g. one iteration),
// with `python_calls` from meta.json matched to them in order by collective.
std::vector<ScheduledCollective> schedule_collectives(const Trace& trace, const std::vector<NodeIndex>& order,
                                                      const std::vector<PythonCollective>& python_calls);

}  // namespace mimic::analysis

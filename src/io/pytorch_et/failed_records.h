// Ops PyTorch's execution-trace observer failed to record. When recording an
// op throws inside the observer (1.13: ops on nested tensors, whose sizes()
// throws, as a TransformerEncoder's inference fast path makes them), the op
// is either not written at all, its children then naming a parent the file
// does not hold, or written with id 0 and parent 0 and nothing to say where
// it ran. Such a trace is incomplete, not broken:
//  - the children of an op never written are attached to that op's own
//    parent, found from the file order (the observer numbers ops as they
//    start and writes them as they end, so an op's parent is the first op
//    written after it with a smaller id; failing that, its thread's node):
//    the op's work is replayed as the calls it made;
//  - a record of id 0 gets a fresh id and no parent: nothing says where it
//    ran, so it comes after the rest (a replay runs it last, or reports it
//    with the reason it cannot run).
// The same holds for ops still running when the observer stopped (a label
// open around et.stop()): numbered but never written, named by the calls
// they had finished, which go where the op ran (its thread, as nothing
// written encloses it).
// One warning says how many of each. Only a trace that shows the signs of
// either (a record of id 0; or missing parents that are the last ops to
// start on their thread, with every later op inside them) is mended, so a
// missing parent in any other trace is still the error it was. The reader mends the Trace;
// the commands that rewrite the ET's JSON (cut, scale, obfuscate) mend it the
// same way, from the same plan.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "trace/trace.h"

namespace mimic {

// What the plan needs of each node, in file order.
struct RecordView {
    uint64_t id = 0;
    uint64_t parent = 0;  // 0 when none
    uint64_t tid = 0;
    bool is_root = false;
    bool is_thread = false;
};

struct FailedRecordRepair {
    std::vector<std::pair<uint32_t, uint64_t>> new_ids;      // node index -> fresh id (the id-0 records)
    std::vector<std::pair<uint32_t, uint64_t>> new_parents;  // node index -> parent id (0: none)
    size_t id_zero = 0;   // records of id 0
    size_t missing = 0;   // ops never written, named as parents
    size_t orphans = 0;   // calls that named them
    size_t open_at_stop = 0;  // of `missing`: ops still running when the observer stopped
    bool empty() const { return id_zero == 0 && open_at_stop == 0; }
    // The one warning, naming up to three of the id-0 records.
    std::string warning(const std::vector<std::string>& id_zero_names) const;
};

FailedRecordRepair plan_failed_record_repair(const std::vector<RecordView>& nodes);

// Plans and applies the repair to a Trace read from an ET, with its warning.
void place_failed_records(Trace& trace);

}  // namespace mimic

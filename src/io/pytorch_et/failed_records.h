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
// One warning says how many of each. Only a trace that shows the signs of
// such failures (a record of id 0 among them) is mended, so a missing parent
// in any other trace is still the error it was.
#pragma once

#include "trace/trace.h"

namespace mimic {

void place_failed_records(Trace& trace);

}  // namespace mimic

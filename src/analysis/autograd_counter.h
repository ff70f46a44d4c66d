// Which calls made a node in autograd's graph, read from the sequence numbers
// alone, for traces that hold no backward to say so. In grad mode PyTorch
// stamps each call with its thread's next node number and advances that
// number only when a node is made, so the next numbered call on the same
// thread after a call's subtree carries a higher number exactly when the
// call, or a call inside it, made one. A step that never calls backward
// (inference in grad mode, a cut of the forward) made nodes where an input
// required grad: its weights, not its data or the ops on labels.
#pragma once

#include <cstdint>
#include <vector>

#include "trace/trace.h"

namespace mimic::analysis {

enum class MadeNode : int8_t { Unknown = -1, No = 0, Yes = 1 };

// RecordScope::BACKWARD_FUNCTION, as the ET writes a node's "scope".
inline constexpr int32_t kBackwardFunctionScope = 1;

// Per node (by index): whether it made an autograd node; Unknown where it has
// no sequence number, runs in the backward (whose labels carry the numbers of
// the nodes they run), or no later numbered call on its thread follows it.
std::vector<MadeNode> made_autograd_nodes(const Trace& trace);

}  // namespace mimic::analysis

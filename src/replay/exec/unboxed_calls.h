// A few frequent ops called the way the original's Python called them:
// unboxed, through at::_ops (the dispatcher's typed entry), not through the
// boxed stack a generic replayer uses for everything.
//
// Why: the boxed path runs code the original never ran (each op's boxing
// wrapper, the conversion of list arguments), and for ops of a microsecond
// that is a large part of their time, most of all when that code is cold.
// Measured on dlrm, the `empty` the optimizer's record_function makes after
// the backward took 1.0 us replayed boxed, 0.4 in the original; on mlp and
// transformer `view` was +40-60% against the profile. The conversion happens
// before the dispatcher's RecordFunction, outside the per-op timer, as the
// original's argument parsing was outside the profiler's interval.
// dlrm's interaction ops were the slowest against the untraced op times
// boxed (systematic over 7 fresh recordings: tril_indices +47%, unbind +55%,
// slice +54-63%, sub_ +25-38%, new_zeros +18-30%); unboxed +5%, +12%,
// +19-36%, +8-14%, -5..+12%. (A trial of 17 such ops judged on older
// recordings read no gain: such replays favoured slower builds, see
// bench/replay_ab_fresh.sh.) Also slice_backward, chunk and squeeze.dim
// (+16%, +20%, +14% against the untraced times: +0, -3, +14%; per-op error 17.9 -> 17.2% against the
// profile, 15.9 -> 15.5% against the untraced times, 6 fresh rounds). Not
// sum.dim_IntList and cat: unboxed they ran faster than the original
// (mlp's sum -1 -> -10%, dlrm's cat -0 -> -9%), the boxing was not their
// excess, and the per-op error against the profile went 16.6 -> 18.6%.
#pragma once

#include <ATen/core/dispatch/Dispatcher.h>
#include <ATen/core/stack.h>

namespace mimic::replay {

// Pops the op's arguments (every argument of its schema, in order) and
// pushes its result, as callBoxed does. Returns false, the stack untouched,
// when the arguments are not of the types it handles (the caller then calls
// the op boxed).
using UnboxedCall = bool (*)(torch::jit::Stack& stack);

// The unboxed call for this operator, or nullptr.
UnboxedCall find_unboxed_call(const c10::OperatorName& name);

}  // namespace mimic::replay

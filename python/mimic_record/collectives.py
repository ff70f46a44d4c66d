"""A log of the torch.distributed calls made from Python during the traced iteration.

torch 1.13's ET is missing facts a replay needs about collectives:
- all_to_all_single (Gloo's alltoall_base) records only a `gloo:all_to_all` label with the input
  shape: no c10d op, no output size, no split sizes;
- every c10d op shows its ProcessGroup as "<Object>", so the group is unknown.
While the traced iteration runs we wrap the torch.distributed functions and log, in call order,
the op, its group (by pg_name, as in meta.json's process_groups), element counts, split sizes,
dtype, root/peer and async_op. Collectives issued from C++ (DDP's reducer) bypass Python and
are not in this log; they are in the ET as `c10d::allreduce_` with their sizes.
"""

import functools
import inspect
import time

import torch
import torch.distributed as dist

# op -> (argument names holding its input tensors, argument names holding its outputs)
_ROLES = {
    "all_reduce": (("tensor",), ("tensor",)),
    "all_to_all_single": (("input",), ("output",)),
    "all_to_all": (("input_tensor_list",), ("output_tensor_list",)),
    "all_gather": (("tensor",), ("tensor_list",)),
    "all_gather_into_tensor": (("input_tensor",), ("output_tensor",)),
    "_all_gather_base": (("input_tensor",), ("output_tensor",)),
    "reduce_scatter": (("input_list",), ("output",)),
    "reduce_scatter_tensor": (("input",), ("output",)),
    "_reduce_scatter_base": (("input",), ("output",)),
    "broadcast": (("tensor",), ("tensor",)),
    "reduce": (("tensor",), ("tensor",)),
    "gather": (("tensor",), ("gather_list",)),
    "scatter": (("scatter_list",), ("tensor",)),
    "barrier": ((), ()),
    "send": (("tensor",), ()),
    "isend": (("tensor",), ()),
    "recv": ((), ("tensor",)),
    "irecv": ((), ("tensor",)),
}
_PEER_ARGS = {"broadcast": "src", "reduce": "dst", "gather": "dst", "scatter": "src",
              "send": "dst", "recv": "src", "isend": "dst", "irecv": "src"}


def _tensors(value):
    if isinstance(value, torch.Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        out = []
        for v in value:
            out += _tensors(v)
        return out
    return []


def _pg_name(group):
    from .dist_groups import _c10d_tables
    if group is None or group is dist.group.WORLD:
        group = dist.distributed_c10d._get_default_group()
    _, names, _ = _c10d_tables()
    return names.get(group)


class _WrappedCollectives:
    """Context manager: while active, the torch.distributed collectives are self._wrap(name, f)."""

    def __init__(self):
        self._saved = {}

    def __enter__(self):
        if not (dist.is_available() and dist.is_initialized()):
            return self
        for name in _ROLES:
            original = getattr(dist, name, None)
            if original is not None:
                self._saved[name] = original
                setattr(dist, name, self._wrap(name, original))
        return self

    def __exit__(self, *exc):
        for name, original in self._saved.items():
            setattr(dist, name, original)
        self._saved.clear()
        return False

    def _wrap(self, name, original):
        raise NotImplementedError


class CollectiveLog(_WrappedCollectives):
    """Context manager: while active, records every wrapped torch.distributed call."""

    def __init__(self):
        super().__init__()
        self.calls = []

    def _wrap(self, name, original):
        signature = inspect.signature(original)

        @functools.wraps(original)
        def logged(*args, **kwargs):
            try:
                bound = signature.bind(*args, **kwargs)
                bound.apply_defaults()
                entry = _describe(name, bound.arguments)
                entry["seq"] = len(self.calls)
                self.calls.append(entry)
            except TypeError:
                pass  # let the real function report the bad call
            return original(*args, **kwargs)

        return logged


def _describe(name, arguments):
    """One JSON-ready log entry from a call's bound arguments."""
    input_args, output_args = _ROLES[name]
    inputs = [t for a in input_args for t in _tensors(arguments.get(a))]
    outputs = [t for a in output_args for t in _tensors(arguments.get(a))]
    entry = {"op": name, "pg_name": _pg_name(arguments.get("group")),
             "async_op": bool(arguments.get("async_op", False))}
    if inputs or outputs:
        entry["dtype"] = str((inputs or outputs)[0].dtype).replace("torch.", "")
    entry["in_nelems"] = [t.numel() for t in inputs]
    entry["out_nelems"] = [t.numel() for t in outputs]
    for key in ("input_split_sizes", "output_split_sizes"):
        if arguments.get(key) is not None:
            entry[key] = [int(x) for x in arguments[key]]
    peer = _PEER_ARGS.get(name)
    if peer and arguments.get(peer) is not None:
        entry[peer] = int(arguments[peer])
    if arguments.get("op") is not None:
        entry["reduce_op"] = _reduce_op_name(arguments["op"])
    return entry


def _reduce_op_name(op):
    # torch 1.13's ReduceOp members print as "<...ReduceOp object at 0x...>": compare instead.
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        member = getattr(dist.ReduceOp, name, None)
        try:
            if member is not None and op == member:
                return name
        except TypeError:
            continue
    return str(op)


class _TimedWork:
    """A Work whose wait() notes the interval it blocked; everything else is the Work's."""

    def __init__(self, work, waits):
        self._work = work
        self._waits = waits

    def wait(self, *args, **kwargs):
        start = time.perf_counter_ns()
        try:
            return self._work.wait(*args, **kwargs)
        finally:
            self._waits.append((start, time.perf_counter_ns()))

    def __getattr__(self, name):
        return getattr(self._work, name)


class WaitTimer(_WrappedCollectives):
    """Context manager: while active, notes when Python blocked on a collective outside any operator:
    an async collective's wait() and, whole, a blocking collective call (Gloo's work runs on its own
    threads; torch 1.13 records no operator for the wait). `waits`: (start_ns, end_ns) pairs on
    time.perf_counter_ns's clock. The host gaps measured around operators (op_gaps.json) lose these
    intervals: a multi-rank replay waits for its own collectives."""

    def __init__(self):
        super().__init__()
        self.waits = []

    def _wrap(self, name, original):
        @functools.wraps(original)
        def timed(*args, **kwargs):
            start = time.perf_counter_ns()
            result = original(*args, **kwargs)
            if result is None or not hasattr(result, "wait"):
                self.waits.append((start, time.perf_counter_ns()))  # blocked in the call itself
                return result
            return _TimedWork(result, self.waits)

        return timed

"""profile.json: the profiled iteration as a Kineto-format Chrome trace.

Debian's torch 1.13 is built without Kineto, so export_chrome_trace() writes events with empty
args. The in-memory events (prof.profiler.kineto_results.events()) still hold everything the
linker needs, and we write them the way Kineto would:
- host ops: {"ph": "X", "cat": "cpu_op" (or "user_annotation" for record_function labels),
  "args": {"External id": <profiler correlation id>, "Record function id": <ET rf_id>,
  "Sequence number", "Fwd thread id", "Input Dims", "Input type"}}
- memory: {"ph": "i", "cat": "cpu_instant_event", "name": "[memory]", "args": {"Bytes", ...}}
"Record function id" is written only for events paired with an ET node of the same name (see
align.py); "External id" is always the profiler's own correlation id, as in Kineto.
`tid` is the profiler's sequential thread id, the same number the ET writes as `tid`.

Times are written to the nanosecond ("ts" and "dur" in microseconds with three decimals; a "ts"
since the epoch, read as a double, keeps 0.25 us of it), taken from the profiler's event tree: the events' own start_us()/duration_us() are whole microseconds,
and the duration is truncated, so a 1.9 us op read 1 us. Summed over the many sub-2-us ops of a
step, that made the profile under-report small ops by about 0.5 us each, 30-50% of their time.
"""

import collections
import json
import os

from .align import link_rf_ids

_USER_SCOPE = 7  # at::RecordScope::USER_SCOPE: record_function labels


def _scope(event):
    scope = event.scope()
    return int(scope) if not hasattr(scope, "value") else int(scope.value)


def _is_memory(event):
    return event.name() == "[memory]"


def profile_ops(events):
    """(tid, correlation_id, name, input shapes, start_us) of the op events (memory records
    carry no correlation id)."""
    return [(e.start_thread_id(), e.correlation_id(), e.name(), [list(x) for x in e.shapes()],
             e.start_us())
            for e in events if not _is_memory(e) and e.correlation_id() > 0]


def event_tree_of(prof):
    """The roots of a finished torch.profiler.profile's event tree, whose events carry nanosecond
    times; None where this torch has no event tree."""
    tree = getattr(prof.profiler.kineto_results, "experimental_event_tree", None)
    return tree() if tree else None


def walk_event_tree(roots):
    """Every event under `roots`, each before its children."""
    stack = list(roots)
    while stack:
        e = stack.pop()
        stack.extend(e.children)
        yield e


class PreciseTimes:
    """Nanosecond start and duration of the profiler's events, from its event tree.

    Op events are found by (thread, correlation id), as events() names them; memory events carry
    no correlation id and are found by (thread, whole microsecond, bytes), in order.
    """

    def __init__(self, event_tree):
        self._ops = {}
        self._memory = collections.defaultdict(collections.deque)
        allocations = []
        for e in walk_event_tree(event_tree):
            if e.correlation_id > 0:
                self._ops[(e.start_tid, e.correlation_id)] = (e.start_time_ns, e.duration_time_ns)
            elif e.name == "[memory]":
                allocations.append((e.start_time_ns, e.start_tid, e.extra_fields.alloc_size))
        for start_ns, tid, nbytes in sorted(allocations):
            self._memory[(tid, start_ns // 1000, nbytes)].append(start_ns)

    @staticmethod
    def of(prof):
        """From a finished torch.profiler.profile; None where this torch has no event tree."""
        roots = event_tree_of(prof)
        return PreciseTimes(roots) if roots is not None else None

    def op(self, event):
        """(ts_us, dur_us) of an op event, to the nanosecond where known."""
        ns = self._ops.get((event.start_thread_id(), event.correlation_id()))
        if ns is None:
            return event.start_us(), event.duration_us()
        return round(ns[0] / 1000, 3), round(ns[1] / 1000, 3)

    def memory_ts(self, event):
        queue = self._memory.get((event.start_thread_id(), event.start_us(), event.nbytes()))
        return round(queue.popleft() / 1000, 3) if queue else event.start_us()


def _add_event(trace_events, e, index, rf_ids, pid, times, net_allocated_bytes, peak_net_allocated_bytes):
    """Appends profiler event `e` as a Chrome trace event; returns the session's net allocated
    bytes and their peak after it."""
    tid = e.start_thread_id()
    if _is_memory(e):
        net_allocated_bytes += e.nbytes()
        trace_events.append({
            "ph": "i", "cat": "cpu_instant_event", "s": "t", "name": "[memory]",
            "pid": pid, "tid": tid, "ts": times.memory_ts(e) if times else e.start_us(),
            "args": {"Device Type": 0, "Device Id": -1, "Bytes": e.nbytes(),
                     # allocated minus freed since the profiler started, not the allocator total
                     "Net Allocated Since Start": net_allocated_bytes},
        })
        return net_allocated_bytes, max(peak_net_allocated_bytes, net_allocated_bytes)
    corr = e.correlation_id()
    args = {"External id": corr}
    rf_id = rf_ids.get((tid, corr))
    if rf_id is not None:
        args["Record function id"] = rf_id
    args["Ev Idx"] = index
    if e.sequence_nr() >= 0:
        args["Fwd thread id"] = e.fwd_thread_id()
        args["Sequence number"] = e.sequence_nr()
    shapes = e.shapes()
    if shapes:
        args["Input Dims"] = [list(s) for s in shapes]
        args["Input type"] = list(e.dtypes())
    ts, dur = times.op(e) if times else (e.start_us(), e.duration_us())
    trace_events.append({
        "ph": "X",
        "cat": "user_annotation" if _scope(e) == _USER_SCOPE else "cpu_op",
        "name": e.name(), "pid": pid, "tid": tid,
        "ts": ts, "dur": dur, "args": args,
    })
    return net_allocated_bytes, peak_net_allocated_bytes


def build_trace(sessions, rf_ids, pid, workload, times=None):
    """The Chrome trace dict of one or more profiler sessions' events (a list of event lists).
    rf_ids: {(tid, correlation_id): rf_id} from align.link_rf_ids; times: PreciseTimes, else the
    events' whole microseconds."""
    trace_events = []
    peak_net_allocated_bytes = 0
    threads = set()
    index = -1
    for events in sessions:
        # "Net Allocated Since Start" counts from each session's start, as each profiler's would.
        net_allocated_bytes = 0
        for e in events:
            index += 1
            net_allocated_bytes, peak_net_allocated_bytes = _add_event(
                trace_events, e, index, rf_ids, pid, times, net_allocated_bytes, peak_net_allocated_bytes)
            threads.add(e.start_thread_id())
    trace_events.sort(key=lambda ev: (ev["ts"], -ev.get("dur", 0)))
    trace_events.append({"name": "process_name", "ph": "M", "ts": 0, "pid": pid, "tid": 0,
                         "args": {"name": f"mimic_record {workload}"}})
    for tid in sorted(threads):
        trace_events.append({"name": "thread_name", "ph": "M", "ts": 0, "pid": pid, "tid": tid,
                             "args": {"name": f"thread {tid}"}})
    trace = {
        "schemaVersion": 1,
        "traceName": f"mimic_record {workload}",
        "displayTimeUnit": "ms",
        "producer": "mimic_record (built from torch.profiler in-memory events; no Kineto)",
        "traceEvents": trace_events,
    }
    return trace, peak_net_allocated_bytes


def write_profile(sessions, et_doc, path, workload):
    """Writes profile.json for finished torch.profiler.profile sessions, their events in one trace
    (the ET was recorded over the first session's first call, and is linked to that session);
    returns (rf_id link report, the largest session's peak bytes)."""
    events = [list(prof.profiler.kineto_results.events()) for prof in sessions]
    # Correlation ids go on counting from one session to the next (a process-wide counter), so
    # (thread, correlation id) names one event across the sessions: one PreciseTimes over all trees.
    trees = [event_tree_of(prof) for prof in sessions]
    times = PreciseTimes([root for tree in trees for root in tree]) if all(t is not None for t in trees) else None
    from .et_observer import et_ops
    rf_ids, report = link_rf_ids(et_ops(et_doc), profile_ops(events[0]))
    trace, peak = build_trace(events, rf_ids, os.getpid(), workload, times)
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(trace, f, separators=(",", ":"))
    os.replace(tmp, path)
    return report, peak

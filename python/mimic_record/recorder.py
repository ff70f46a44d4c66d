"""record_step(): ground-truth timing and one traced iteration of a training step.

The sequence, for a step callable `step_fn` (one full training iteration):
1. `warmup` untimed calls (allocator, caches, lazy init; DDP builds its buckets here);
2. `iters` timed, untraced calls: the ground truth a replay is judged against; then, with the
   probe, GAP_CALLS more untraced calls timing each top-level op (op_gaps.json, fault_probe.py);
3. `profiled_sessions` (default PROFILED_SESSIONS) profiler sessions of `profiled_iters` (default
   PROFILED_CALLS) calls each under the profiler alone (record_shapes, profile_memory), one
   ProfilerStep each: the timing of profile.json, with the page-fault probe counting each
   top-level op's faults (op_faults.json: per op, the median over the calls; fault_probe.py);
4. one call under the ET observer alone: the operators, tensors and structure of et.json.gz.
The ET call and the first profiled call run inside the same `ProfilerStep#<n>` record_function
label so the iteration is findable in both files, and their ops are paired by name in order
(align.py); a replay finds the other profiled calls as repeats of that step.

Why two passes: measured here, torch 1.13's ET observer costs 4-5 us per operator event inside
the op's own profiled interval (a transformer step: +18 ms on 23 ms), the profiler alone about
0.5 us. Timed together, small ops' profiled durations and the gaps between ops were mostly
observer cost. The profiled call is timed too: its excess over the untraced median is the
remaining instrumentation overhead, saved so replay can correct for it.
"""

import gc
import json
import os
import resource
import statistics
import time

import torch
import torch.distributed as dist
from torch.profiler import ProfilerActivity, profile, record_function

from . import calibrate, dist_groups, fault_probe, machine
from .collectives import CollectiveLog, WaitTimer
from .et_observer import EtObserver
from .profile_writer import write_profile

META_SCHEMA_VERSION = 2  # 2: the machine's description moved into `machine` (machine.py)
ET_FILE = "et.json.gz"
PROFILE_FILE = "profile.json"
META_FILE = "meta.json"
PROFILED_CALLS = 5  # default profiled iterations per session (per-op medians: one call is a noisy reference)
PROFILED_SESSIONS = 3  # default profiler sessions, their calls pooled in profile.json (one session's medians are noisy too)
_CALLS_BETWEEN_SESSIONS = 2  # untraced calls before each later session, as the gap calls come before the first
GAP_CALLS = 5  # untraced calls timed per top-level op for op_gaps.json (medians: one preempted call must not count)
_DISTURBED_SPREAD = 1.25  # slowest / fastest profiled call beyond which the session is profiled again
_PROFILE_ATTEMPTS = 3  # profiled sessions at most; the steadiest is kept
_SETTLE_S = 0.2  # lets Gloo worker threads finish their record functions before the ET stops (0.05 s was short on a loaded CI machine)


def _sync():
    """Waits for queued device work so a wall-clock interval covers the whole iteration."""
    if torch.cuda.is_available() and torch.cuda.is_initialized():
        torch.cuda.synchronize()


def _barrier():
    """Lines ranks up before a timed iteration so no rank's time includes waiting for a late peer."""
    if dist.is_available() and dist.is_initialized():
        dist.barrier()


def _any_rank(flag):
    """`flag` or'ed over the ranks (every rank gets the same answer), or `flag` alone."""
    if dist.is_available() and dist.is_initialized():
        # NCCL reduces device tensors only; Gloo and MPI host ones.
        device = (torch.device("cuda", torch.cuda.current_device())
                  if dist.get_backend() == "nccl" else torch.device("cpu"))
        t = torch.tensor([1 if flag else 0], device=device)
        dist.all_reduce(t, op=dist.ReduceOp.MAX)
        return bool(t.item())
    return flag


def _timed(step_fn, cpu_ms=None):
    """Wall ms of one call; with `cpu_ms`, also appends the CPU ms this thread spent in it."""
    _barrier()
    _sync()
    start = time.perf_counter_ns()
    cpu_start = time.thread_time_ns()
    step_fn()
    _sync()
    if cpu_ms is not None:
        cpu_ms.append((time.thread_time_ns() - cpu_start) / 1e6)
    return (time.perf_counter_ns() - start) / 1e6


def profiled_labels(label, calls):
    """The record_function labels of the profiled calls: `label` first (the ET's), then the next
    step numbers when it ends in #<n> (ProfilerStep#13, ProfilerStep#14...), else `label` again."""
    head, sep, number = label.rpartition("#")
    if sep and number.isdigit():
        return [f"{head}#{int(number) + k}" for k in range(calls)]
    return [label] * calls


def _write_json(path, doc):
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1, sort_keys=False)
        f.write("\n")
    os.replace(tmp, path)


def _count_ops(et_doc):
    return sum(1 for n in et_doc["nodes"] if n.get("op_schema") or n.get("name", "").startswith("aten::"))


def _profiled_session(step_fn, labels, probe, out_dir, first_index, settle):
    """One torch.profiler session of len(labels) calls, each inside its label; returns
    (prof, the probe's records per call, ms per call)."""
    probe_calls, profiled_ms = [], []
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True, profile_memory=True) as prof:
        for k, step_label in enumerate(labels):
            if k:
                # As between the untraced calls: no gc.collect() here, whose walk over the
                # heap left the next call's first ops cold (mlp's gradient zero_: 7 us, not 3).
                _barrier()
            _sync()
            start = time.perf_counter_ns()
            # The probe first: the label's record_function makes ops of its own (a zeros
            # before the label, an empty inside it) that the ET has, and pairing the probe's
            # ops with the ET's by name took the step's first zeros and empty for those.
            partial = os.path.join(out_dir, f".op_faults.{first_index + k}.tsv.partial")
            with fault_probe.probing(probe, partial) as records, record_function(step_label):
                step_fn()
            _sync()
            profiled_ms.append((time.perf_counter_ns() - start) / 1e6)
            probe_calls.append(records)
        if settle:
            # Gloo ends a collective's `gloo:*` record function on its worker thread from a
            # future callback that can run after the caller's wait() returned.
            time.sleep(_SETTLE_S)
    return prof, probe_calls, profiled_ms


def _steady_profiled_session(step_fn, labels, probe, out_dir, first_index, settle, workload, log):
    """A profiled session whose calls took alike, profiled again (at most _PROFILE_ATTEMPTS
    times) when they did not; returns (spread, prof, probe records per call, ms per call,
    attempt) of the steadiest one, and the attempts run."""
    best = None
    for attempt in range(1, _PROFILE_ATTEMPTS + 1):
        gc.collect()
        _barrier()
        prof, probe_calls, profiled_ms = _profiled_session(step_fn, labels, probe, out_dir, first_index, settle)
        spread = max(profiled_ms) / min(profiled_ms) if min(profiled_ms) > 0 else 1.0
        if best is None or spread < best[0]:
            best = (spread, prof, probe_calls, profiled_ms, attempt)
        # Calls of one step under one profiler take alike (within 3-6% on mlp and transformer,
        # 8-17% on cnn and dlrm, whose calls take unalike page faults); a session where they
        # do not was disturbed, and its per-op medians with it: measured on mlp, three of five
        # calls took 37-41 ms against 25 (24 untraced), every op in them 1.3-8x slower. Every
        # rank profiles again if one saw that (the calls meet at barriers).
        if not _any_rank(spread > _DISTURBED_SPREAD) or attempt == _PROFILE_ATTEMPTS:
            break
        log(f"mimic_record: {workload}: the profiled calls took {min(profiled_ms):.2f} to "
            f"{max(profiled_ms):.2f} ms: disturbed, profiling again ({attempt + 1}/{_PROFILE_ATTEMPTS})")
    return best, attempt


def record_step(step_fn, out_dir, warmup=3, iters=10, workload="custom", label=None,
                extra_meta=None, log=print, profiled_iters=PROFILED_CALLS, profiled_sessions=PROFILED_SESSIONS):
    """Records `step_fn` into out_dir (created if missing); returns the meta.json dict.

    step_fn: a callable running one training iteration (forward, loss, backward, optimizer).
    warmup, iters: untimed and timed untraced iterations before the traced one.
    label: the record_function label of the traced iteration (default ProfilerStep#<index>).
    profiled_iters: iterations under each profiler session (the first the ET's; per-op medians over them).
    profiled_sessions: profiler sessions, their iterations pooled in profile.json (1 on a Kineto
        build, whose own export writes one session's trace).
    """
    if warmup < 0 or iters < 1 or profiled_iters < 1 or profiled_sessions < 1:
        raise ValueError(f"need warmup >= 0, iters >= 1, profiled_iters >= 1 and profiled_sessions >= 1, got "
                         f"warmup={warmup} iters={iters} profiled_iters={profiled_iters} "
                         f"profiled_sessions={profiled_sessions}")
    if torch.autograd.kineto_available():
        profiled_sessions = 1  # export_chrome_trace writes one session; merging Kineto's files is not verified
    os.makedirs(out_dir, exist_ok=True)
    out_dir = os.path.abspath(out_dir)

    for _ in range(warmup):
        step_fn()
    gc.collect()
    untraced_cpu_ms = []
    untraced_ms, untraced_faults = [], []
    for _ in range(iters):
        faults_before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        untraced_ms.append(_timed(step_fn, untraced_cpu_ms))
        untraced_faults.append(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - faults_before)
    # Minor page faults per iteration: on a VM each costs microseconds, and how many a step
    # takes depends on the allocator's state, which a replay can only approximate.
    faults_per_iter = sum(untraced_faults) / iters if iters else None
    median_ms = statistics.median(untraced_ms)
    # The share of the wall time the step's thread was on a CPU: below 1 where ranks outnumber
    # cores or wait in collectives. A replay spins its host gaps for this share in CPU time.
    cpu_share = statistics.median(c / w for c, w in zip(untraced_cpu_ms, untraced_ms) if w > 0) if iters else None
    log(f"mimic_record: {workload}: untraced median {median_ms:.2f} ms over {iters} iterations")

    label = label or f"ProfilerStep#{warmup + iters}"
    settle = dist.is_available() and dist.is_initialized()

    # 2b. The host time between operators, as the untraced calls pay it: the probe's timing mode
    # takes each top-level op's start and end and the thread's CPU clock (~0.16 us per nested
    # event, inside the ops), in a few more calls (op_gaps.json; replay --host-gaps measured).
    probe = fault_probe.FaultProbe.from_env(log)
    gap_calls = []
    if probe:
        for k in range(GAP_CALLS):
            with fault_probe.timing(probe, os.path.join(out_dir, f".op_gaps.{k}.tsv.partial")) as records, \
                    WaitTimer() as waits:
                _sync()
                c0 = time.thread_time_ns()
                t0 = time.perf_counter_ns()
                # Inside the step's label, as the ET and profiled calls are: the label's own ops
                # are then timed too, and each op pairs with its own ET node (see below).
                with record_function(label):
                    step_fn()
                _sync()
                t1 = time.perf_counter_ns()
                c1 = time.thread_time_ns()
            gap_calls.append((t0, t1, records, waits.waits, c0, c1))

    # 3. The profiled calls: timing only, no ET observer. The page-fault probe counts each
    # operator's faults in these same calls, so that the faults a replay reproduces are the ones
    # inside the durations it is compared with (fault_probe.py; ~1 us per top-level op).
    # Several calls, each its own ProfilerStep: one profiled iteration is a noisy reference
    # (measured here: a step's per-op times differ from the median of nine others by 7-14%
    # geometric mean, and the first call under a fresh profiler pays for cold instrumentation),
    # so a replay compares with each op's median over the calls (link/iteration_repeats.h).
    # And several profiler sessions: the calls of one session share its state, and the per-op
    # medians of two sessions of one process, seconds apart, are 7-17% apart (mlp, transformer,
    # dlrm), as far as two recordings' are; pooled over three sessions 4-6%, and two
    # recordings' 6-10% instead of 12-14%. The ET is recorded over the first call's label and
    # linked to that call.
    labels = profiled_labels(label, profiled_sessions * profiled_iters)
    sessions, probe_calls, profiled_ms, profiled_spreads, attempts_per_session = [], [], [], [], []
    for session in range(profiled_sessions):
        if session:
            for _ in range(_CALLS_BETWEEN_SESSIONS):
                _timed(step_fn)  # as before the first: untraced calls, not a fresh profiler
        first = session * profiled_iters
        (spread, prof, calls, ms, attempt_kept), attempts = _steady_profiled_session(
            step_fn, labels[first:first + profiled_iters], probe, out_dir, first, settle, workload, log)
        if not session:
            first_session_attempt_kept = attempt_kept
        attempts_per_session.append(attempts)
        sessions.append(prof)
        probe_calls.extend(calls)
        profiled_ms.extend(ms)
        profiled_spreads.append(spread)
    profiled_spread = max(profiled_spreads)
    traced_ms = profiled_ms[0]

    # 4. The ET call: structure only, no profiler.
    et_json = os.path.join(out_dir, ".et.json.partial")
    observer = EtObserver(et_json)
    gc.collect()
    _barrier()
    completed = False
    try:
        observer.start()
        _sync()
        start = time.perf_counter_ns()
        with CollectiveLog() as comms, record_function(label):
            step_fn()
        _sync()
        et_iteration_ms = (time.perf_counter_ns() - start) / 1e6
        if settle:
            time.sleep(_SETTLE_S)  # as above: the last gloo:* label must land before stop()
        observer.stop()
        completed = True
    finally:
        observer.close()
        if not completed and os.path.exists(et_json):
            os.remove(et_json)
    et_doc = observer.finish(os.path.join(out_dir, ET_FILE))

    if torch.autograd.kineto_available():
        # A real Kineto build writes the reference format itself, device events included.
        sessions[0].export_chrome_trace(os.path.join(out_dir, PROFILE_FILE))
        link_report, peak_bytes, profile_source = None, None, "kineto export_chrome_trace"
    else:
        link_report, peak_bytes = write_profile(sessions, et_doc, os.path.join(out_dir, PROFILE_FILE),
                                                workload)
        profile_source = "mimic_record from torch.profiler in-memory events"

    op_faults = None
    probe_cost_us = None
    if probe:
        op_faults = fault_probe.pair_with_et(et_doc, probe_calls)
        # Measured last: its loops would change the heap the traced calls allocate from.
        probe_cost_us = calibrate.probe_cost_per_op_us(probe)
        timing_cost_us = calibrate.probe_timing_cost_per_event_us(probe)
        _write_json(os.path.join(out_dir, fault_probe.OP_FAULTS_FILE), op_faults)
        _write_json(os.path.join(out_dir, fault_probe.OP_LAYOUTS_FILE),
                    fault_probe.pair_layouts_with_et(et_doc, probe_calls[0]))
        _write_json(os.path.join(out_dir, fault_probe.OP_GAPS_FILE), fault_probe.pair_gaps_with_et(et_doc, gap_calls, timing_cost_us))

    overhead_ms = traced_ms - median_ms
    et_op_count = _count_ops(et_doc)
    meta = {
        "meta_schema_version": META_SCHEMA_VERSION,
        "workload": workload,
        "et_file": ET_FILE,
        "profile_file": PROFILE_FILE,
        "et_schema": et_doc.get("schema"),
        "et_observer": observer.class_name,
        "et_nodes": len(et_doc["nodes"]),
        "profile_source": profile_source,
        "iteration_label": label,
        "warmup": warmup,
        "iters": iters,
        "untraced_iteration_ms": [round(x, 4) for x in untraced_ms],
        "untraced_median_ms": round(median_ms, 4),
        "untraced_min_ms": round(min(untraced_ms), 4),
        "untraced_thread_cpu_ms": [round(x, 4) for x in untraced_cpu_ms],
        "untraced_cpu_share": round(min(cpu_share, 1.0), 4) if cpu_share is not None else None,
        "untraced_page_faults_per_iter": round(faults_per_iter, 1) if faults_per_iter is not None else None,
        # Each call's own count: glibc's heap can settle differently from one process to the next
        # (cnn: 2,016 faults in every call of one recording, 480 to 2,016 in another's).
        "untraced_page_faults": untraced_faults,
        # The profiled calls (profile.json's timing; the first is the ET's) and the ET call, each timed.
        "traced_iteration_ms": round(traced_ms, 4),
        "profiled_iterations_ms": [round(x, 4) for x in profiled_ms],
        # Profiler sessions pooled in profile.json, profiled_iters calls each, in order.
        "profiled_sessions": profiled_sessions,
        # Each session's attempts (a disturbed one, its calls far apart, is run again), their
        # sum, and which attempt of the first session (the ET's call is its first) was kept.
        "profiled_attempts_per_session": attempts_per_session,
        "profiled_attempts": sum(attempts_per_session),
        "profiled_attempt_kept": first_session_attempt_kept,
        # Each kept session's slowest call over its fastest, and the largest of those.
        "profiled_spreads": [round(x, 4) for x in profiled_spreads],
        "profiled_spread": round(profiled_spread, 4),
        "et_iteration_ms": round(et_iteration_ms, 4),
        "timing_pass": "profiler only; the ET was recorded in a separate call and paired by op order",
        # Measured per event (calibrate.py): what each profiled duration and gap carries per
        # event nested in or between ops; replay subtracts it.
        "profiler_event_cost_us": round(calibrate.profiler_event_cost_us(), 4),
        # Profiler cost inside the profiled iteration; spread over its operators.
        "instrumentation_overhead_ms": round(overhead_ms, 4),
        "instrumentation_overhead_ratio": round(traced_ms / median_ms, 4) if median_ms > 0 else None,
        "instrumentation_overhead_per_op_us": round(overhead_ms * 1000 / et_op_count, 3) if et_op_count else None,
        "traced_peak_net_allocated_bytes": peak_bytes,
        # Page faults per top-level operator (op_faults.json), paired with the ET's.
        "op_faults_file": fault_probe.OP_FAULTS_FILE if op_faults else None,
        # Sizes, strides and storage offset of each top-level op's tensors (op_layouts.json).
        "op_layouts_file": fault_probe.OP_LAYOUTS_FILE if op_faults else None,
        # Host time before each top-level op in untraced calls (op_gaps.json).
        "op_gaps_file": fault_probe.OP_GAPS_FILE if op_faults else None,
        "op_faults_paired": f"{op_faults['paired_ops']}/{op_faults['et_top_level_ops']}" if op_faults else None,
        "probe_page_faults": op_faults["probe_faults_total"] if op_faults else None,
        # What the probe adds inside each top-level op's profiled duration; replay subtracts it.
        "probe_cost_per_op_us": round(probe_cost_us, 4) if probe_cost_us is not None else None,
        "rf_id_link": link_report,
        "recorded_unix_time": round(time.time(), 3),
    }
    meta.update(machine.process())
    meta["machine"] = machine.describe()
    groups = dist_groups.snapshot()
    meta.update(groups if groups else {"rank": 0, "world_size": 1, "backend": None, "process_groups": []})
    # torch.distributed calls made from Python in the traced iteration, in order (see collectives.py)
    meta["python_collectives"] = comms.calls
    if extra_meta:
        meta.update(extra_meta)
    _write_json(os.path.join(out_dir, META_FILE), meta)
    linked = f", {link_report['linked']}/{link_report['profile_ops']} profiler ops linked to ET rf_ids" if link_report else ""
    log(f"mimic_record: {workload}: traced iteration {traced_ms:.2f} ms "
        f"(overhead {overhead_ms:+.2f} ms), {len(et_doc['nodes'])} ET nodes{linked} -> {out_dir}")
    return meta

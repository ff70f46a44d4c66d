"""Checks a directory written by `mimic record` (used by tests/cli/record_*.sh).

    check_recording.py DIR --workload NAME [--nproc N]

For each recording (DIR, or DIR/rank<r> with --nproc): et.json.gz is gzip JSON with schema
1.0.1 and a node named after the iteration label; profile.json is a Chrome trace whose op
events carry a "Record function id" naming an ET node of the same name, covering every ET op;
meta.json has the keys replay and analysis read, and a `machine` that names the BLAS loaded. Prints one line per recording; exit 1 on the
first failure with the reason.
"""

import argparse
import gzip
import json
import os
import statistics
import sys

META_KEYS = ("meta_schema_version", "workload", "machine", "rank", "world_size", "process_groups", "warmup", "iters",
             "untraced_iteration_ms", "untraced_median_ms", "untraced_thread_cpu_ms", "untraced_cpu_share",
             "untraced_page_faults_per_iter", "untraced_page_faults",
             "traced_iteration_ms", "profiled_iterations_ms", "profiled_sessions", "profiled_attempts_per_session", "profiled_attempts",
             "profiled_attempt_kept", "profiled_spreads", "profiled_spread",
             "instrumentation_overhead_ms", "iteration_label", "et_schema", "rf_id_link")


MACHINE_KEYS = ("hostname", "cpu_model", "logical_cores", "physical_cores", "usable_cores", "blas", "torch_version",
                "intra_op_threads", "inter_op_threads", "env")
MACHINE_ENV = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_CORETYPE",
              "OMP_WAIT_POLICY", "GOMP_SPINCOUNT", "KMP_BLOCKTIME")


class CheckError(Exception):
    pass


def _require(cond, message):
    if not cond:
        raise CheckError(message)


def check_machine(meta):
    """meta.json's machine: every field there, the BLAS loaded at run time named, threads counted."""
    m = meta["machine"]
    missing = [k for k in MACHINE_KEYS if k not in m]
    _require(not missing, f"meta.json's machine lacks {missing}")
    blas = m["blas"]
    _require(isinstance(blas, dict) and isinstance(blas.get("library"), str) and blas["library"],
             f"meta.json's machine names no BLAS library: {blas!r}")
    _require(blas.get("path") is None or os.path.isabs(blas["path"]), f"machine.blas.path {blas.get('path')!r}")
    _require(m["cpu_model"] and m["torch_version"], "machine lacks the CPU model or torch's version")
    _require(all(isinstance(m[k], int) and m[k] >= 1 for k in ("logical_cores", "intra_op_threads", "inter_op_threads")),
             "machine's cores or threads are not positive integers")
    _require(sorted(m["env"]) == sorted(MACHINE_ENV) and all(v is None or isinstance(v, str) for v in m["env"].values()),
             f"machine.env {m['env']!r}: expected {MACHINE_ENV}, each a string or null")


def check_op_faults(d, meta, et):
    """op_faults.json: the probe's counts paired with nearly every top-level ET operator."""
    _require(meta.get("op_faults_file") == "op_faults.json", "meta.json names no op_faults.json")
    _require(isinstance(meta.get("probe_cost_per_op_us"), (int, float)) and 0 <= meta["probe_cost_per_op_us"] < 100,
             f"probe_cost_per_op_us {meta.get('probe_cost_per_op_us')!r} not a cost in us")
    doc = json.load(open(os.path.join(d, "op_faults.json")))
    schema_ids = {n["id"] for n in et["nodes"] if n.get("op_schema")}
    pairs = doc["faults"]
    _require(doc["et_top_level_ops"] > 0 and doc["paired_ops"] == len(pairs), "op_faults.json counts disagree")
    _require(doc["paired_ops"] >= 0.9 * doc["et_top_level_ops"],
             f"only {doc['paired_ops']} of {doc['et_top_level_ops']} top-level ops paired with the probe")
    # One process runs the same ops in the probed calls as in the ET's, its label's included
    # (the probe starts before the label's record_function makes its zeros and empty).
    if meta["world_size"] == 1:
        _require(doc["probe_ops"] == doc["et_top_level_ops"] == doc["paired_ops"],
                 f"op_faults.json: {doc['probe_ops']} probed and {doc['paired_ops']} paired of the ET's "
                 f"{doc['et_top_level_ops']} top-level ops")
    _require(all(i in schema_ids and isinstance(f, int) and f >= 0 for i, f in pairs),
             "op_faults.json pairs a non-operator node or a bad count")
    _require(sum(f for _, f in pairs) == doc["paired_faults_total"], "op_faults.json totals do not add up")
    calls = doc["calls"]
    _require(calls == len(meta["profiled_iterations_ms"]) == len(doc["probe_faults_per_call"]) ==
             len(doc["paired_faults_per_call"]), "op_faults.json: not one count per profiled call")
    _require(all(0 <= p <= t for p, t in zip(doc["paired_faults_per_call"], doc["probe_faults_per_call"])),
             "op_faults.json: a call's paired faults exceed its probe's")
    check_op_layouts(d, meta, et, [i for i, _ in pairs])
    check_op_gaps(d, meta, et)
    return doc


def check_op_gaps(d, meta, et):
    """op_gaps.json: untraced host time before nearly every top-level op, from timed calls."""
    _require(meta.get("op_gaps_file") == "op_gaps.json", "meta.json names no op_gaps.json")
    doc = json.load(open(os.path.join(d, "op_gaps.json")))
    schema_ids = {n["id"] for n in et["nodes"] if n.get("op_schema")}
    _require(doc["calls"] >= 1 and len(doc["call_ms"]) == doc["calls"], "op_gaps.json calls disagree")
    _require(doc["paired_ops"] == len(doc["gaps"]) > 0, "op_gaps.json counts disagree")
    _require(all(i in schema_ids and g >= 0 and t >= 0 for i, g, t, *_ in doc["gaps"]) and doc["tail_us"] >= 0,
             "op_gaps.json names a non-operator node or a negative time")
    host_ms = (sum(g for _, g, *_ in doc["gaps"]) + doc["tail_us"]) / 1000
    ops_ms = sum(t for _, _, t, *_ in doc["gaps"]) / 1000
    _require(host_ms + ops_ms <= 1.5 * max(doc["call_ms"]), "op_gaps.json times exceed the calls they were taken in")
    # Each gap's CPU time (the thread's host work in it, never more than the gap) and each op's
    # page faults.
    _require(all(len(r) == 5 and 0 <= r[3] <= r[1] and r[4] >= 0 for r in doc["gaps"])
             and 0 <= doc["tail_cpu_us"] <= doc["tail_us"],
             "op_gaps.json lacks a gap's CPU time or an op's faults, or gives more CPU than wall time")
    # The timing probe's own cost per op event: measured, and small next to any op.
    _require(0 <= doc["probe_cost_per_event_us"] < 5, "op_gaps.json has no plausible probe_cost_per_event_us")


def check_op_layouts(d, meta, et, paired_ids):
    """op_layouts.json: for the same ops, a layout per tensor argument whose sizes are the ET's."""
    _require(meta.get("op_layouts_file") == "op_layouts.json", "meta.json names no op_layouts.json")
    doc = json.load(open(os.path.join(d, "op_layouts.json")))
    _require([i for i, _ in doc["layouts"]] == paired_ids, "op_layouts.json pairs other ops than op_faults.json")
    by_id = {n["id"]: n for n in et["nodes"]}

    def et_shapes(shapes, types):
        out = []
        for s, t in zip(shapes, types):
            if t.startswith("Tensor"):
                out.append(s)
            elif t.startswith("GenericList[") and "Tensor" in t:
                out.extend(x for x in s if isinstance(x, list))
        return out

    matched = 0
    for node_id, layouts in doc["layouts"]:
        n = by_id[node_id]
        recorded = [l[0] for l in layouts if l is not None]
        _require(all(len(l[0]) == len(l[1]) and l[2] >= 0 for l in layouts if l is not None),
                 f"op_layouts.json: node {node_id} has a layout with as many strides as sizes")
        matched += recorded == et_shapes(n.get("input_shapes", []), n.get("input_types", []))
    _require(matched >= 0.9 * len(doc["layouts"]),
             f"only {matched} of {len(doc['layouts'])} ops' recorded layouts have the ET's tensor sizes")


def check_one(d, workload, rank, world_size, expect_op_faults=False):
    with open(os.path.join(d, "et.json.gz"), "rb") as f:
        _require(f.read(2) == b"\x1f\x8b", "et.json.gz is not gzip")
    et = json.load(gzip.open(os.path.join(d, "et.json.gz")))
    meta = json.load(open(os.path.join(d, "meta.json")))
    profile = json.load(open(os.path.join(d, "profile.json")))

    missing = [k for k in META_KEYS if k not in meta]
    _require(not missing, f"meta.json lacks {missing}")
    check_machine(meta)
    _require(meta["workload"] == workload, f"meta workload {meta['workload']!r} != {workload!r}")
    _require(meta["rank"] == rank and meta["world_size"] == world_size,
             f"meta rank/world_size {meta['rank']}/{meta['world_size']} != {rank}/{world_size}")
    times = meta["untraced_iteration_ms"]
    _require(len(times) == meta["iters"] and all(t > 0 for t in times), "bad untraced_iteration_ms")
    _require(abs(statistics.median(times) - meta["untraced_median_ms"]) < 1e-3, "median does not match")
    _require(meta["traced_iteration_ms"] > 0, "traced_iteration_ms not positive")
    profiled = meta["profiled_iterations_ms"]
    _require(len(profiled) >= 1 and profiled[0] == meta["traced_iteration_ms"] and all(t > 0 for t in profiled),
             f"profiled_iterations_ms {profiled}: expected the profiled calls, the first the traced one")
    sessions = meta["profiled_sessions"]
    attempts = meta["profiled_attempts_per_session"]
    _require(sessions >= 1 and len(attempts) == sessions and all(1 <= a <= 3 for a in attempts)
             and sum(attempts) == meta["profiled_attempts"],
             f"profiled_attempts_per_session {attempts} / profiled_attempts {meta['profiled_attempts']} "
             f"/ profiled_sessions {sessions}")
    _require(1 <= meta["profiled_attempt_kept"] <= attempts[0],
             f"profiled_attempt_kept {meta['profiled_attempt_kept']} of the first session's {attempts[0]} attempts")
    _require(len(profiled) % sessions == 0, f"{len(profiled)} profiled calls in {sessions} sessions")
    per_session = len(profiled) // sessions
    spreads = meta["profiled_spreads"]
    _require(len(spreads) == sessions and abs(meta["profiled_spread"] - max(spreads)) < 1e-3,
             f"profiled_spread {meta['profiled_spread']} is not the largest of profiled_spreads {spreads}")
    for k, spread in enumerate(spreads):
        calls = profiled[k * per_session:(k + 1) * per_session]
        # The times are rounded to 1e-4 ms and the spread is of the unrounded ones: with calls of
        # 0.05 ms and a spread of 100 (uneven_step), rounding alone moves the ratio by 0.1.
        half = 0.5e-4
        low = (max(calls) - half) / (min(calls) + half)
        high = (max(calls) + half) / max(min(calls) - half, 1e-12)
        _require(low - 1e-3 <= spread <= high + 1e-3,
                 f"profiled_spreads[{k}] {spread} is not session {k}'s slowest call over its fastest "
                 f"({low:.4f}..{high:.4f} from profiled_iterations_ms)")
    cpu = meta["untraced_thread_cpu_ms"]
    _require(len(cpu) == len(times) and all(c >= 0 for c in cpu), "bad untraced_thread_cpu_ms")
    _require(meta["untraced_page_faults_per_iter"] >= 0, "negative untraced_page_faults_per_iter")
    faults = meta["untraced_page_faults"]
    _require(len(faults) == len(times) and all(f >= 0 for f in faults)
             and abs(sum(faults) / len(faults) - meta["untraced_page_faults_per_iter"]) <= 0.051,
             "untraced_page_faults is not one count per untraced call with untraced_page_faults_per_iter as its mean")
    _require(0 < meta["untraced_cpu_share"] <= 1, f"untraced_cpu_share {meta['untraced_cpu_share']} not in (0, 1]")

    _require(et.get("schema") == "1.0.1", f"ET schema {et.get('schema')!r}, expected 1.0.1")
    nodes = et["nodes"]
    label = meta["iteration_label"]
    _require(any(n["name"] == label for n in nodes), f"no ET node named {label!r}")
    et_names = {n["rf_id"]: n["name"] for n in nodes if n.get("rf_id", 0) > 0}

    ops = [e for e in profile["traceEvents"] if e.get("ph") == "X"]
    _require(any(e["cat"] == "cpu_op" for e in ops), "profile.json has no cpu_op events")
    _require(any(e["cat"] == "user_annotation" and e["name"] == label for e in ops),
             f"profile.json has no user_annotation {label!r}")
    # One step label per profiled call, the ET's first; the replay takes per-op medians over them.
    head = label.rpartition("#")[0] + "#" if "#" in label else None
    steps = [e["name"] for e in ops if e["cat"] == "user_annotation" and
             (e["name"].startswith(head) if head else e["name"] == label)]
    _require(len(steps) == len(profiled) and steps[0] == label,
             f"profile.json has step labels {steps[:6]}, expected {len(profiled)} from {label!r}")
    # Nanosecond times from the profiler's event tree, not its truncated whole microseconds.
    _require(any(e["dur"] != int(e["dur"]) for e in ops), "profile.json durations are whole microseconds")
    linked = {}
    for e in ops:
        _require("External id" in e["args"], f"event {e['name']} has no External id")
        rf = e["args"].get("Record function id")
        if rf is None:
            continue
        _require(et_names.get(rf) == e["name"],
                 f"profile event {e['name']!r} has Record function id {rf} naming ET node {et_names.get(rf)!r}")
        _require(rf not in linked, f"Record function id {rf} on two profile events")
        linked[rf] = e["name"]
    unlinked = sorted(set(et_names) - set(linked))
    # A gloo:* label ends on Gloo's worker thread, from a callback that may run after the
    # profiler stopped even with the recorder's settle time, on a loaded machine: the one
    # record that may be missing, and replay does not time labels.
    late_gloo = [r for r in unlinked if et_names[r].startswith("gloo:")]
    if late_gloo:
        print(f"note: {len(late_gloo)} gloo:* label(s) ended after the profiler stopped: {late_gloo[:3]}")
    unlinked = [r for r in unlinked if r not in late_gloo]
    _require(not unlinked, f"{len(unlinked)} of {len(et_names)} ET ops have no profile event, "
                           f"e.g. rf_id {unlinked[:3]} {[et_names[r] for r in unlinked[:3]]}")

    if world_size > 1:
        groups = meta["process_groups"]
        _require(groups and groups[0]["pg_name"] == "0" and groups[0]["ranks"] == list(range(world_size)),
                 "default process group missing from meta.json")
        _require(all(g["backend"] == "gloo" for g in groups), "a group without gloo backend")
        names = [n["name"] for n in nodes]
        _require(any(n.startswith("c10d::") or n.startswith("gloo:") for n in names),
                 "no collective in the ET")
    faults = check_op_faults(d, meta, et) if expect_op_faults else None
    if faults:
        print(f"ok {d}: page faults of {faults['paired_ops']}/{faults['et_top_level_ops']} top-level ops "
              f"({faults['paired_faults_total']} in all)")
    print(f"ok {d}: {len(nodes)} ET nodes, {len(linked)} ops linked, "
          f"untraced median {meta['untraced_median_ms']:.2f} ms, traced {meta['traced_iteration_ms']:.2f} ms")
    return meta


def main():
    p = argparse.ArgumentParser()
    p.add_argument("dir")
    p.add_argument("--workload", required=True)
    p.add_argument("--nproc", type=int, default=0)
    p.add_argument("--expect-op-faults", action="store_true",
                   help="require op_faults.json (mimic was built with the fault probe)")
    a = p.parse_args()
    try:
        if a.nproc:
            job = json.load(open(os.path.join(a.dir, "job.json")))
            _require(job["world_size"] == a.nproc, "job.json world_size")
            metas = [check_one(os.path.join(a.dir, f"rank{r}"), a.workload, r, a.nproc, a.expect_op_faults) for r in range(a.nproc)]
            _require(not os.path.exists(os.path.join(a.dir, f"rank{a.nproc}")), "extra rank directory")
            seqs = [[(c["op"], c["pg_name"]) for c in m["python_collectives"]] for m in metas]
            _require(all(s == seqs[0] for s in seqs), "ranks logged different collective sequences")
        else:
            check_one(a.dir, a.workload, 0, 1, a.expect_op_faults)
    except (CheckError, OSError, KeyError, ValueError) as e:
        print(f"FAIL {a.dir}: {type(e).__name__}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

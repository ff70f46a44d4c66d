"""Page faults per top-level operator, counted in the profiled call of the step.

Why: on CPU, whether an operator's outputs land on pages the process already holds or on fresh
ones (each first touch a page fault, ~1.7 us on the VMs measured) changes its time by up to 8x
(a [128, 1000] nll_loss_backward: 215 us on fresh pages, 28 us on reused ones). Which
allocations get fresh pages follows glibc's heap history in the original process, which a replay
does not have. So the recorder counts them per operator, and the replay gives each operator as
many fresh pages (replay/fresh_page_allocator).

The counting is done by libmimic_fault_probe.so (src/record/fault_probe.cpp), a RecordFunction
callback loaded into this process; `mimic record` passes its path in MIMIC_FAULT_PROBE. Without
it (a build without libtorch, or the package used on its own) nothing is counted, and a replay
falls back to its own allocator state.

The probe's operators are paired with the ET's top-level operators by name, in order, on the
thread that ran the most of them (align.py), and written as op_faults.json:
{"faults": [[et_node_id, faults], ...], ...}.

The probe also notes the layout of every tensor a top-level operator takes (a torch 1.13 ET has no
strides; a replay that builds such tensors contiguous runs BLAS on other layouts than the
original's), written as op_layouts.json: {"layouts": [[et_node_id, [[sizes, strides, offset] or
null (undefined tensor), ...]], ...]}, the tensors in argument order, lists flattened.

In its timing mode the probe takes each top-level operator's start and end time in untraced
calls of the step (no profiler, no observer): the host time between operators as the original
pays it, written as op_gaps.json: {"gaps": [[et_node_id, gap_before_us, duration_us], ...],
"tail_us": ..., ...}, medians over the calls.
"""

import contextlib
import ctypes
import os
import statistics

from .align import align_sequences

PROBE_ENV = "MIMIC_FAULT_PROBE"
# The libtorch the probe was linked with. Loading the probe into a Python whose torch is another
# build would load a second libtorch into the process, whose operator registrations clash.
PROBE_TORCH_ENV = "MIMIC_FAULT_PROBE_TORCH"
OP_FAULTS_FILE = "op_faults.json"
OP_LAYOUTS_FILE = "op_layouts.json"
OP_GAPS_FILE = "op_gaps.json"


class FaultProbe:
    def __init__(self, path):
        lib = ctypes.CDLL(path)
        lib.mimic_fault_probe_start.restype = ctypes.c_int
        lib.mimic_fault_probe_start_timing.restype = ctypes.c_int
        lib.mimic_fault_probe_stop.argtypes = [ctypes.c_char_p]
        lib.mimic_fault_probe_stop.restype = ctypes.c_int64
        lib.mimic_fault_probe_nest.argtypes = [ctypes.c_int]
        lib.mimic_fault_probe_nest.restype = None
        self._lib = lib
        self.path = path

    @classmethod
    def from_env(cls, log=print):
        path = os.environ.get(PROBE_ENV)
        if not path:
            return None
        torch_lib = os.environ.get(PROBE_TORCH_ENV)
        if torch_lib and not _library_loaded(torch_lib):
            log(f"mimic_record: note: this Python's torch is not the libtorch mimic was built with "
                f"({torch_lib}); page faults per operator not counted, op_faults.json not written")
            return None
        try:
            return cls(path)
        except OSError as e:
            log(f"mimic_record: warning: fault probe {path} does not load ({e}); op_faults.json not written")
            return None

    def start(self):
        if self._lib.mimic_fault_probe_start() != 0:
            raise RuntimeError("fault probe already running")

    def start_timing(self):
        if self._lib.mimic_fault_probe_start_timing() != 0:
            raise RuntimeError("fault probe already running")

    def nest(self, enter):
        """Makes this thread's next operators nested (True) or top-level again (False)."""
        self._lib.mimic_fault_probe_nest(1 if enter else 0)

    def stop(self, tsv_path):
        """Stops counting; returns [(thread, faults, name, layouts, start_ns, end_ns, cpu_start_ns,
        cpu_end_ns, clock_read_ns)] in call order."""
        if self._lib.mimic_fault_probe_stop(tsv_path.encode()) < 0:
            raise OSError(f"fault probe could not write {tsv_path}")
        try:
            return read_probe_tsv(tsv_path)
        finally:
            os.remove(tsv_path)


@contextlib.contextmanager
def probing(probe, tsv_path):
    """Counts the faults of the operators run inside the block into the yielded list (stays
    empty when `probe` is None)."""
    records = []
    if probe is None:
        yield records
        return
    probe.start()
    try:
        yield records
    finally:
        records.extend(probe.stop(tsv_path))


@contextlib.contextmanager
def timing(probe, tsv_path):
    """Times the top-level operators run inside the block into the yielded list."""
    records = []
    probe.start_timing()
    try:
        yield records
    finally:
        records.extend(probe.stop(tsv_path))


def _library_loaded(path):
    """True when the file at `path` (symlinks resolved) is mapped into this process."""
    real = os.path.realpath(path)
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as f:
            return any(line.rstrip("\n").endswith(" " + real) for line in f)
    except OSError:
        return False


def read_probe_tsv(path):
    records = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            thread, faults, start_ns, end_ns, cpu_start, cpu_end, clock_read, layouts, name = \
                line.rstrip("\n").split("\t", 8)
            records.append((int(thread), int(faults), name, layouts, int(start_ns), int(end_ns), int(cpu_start),
                            int(cpu_end), int(clock_read)))
    return records


def parse_layouts(text):
    """The probe's "2,3|3,1|0;-" as [[[2, 3], [3, 1], 0], None]."""
    def ints(s):
        return [int(x) for x in s.split(",")] if s else []
    out = []
    for item in text.split(";") if text else []:
        if item == "-":
            out.append(None)
            continue
        sizes, strides, offset = item.split("|")
        out.append([ints(sizes), ints(strides), int(offset)])
    return out


def _main_sequence(items, key):
    """The items of the key (thread) with the most of them, in their order."""
    counts = {}
    for it in items:
        counts[key(it)] = counts.get(key(it), 0) + 1
    if not counts:
        return []
    main = max(counts, key=counts.get)
    return [it for it in items if key(it) == main]


def et_top_level_ops(et_doc):
    """ET operators (nodes with an op_schema) with no operator above them, in start order."""
    nodes = et_doc.get("nodes", [])
    by_id = {n["id"]: n for n in nodes}

    def has_operator_ancestor(n):
        seen = 0
        parent = by_id.get(n.get("parent"))
        while parent is not None and seen < len(nodes):
            if parent.get("op_schema"):
                return True
            parent = by_id.get(parent.get("parent")) if parent.get("parent") != parent["id"] else None
            seen += 1
        return False

    ops = [n for n in nodes if n.get("op_schema") and not has_operator_ancestor(n)]
    ops.sort(key=lambda n: (n.get("rf_id") or 0, n["id"]))
    return ops


def _paired(et_doc, records):
    et_ops = _main_sequence(et_top_level_ops(et_doc), key=lambda n: n.get("tid"))
    probe = _main_sequence(records, key=lambda r: r[0])
    return et_ops, probe, align_sequences([n["name"] for n in et_ops], [r[2] for r in probe])


def pair_layouts_with_et(et_doc, records):
    """{"layouts": [[et_node_id, [layout or None, ...]]...], counts...}, for op_layouts.json."""
    et_ops, probe, pairs = _paired(et_doc, records)
    return {
        "source": "libmimic_fault_probe: sizes, strides and storage offset of each tensor argument of "
                  "each top-level operator, in the profiled call (profile.json)",
        "paired_ops": len(pairs),
        "layouts": [[et_ops[i]["id"], parse_layouts(probe[j][3])] for i, j in pairs],
    }


def _overlap_ns(start, end, intervals):
    return sum(max(0, min(end, e) - max(start, s)) for s, e in intervals)


def pair_gaps_with_et(et_doc, calls, cost_per_event_us=None):
    """op_gaps.json from timed calls [(call_start_ns, call_end_ns, records, waits[, call_cpu_start_ns,
    call_cpu_end_ns])]: per paired ET op, the host time before it (from the previous top-level op's
    end, or the call's start, less the time blocked on collectives in between: `waits`, see
    collectives.WaitTimer), its duration, and, when the calls give the thread's CPU clock, the CPU
    time of that host time and the op's page faults (since the previous op ended, as the probe
    counts them); medians over the calls; and the tail after the last op. The probe's
    reads of the CPU clock (`clock_read_ns`, half in the gap before an op, half in the one after)
    come off the gaps. `cost_per_event_us`: what the timing mode adds per operator event
    (calibrate.py), which each duration carries once per nested op."""
    per_node = {}
    tails, tails_cpu, call_ms, waited = [], [], [], []
    with_cpu = all(len(c) == 6 for c in calls)
    for call in calls:
        t0, t1, records, waits = call[:4]
        c0, c1 = call[4:6] if with_cpu else (0, 0)
        et_ops, probe, pairs = _paired(et_doc, records)
        call_ms.append((t1 - t0) / 1e6)
        waited.append(_overlap_ns(t0, t1, waits) / 1e6)
        if probe:
            last = probe[-1]
            tails.append(max(0, t1 - last[5] - last[8] / 2 - _overlap_ns(last[5], t1, waits)) / 1e3)
            tails_cpu.append(min(tails[-1], max(0, c1 - last[7] - last[8] / 4) / 1e3))
        for i, j in pairs:
            op = probe[j]
            prev_end, prev_read = (probe[j - 1][5], probe[j - 1][8]) if j > 0 else (t0, 0)
            prev_cpu = probe[j - 1][7] if j > 0 else c0
            reads = (prev_read + op[8]) / 2
            gap = max(0, op[4] - prev_end - reads - _overlap_ns(prev_end, op[4], waits)) / 1e3
            gap_cpu = min(gap, max(0, op[6] - prev_cpu - reads / 2) / 1e3)
            per_node.setdefault(et_ops[i]["id"], []).append((gap, (op[5] - op[4]) / 1e3, gap_cpu, op[1]))
    order = [n["id"] for n in _main_sequence(et_top_level_ops(et_doc), key=lambda n: n.get("tid"))]

    def row(i):
        samples = per_node[i]
        r = [i, round(statistics.median(s[0] for s in samples), 3), round(statistics.median(s[1] for s in samples), 3)]
        if with_cpu:
            r.append(round(statistics.median(s[2] for s in samples), 3))
            r.append(int(statistics.median_low(s[3] for s in samples)))
        return r
    gaps = [row(i) for i in order if i in per_node]
    doc = {
        "source": "libmimic_fault_probe timing mode: start and end of each top-level operator in untraced calls",
        "calls": len(calls),
        "call_ms": [round(x, 3) for x in call_ms],
        "collective_wait_ms": [round(x, 3) for x in waited],
        "paired_ops": len(gaps),
        "tail_us": round(statistics.median(tails), 3) if tails else 0.0,
        "probe_cost_per_event_us": round(cost_per_event_us, 4) if cost_per_event_us is not None else None,
        "gaps": gaps,
    }
    if with_cpu:
        doc["tail_cpu_us"] = round(statistics.median(tails_cpu), 3) if tails_cpu else 0.0
    return doc


def pair_with_et(et_doc, calls):
    """{"faults": [[et_node_id, faults]...], counts...}: the probe's records of each profiled call
    (a list per call) paired with ET ops; an op's faults are the median over the calls that
    paired it (median_low: a count), as its profiled duration is (link/iteration_repeats.h)."""
    per_node = {}
    et_ops, probe_ops, totals, paired_totals = [], [], [], []
    for records in calls:
        et_ops, probe, pairs = _paired(et_doc, records)
        probe_ops.append(len(probe))
        totals.append(sum(r[1] for r in records))
        paired_totals.append(sum(probe[j][1] for _, j in pairs))
        for i, j in pairs:
            per_node.setdefault(i, []).append(probe[j][1])
    faults = [[et_ops[i]["id"], int(statistics.median_low(per_node[i]))] for i in sorted(per_node)]
    return {
        "source": "libmimic_fault_probe: minor page faults (RUSAGE_SELF) per top-level operator, "
                  "counted in the profiled calls (profile.json), median over the calls",
        "calls": len(calls),
        "et_top_level_ops": len(et_ops),
        "probe_ops": max(probe_ops, default=0),
        "paired_ops": len(per_node),
        "probe_faults_per_call": totals,
        "probe_faults_total": int(statistics.median_low(totals)) if totals else 0,  # median over the calls
        "paired_faults_per_call": paired_totals,
        "faults": faults,
        "paired_faults_total": sum(f for _, f in faults),  # of the medians listed in "faults"
    }

"""Pairs profiler events with execution-trace (ET) nodes recorded over the same iteration.

Why this is needed (measured on Debian's torch 1.13.1, see tests/python/test_rf_id_relation.py):
- The ET observer writes each op's RecordFunction handle as `rf_id`. Handles come from ONE
  process-wide counter that only advances while some observer asks for ids.
- The profiler's in-memory events carry a `correlation_id()` from a different allocator: each
  thread takes blocks of 512 ids, and every profiler session starts on a fresh block
  (session 0 on the main thread: 1.., session 1: 513.., session 2: 1025..; a second thread in
  session 0 starts at 513, as the public GPU trace linear_kineto.json.gz also shows).
- So rf_id == correlation_id only for the first profiler session in a process, on its first
  thread; elsewhere the two differ by an offset that is constant per (session, thread) block.

Rather than guess the offset, we pair ops per thread: both ids grow in start order on a
thread, so ET nodes sorted by rf_id and profiler events sorted by correlation id form two
sequences of op names that should agree. We walk both, pair equal names, and resynchronise on
the nearest point where several names agree again if one side has extra ops (e.g. the
profiler sees ops before the ET observer starts). A pair is only made between equal names, so
an rf_id written into the profile is always one the name check supports.

Pure Python, no torch: the tests run it on synthetic sequences.
"""

from collections import Counter, defaultdict

# How far ahead to look for a resynchronisation point, and how many names must agree there.
_LOOKAHEAD = 64
_AGREE = 4


def _agree(a, b, i, j, want):
    """True if a[i:] and b[j:] start with the same `want` names (or agree to the end of either)."""
    k = 0
    while k < want and i + k < len(a) and j + k < len(b):
        if a[i + k] != b[j + k]:
            return False
        k += 1
    return k > 0


def _resync(a, b, i, j):
    """Smallest (di, dj) skip after which the sequences agree again, or None."""
    for total in range(1, 2 * _LOOKAHEAD + 1):
        for di in range(0, min(total, _LOOKAHEAD) + 1):
            dj = total - di
            if dj > _LOOKAHEAD:
                continue
            if i + di < len(a) and j + dj < len(b) and _agree(a, b, i + di, j + dj, _AGREE):
                return di, dj
    return None


def align_sequences(a_names, b_names):
    """Indices (i, j) pairing a_names[i] with b_names[j]; names equal, both indices increasing."""
    pairs = []
    i = j = 0
    while i < len(a_names) and j < len(b_names):
        if a_names[i] == b_names[j]:
            pairs.append((i, j))
            i += 1
            j += 1
            continue
        skip = _resync(a_names, b_names, i, j)
        if skip is None:
            break
        i += skip[0]
        j += skip[1]
    return pairs


def _shape_key(shapes):
    return repr(shapes) if shapes is not None else ""


def link_rf_ids(et_ops, profile_ops):
    """Maps (tid, correlation_id) of profiler ops to ET rf_ids.

    et_ops: iterable of (tid, rf_id, name, input_shapes) for ET nodes with rf_id > 0.
    profile_ops: iterable of (tid, correlation_id, name, input_shapes, start_us).
    Returns (mapping, report): mapping {(tid, correlation_id): rf_id}; report a JSON-ready dict
    with counts per thread and the offsets (correlation_id - rf_id) seen, most common first.

    Pass 1 pairs ops per thread (see the module comment). Pass 2 handles ops the ET and the
    profiler put on different threads: with Gloo, the `gloo:all_reduce` label is written on the
    calling thread in the ET but on Gloo's worker thread by the profiler. The leftovers of both
    are paired in global order (rf_id vs start time) and only where name AND input shapes agree.
    """
    et_by_tid = defaultdict(list)
    for tid, rf_id, name, shapes in et_ops:
        et_by_tid[tid].append((rf_id, name, _shape_key(shapes)))
    prof_by_tid = defaultdict(list)
    for tid, corr, name, shapes, start_us in profile_ops:
        prof_by_tid[tid].append((corr, name, _shape_key(shapes), start_us))

    mapping = {}
    threads = {}
    et_left, prof_left = [], []
    for tid in sorted(set(et_by_tid) | set(prof_by_tid)):
        et = sorted(et_by_tid.get(tid, []))
        prof = sorted(prof_by_tid.get(tid, []))
        pairs = align_sequences([e[1] for e in et], [p[1] for p in prof])
        offsets = Counter()
        for i, j in pairs:
            rf_id, corr = et[i][0], prof[j][0]
            mapping[(tid, corr)] = rf_id
            offsets[corr - rf_id] += 1
        used_et = {i for i, _ in pairs}
        used_prof = {j for _, j in pairs}
        et_left += [(e[0], e[1], e[2]) for i, e in enumerate(et) if i not in used_et]
        prof_left += [(p[3], tid, p[0], p[1], p[2]) for j, p in enumerate(prof) if j not in used_prof]
        threads[str(tid)] = {
            "et_ops": len(et),
            "profile_ops": len(prof),
            "linked_same_thread": len(pairs),
            # correlation_id - rf_id: one value per block of 512 correlation ids
            "offsets": [[off, count] for off, count in offsets.most_common()],
        }

    et_left.sort()
    prof_left.sort()
    cross = align_sequences([(n, shp) for _, n, shp in et_left], [(n, shp) for _, _, _, n, shp in prof_left])
    for i, j in cross:
        _, tid, corr, _, _ = prof_left[j]
        mapping[(tid, corr)] = et_left[i][0]

    report = {
        "method": "per-thread order alignment of ET rf_id and profiler correlation id, names "
                  "checked; then cross-thread leftovers by name and input shapes",
        "et_ops": sum(t["et_ops"] for t in threads.values()),
        "profile_ops": sum(t["profile_ops"] for t in threads.values()),
        "linked": len(mapping),
        "linked_across_threads": len(cross),
        "unlinked_et_ops": len(et_left) - len(cross),
        "unlinked_profile_ops": len(prof_left) - len(cross),
        "threads": threads,
    }
    return mapping, report

#!/usr/bin/env python3
"""End-to-end replay accuracy with the original and the replay timed in the same seconds.

This machine's speed moves between two levels for seconds at a time with nothing else running (a
replayed ddp_mlp rank alone: 31-32 ms per iteration for stretches, 49-54 ms for others; the
original the same), so a replay timed minutes after its recording compares the machine's phases
as much as the programs: 2-rank ddp_mlp errors of -5% and +48% in runs minutes apart. Here both
run at once, each waiting on a FIFO between blocks (src/support/paced_runs.h,
python/mimic_record/paced.py), and this driver alternates them: each round one block of the
original's untraced iterations and one of the replay's, in ABBA order, each block after one
untimed iteration that re-warms the caches the other used.

For each configuration (WORKLOAD or WORKLOAD:NPROC): record it afresh (`mimic record --pace`:
profile, meta.json, op_gaps.json, op_faults.json, then the recording process stays to time the
original's untraced iterations), start the replay of that recording (`mimic replay --pace`), run
ROUNDS rounds of BLOCK timed iterations each, then print per rank the error: the median over
rounds of each round's replay/original ratio of block medians (paired, so a round in the
machine's slow phase compares slow with slow). Beside it: each side's median over all its
iterations and their ratio (unpaired: the medians of two two-level samples can fall on different
levels, dlrm -24% unpaired against -2% paired), the recording's untraced median (meta.json,
timed earlier), and each side's page faults per iteration (the replay reproduces the ones the
recording counted; the same process can take more or fewer later).

  bench/replay_paired.py MIMIC [ROUNDS=20] [BLOCK=5] [OUT_DIR=/tmp/mimic-paired]
Environment: CONFIGS (default "mlp transformer dlrm cnn ddp_mlp:2 dlrm_dist:2 ddp_mlp:4
dlrm_dist:4"), THREADS (intra-op threads of the recording, OpenBLAS and OpenMP on both sides;
default: the caller's environment and torch's default), HOST_GAPS (default measured),
PAGE_FAULTS (default recorded); PER_OP=1 adds, for
single-process configurations, one op-timing call per side per round ("ops": the original's
top-level ops timed by the probe as op_gaps.json's are, the replay's per-op pass) and prints per
op name the median over rounds of the replay/original ratio, their geometric mean and the
time-weighted ratio. The summary is
written to OUT_DIR/summary.json; each configuration's recording, logs, the replay's report
(its iteration_ms are the paced ones) and with PER_OP=1 each round's op times per ET node
(op_rounds.json) stay in OUT_DIR/<config>/.
"""
import gzip
import json
import math
import os
import re
import select
import shutil
import statistics
import subprocess
import sys
import time

from benchlib.models import source_args
from benchlib.stats import error_pct, geomean_pct

HERE = os.path.dirname(os.path.abspath(__file__))
PER_OP = os.environ.get("PER_OP") == "1"
THREADS = os.environ.get("THREADS", "")  # intra-op threads for the recording (the replay takes meta.json's)


def side_env():
    # OpenBLAS and OpenMP held to THREADS on both sides; Debian's libtorch does not pass its
    # thread count to OpenBLAS, which would otherwise use every core.
    if not THREADS:
        return None
    return dict(os.environ, OPENBLAS_NUM_THREADS=THREADS, OMP_NUM_THREADS=THREADS)
OPEN_TIMEOUT_S = 600  # each side loads, fits and warms up before it opens its FIFOs
BLOCK_TIMEOUT_S = 300


class SideFailed(RuntimeError):
    pass


class Side:
    """One program (the original or the replay), its ranks' FIFOs and its process."""

    def __init__(self, name, argv, prefix, ranks, log_path):
        self.name, self.prefix, self.ranks = name, prefix, ranks
        for r in range(ranks):
            for kind in ("go", "done"):
                path = f"{prefix}.{kind}.rank{r}"
                if os.path.exists(path):
                    os.unlink(path)
                os.mkfifo(path)
        self.log = open(log_path, "w", encoding="utf-8")
        self.proc = subprocess.Popen(argv, stdout=self.log, stderr=subprocess.STDOUT, env=side_env())
        self.go, self.done = [], []
        self.times = [[] for _ in range(ranks)]

    def _check_alive(self):
        if self.proc.poll() is not None:
            raise SideFailed(f"{self.name} exited with code {self.proc.returncode} (see {self.log.name})")

    def open(self):
        """Opens each rank's FIFOs in the order the rank does (go, then done)."""
        deadline = time.monotonic() + OPEN_TIMEOUT_S
        for r in range(self.ranks):
            while True:
                try:  # nonblocking: ENXIO until the rank has opened its end
                    fd = os.open(f"{self.prefix}.go.rank{r}", os.O_WRONLY | os.O_NONBLOCK)
                    break
                except OSError:
                    self._check_alive()
                    if time.monotonic() > deadline:
                        raise SideFailed(f"{self.name} rank {r} did not open its FIFO in {OPEN_TIMEOUT_S} s")
                    time.sleep(0.05)
            os.set_blocking(fd, True)
            self.go.append(os.fdopen(fd, "w", encoding="utf-8"))
            self.done.append(open(f"{self.prefix}.done.rank{r}", encoding="utf-8"))

    def run_block(self, untimed, timed):
        for r, line in enumerate(self._command(f"run {untimed} {timed}")):
            self.times[r].append([float(x) for x in line.split()])

    def time_ops(self):
        """One call with each top-level op timed: {ET node id: us}, rank 0's."""
        line = self._command("ops")[0]
        return {int(node): float(us) for node, us in (item.split(":") for item in line.split())}

    def _command(self, command):
        for go in self.go:
            go.write(command + "\n")
            go.flush()
        lines = []
        for r, done in enumerate(self.done):
            deadline = time.monotonic() + BLOCK_TIMEOUT_S
            while not select.select([done], [], [], 1.0)[0]:
                self._check_alive()
                if time.monotonic() > deadline:
                    raise SideFailed(f"{self.name} rank {r}: no reply in {BLOCK_TIMEOUT_S} s")
            line = done.readline()
            if not line:
                raise SideFailed(f"{self.name} rank {r} closed its FIFO (see {self.log.name})")
            lines.append(line)
        return lines

    def stop(self):
        for go in self.go:
            try:
                go.write("stop\n")
                go.close()
            except OSError:
                pass
        for done in self.done:
            done.close()
        try:
            self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self.log.close()
        if self.proc.returncode != 0:
            raise SideFailed(f"{self.name} exited with code {self.proc.returncode} (see {self.log.name})")


def measure(mimic, config, rounds, block, out):
    workload, _, nproc = config.partition(":")
    nproc = int(nproc or 0)
    ranks = max(nproc, 1)
    d = os.path.join(out, config.replace(":", "x"))
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    rec = os.path.join(d, "recording")
    nproc_args = ["--nproc", str(nproc)] if nproc else []
    thread_args = ["--threads", THREADS] if THREADS else []
    # The recording process itself serves the original's blocks once its files are written
    # (its FIFOs open then): another process would start from another heap history, and the
    # replay reproduces this one's page faults (cnn: 427 per iteration in a second process,
    # 2,167 in the recording).
    original = Side("original", [mimic, "record", *source_args(workload), "--out", rec, "--pace",
                                 os.path.join(d, "original"), "--timeout", "86400"] + nproc_args + thread_args,
                    os.path.join(d, "original"), ranks, os.path.join(d, "original.log"))
    replay = None
    op_rounds = []  # per round: (original's, replay's) {node: us}
    try:
        original.open()
        replay = Side("replay", [mimic, "replay", rec, "--host-gaps", os.environ.get("HOST_GAPS", "measured"),
                                 "--page-faults", os.environ.get("PAGE_FAULTS", "recorded"), "--warmup", "3",
                                 "--pace", os.path.join(d, "replay"), "--timeout-s", "3600",
                                 "--json", os.path.join(d, "replay.json")] + nproc_args,
                      os.path.join(d, "replay"), ranks, os.path.join(d, "replay.log"))
        replay.open()
        for i in range(rounds):
            order = (original, replay) if i % 2 == 0 else (replay, original)  # ABBA
            for side in order:
                side.run_block(1, block)
            if PER_OP and not nproc:
                ops = {side.name: side.time_ops() for side in order}
                op_rounds.append((ops["original"], ops["replay"]))
            print(f"\r{config}: round {i + 1}/{rounds}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
    finally:
        for side in (original, replay) if replay else (original,):
            try:
                side.stop()
            except SideFailed as e:
                print(f"{config}: {e}", file=sys.stderr)
    result = {"config": config, "ranks": []}
    # Each side's page faults per timed iteration: the original logs its own (paced.py); the
    # replay's report has them, one per rank under "ranks" when there are many.
    original_faults = {}
    with open(os.path.join(d, "original.log"), encoding="utf-8") as f:
        for line in f:
            m = re.search(r"rank (\d+): paced: \d+ timed iterations, ([\d.]+) page faults per iteration", line)
            if m:
                original_faults[int(m.group(1))] = float(m.group(2))
    with open(os.path.join(d, "replay.json"), encoding="utf-8") as f:
        report = json.load(f)

    def replay_report(rank):
        return report["ranks"][rank] if "ranks" in report else report
    for r in range(ranks):
        meta_path = os.path.join(rec, f"rank{r}" if nproc else "", "meta.json")
        with open(meta_path, encoding="utf-8") as f:
            meta = json.load(f)
        orig = [t for b in original.times[r] for t in b]
        rep = [t for b in replay.times[r] for t in b]
        ratios = [statistics.median(b) / statistics.median(a) for a, b in zip(original.times[r], replay.times[r])]
        result["ranks"].append({
            "rank": r, "original_median_ms": statistics.median(orig), "replay_median_ms": statistics.median(rep),
            "paired_error_pct": (statistics.median(ratios) - 1) * 100,
            "unpaired_error_pct": error_pct(statistics.median(rep), statistics.median(orig)),
            "recording_untraced_median_ms": meta.get("untraced_median_ms"),
            "page_faults_per_iter": {"recording": meta.get("untraced_page_faults_per_iter"),
                                     "original": original_faults.get(r),
                                     "replay": replay_report(r).get("page_faults_per_iter")},
            "original_block_medians_ms": [statistics.median(b) for b in original.times[r]],
            "replay_block_medians_ms": [statistics.median(b) for b in replay.times[r]]})
    if op_rounds:
        result["per_op"] = per_op_errors(rec, op_rounds)
        with open(os.path.join(d, "op_rounds.json"), "w", encoding="utf-8") as f:  # the raw pairs, per node
            json.dump([{"original": o, "replay": r} for o, r in op_rounds], f)
    return result


def per_op_errors(rec, op_rounds):
    """Per op name, each round's replay/original ratio of the name's summed op times, median over
    the rounds; the geometric mean of their distances from 1 over the names, and the time-weighted
    ratio (all ops), median over rounds. The original's times: the probe's, as op_gaps.json's."""
    with gzip.open(os.path.join(rec, "et.json.gz"), "rt", encoding="utf-8") as f:
        names = {n["id"]: n["name"] for n in json.load(f)["nodes"]}
    by_name, weighted = {}, []
    for orig, rep in op_rounds:
        sums = {}
        for node in orig.keys() & rep.keys():
            pair = sums.setdefault(names.get(node, "?"), [0.0, 0.0])
            pair[0] += orig[node]
            pair[1] += rep[node]
        for name, (o, r) in sums.items():
            if o > 0 and r > 0:
                by_name.setdefault(name, []).append(r / o)
        total_o, total_r = sum(v[0] for v in sums.values()), sum(v[1] for v in sums.values())
        if total_o > 0:
            weighted.append(total_r / total_o)
    medians = {n: statistics.median(v) for n, v in by_name.items()}
    geo = geomean_pct([math.log(m) for m in medians.values()]) if medians else None
    worst = sorted(medians.items(), key=lambda kv: -abs(math.log(kv[1])))[:5]
    return {"geomean_pct": geo, "weighted_pct": (statistics.median(weighted) - 1) * 100 if weighted else None,
            "names": len(medians), "worst": [[n, round((m - 1) * 100, 1)] for n, m in worst]}


def main():
    mimic = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "build", "mimic")
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 20
    block = int(sys.argv[3]) if len(sys.argv) > 3 else 5
    out = sys.argv[4] if len(sys.argv) > 4 else "/tmp/mimic-paired"
    configs = os.environ.get("CONFIGS", "mlp transformer dlrm cnn ddp_mlp:2 dlrm_dist:2 ddp_mlp:4 dlrm_dist:4").split()
    os.makedirs(out, exist_ok=True)
    results = []
    for config in configs:
        try:
            res = measure(mimic, config, rounds, block, out)
        except (SideFailed, subprocess.CalledProcessError) as e:
            print(f"{config}: failed: {e}", file=sys.stderr)
            results.append({"config": config, "failed": str(e)})
            continue
        results.append(res)
        for r in res["ranks"]:
            faults = r["page_faults_per_iter"]
            print(f"{config:12} rank {r['rank']}: error {r['paired_error_pct']:+6.1f}% (paired)  original "
                  f"{r['original_median_ms']:8.2f} ms  replay {r['replay_median_ms']:8.2f} ms  "
                  f"(unpaired {r['unpaired_error_pct']:+6.1f}%)  recording's untraced median "
                  f"{r['recording_untraced_median_ms']:.2f} ms  page faults per iteration: recording "
                  f"{faults['recording']}, original {faults['original']}, replay {faults['replay']}", flush=True)
    for res in results:
        if res.get("per_op"):
            p = res["per_op"]
            print(f"{res['config']:12} per op (paired, against the probe-timed untraced ops): geometric mean "
                  f"{p['geomean_pct']:.1f}% over {p['names']} names, time-weighted {p['weighted_pct']:+.1f}%; worst "
                  + ", ".join(f"{n} {e:+.0f}%" for n, e in p["worst"]), flush=True)
    single = [r["paired_error_pct"] for res in results if "ranks" in res and ":" not in res["config"]
              for r in res["ranks"]]
    if single:  # as replay_accuracy.py: the geometric mean of the ratios' distances from 1
        geo = geomean_pct([math.log1p(e / 100) for e in single])
        print(f"single-process end-to-end |error| geometric mean: {geo:.1f}%")
    multi = [r for res in results if "ranks" in res and ":" in res["config"] for r in res["ranks"]]
    if multi:
        print(f"multi-rank: {sum(abs(r['paired_error_pct']) <= 10 for r in multi)} of {len(multi)} ranks within 10%")
    with open(os.path.join(out, "summary.json"), "w", encoding="utf-8") as f:
        json.dump(results, f, indent=1)
    return 1 if any("failed" in r for r in results) else 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Choosing an embedding-table sharding by prediction: how often is the predicted best the
measured best?

For each scenario (a set of tables of different rows and pooling, on 2 or 4 ranks) this bench
writes at least eight shardings of the tables over the ranks (round robin, contiguous blocks,
greedy balance by rows, by lookups and by both, the largest table alone, everything piled on one
rank, and seeded random ones), each as a generated DLRM that replays on CPU
(`mimic generate dlrm --format et --table-rows ... --table-pooling ... --shard-tables ...`).

  measured   `mimic replay` of the sharding on its ranks over Gloo, ROUNDS rounds taken in turn
             over the shardings (so a slow phase of this VM hits every sharding alike); a
             sharding's time is the median over rounds of its slowest rank's median iteration
  predicted  `mimic predict` with the ops' costs from one `mimic calibrate` of every sharding's
             ranks (each operator signature timed once) and the Gloo network this machine
             measured (`mimic calibrate --collectives`), scheduled on the simulator with the
             ranks sharing this machine's cores, as the replays do

Per scenario it prints every sharding measured and predicted with its rank, then whether the
predicted best is the measured best, how far the predicted best is from the measured best (the
regret, in %) and the rank correlation of the two orders (Spearman). The summary line counts the scenarios where they agree; the reference model
(the data-distribution-aware DLRM model) reached 85%.

With glibc's default malloc the measured order is decided mostly by which shardings fault on
fresh pages for their dense table gradients every iteration (docs/findings.md, 2026-11-26), which
the model does not predict. HELD_ALLOCATOR=1 runs every replay and calibration with glibc's heap
held (MALLOC_MMAP_MAX_=0: no chunk mapped apart; MALLOC_TRIM_THRESHOLD_ of 128 GiB: the heap is
never given back), much as a trainer that preloads jemalloc or tcmalloc (which keep freed memory)
gets: the steady state has no fresh pages and the comparison is of what the model predicts.

  bench/dlrm_sharding.py MIMIC [ROUNDS=3] [OUT=/tmp/mimic-sharding]
Environment: SCENARIOS (default all), ITERS (default 30 timed iterations per replay),
HELD_ALLOCATOR (default 0).
"""
import json
import os
import random
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib.commands import run, run_json, threads_env  # noqa: E402

DIM = 32
BATCH = 128  # per rank
MLP = ["--bottom-mlp", "64-32", "--top-mlp", "128-64-1", "--dense-features", "13"]

# name: (ranks, [(rows, pooling) per table])
SCENARIOS = {
    "2r-mixed": (2, [(200000, 2), (5000, 40), (80000, 10), (20000, 20), (1000, 60), (120000, 4)]),
    "2r-lookups": (2, [(10000, 80), (10000, 5), (30000, 40), (5000, 10), (20000, 60), (2000, 2)]),
    "2r-rows": (2, [(250000, 1), (150000, 2), (60000, 8), (10000, 16), (40000, 4), (5000, 30), (90000, 2)]),
    "4r-mixed": (4, [(200000, 2), (5000, 40), (80000, 10), (20000, 20), (1000, 60), (120000, 4), (60000, 8), (3000, 30)]),
    "4r-skewed": (4, [(300000, 4), (100000, 20), (20000, 40), (10000, 10), (5000, 5), (2000, 2), (50000, 1), (8000, 50)]),
}


def cost_proxy(rows, pooling, ranks):
    # What a table costs its rank, roughly: the dense gradient and the update touch every row;
    # the lookups touch pooling rows per sample of every rank.
    return rows * DIM + 3 * BATCH * ranks * pooling * DIM


def greedy(tables, ranks, weight):
    load = [0.0] * ranks
    out = [0] * len(tables)
    for t in sorted(range(len(tables)), key=lambda t: -weight(tables[t])):
        r = min(range(ranks), key=lambda r: load[r])
        out[t] = r
        load[r] += weight(tables[t])
    return out


def valid(assign, ranks):
    return all(r in assign for r in range(ranks))


def shardings(tables, ranks):
    T = len(tables)
    cands = [
        ("round-robin", [t % ranks for t in range(T)]),
        ("blocks", [t * ranks // T for t in range(T)]),
        ("greedy-rows", greedy(tables, ranks, lambda x: x[0])),
        ("greedy-lookups", greedy(tables, ranks, lambda x: x[1])),
        ("greedy-cost", greedy(tables, ranks, lambda x: cost_proxy(x[0], x[1], ranks))),
    ]
    biggest = max(range(T), key=lambda t: tables[t][0])
    alone = [0] * T
    rest = [t for t in range(T) if t != biggest]
    for i, t in enumerate(rest):
        alone[t] = 1 + i % (ranks - 1)
    cands.append(("largest-alone", alone))
    piled = [0] * T
    for i in range(1, ranks):
        piled[T - i] = i
    cands.append(("piled-on-0", piled))
    rng = random.Random(7)
    k = 0
    while len(cands) < 10 and k < 1000:
        k += 1
        a = [rng.randrange(ranks) for _ in range(T)]
        cands.append((f"random-{k}", a))
    seen, out = set(), []
    for name, a in cands:
        if valid(a, ranks) and tuple(a) not in seen:
            seen.add(tuple(a))
            out.append((name, a))
    return out


def spearman(rows):
    # Rank correlation of the measured and predicted orders (no ties among medians of floats).
    n = len(rows)
    d2 = sum((r["measured_rank"] - r["predicted_rank"]) ** 2 for r in rows)
    return 1 - 6 * d2 / (n * (n * n - 1))


def generate(mimic, out_dir, ranks, tables, assign):
    run([mimic, "generate", "dlrm", "--format", "et", "--ranks", str(ranks), "--dtype", "fp32", "--micro-batch", str(BATCH),
         "--emb-dim", str(DIM), *MLP, "--table-rows", ",".join(str(t[0]) for t in tables),
         "--table-pooling", ",".join(str(t[1]) for t in tables), "--shard-tables", ",".join(map(str, assign)), "-o", out_dir])


def measured_ms(mimic, d, iters, env):
    rep = run_json([mimic, "replay", d, "--iters", str(iters), "--json", "-"], env=env)
    return max(r["median_ms"] for r in rep["ranks"])


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    mimic = sys.argv[1]
    rounds = int(sys.argv[2]) if len(sys.argv) > 2 else 3
    out = sys.argv[3] if len(sys.argv) > 3 else "/tmp/mimic-sharding"
    iters = int(os.environ.get("ITERS", "30"))
    names = os.environ.get("SCENARIOS", " ".join(SCENARIOS)).split()
    held = os.environ.get("HELD_ALLOCATOR", "0") == "1"
    malloc = {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(128 << 30)} if held else {}
    env = threads_env(1, MIMIC_NO_PROGRESS="1", **malloc)
    os.makedirs(out, exist_ok=True)

    plan = []  # (scenario, sharding name, assignment, directory)
    for s in names:
        ranks, tables = SCENARIOS[s]
        for name, a in shardings(tables, ranks):
            d = f"{out}/{s}/{name}"
            generate(mimic, d, ranks, tables, a)
            plan.append((s, name, a, d))
    print(f"{len(plan)} shardings in {len(names)} scenarios", file=sys.stderr)

    nets = {}
    for ranks in sorted({SCENARIOS[s][0] for s in names}):
        net = f"{out}/net"
        if not os.path.exists(f"{net}/network_{ranks}ranks.yml"):
            print(f"calibrating Gloo collectives on {ranks} ranks", file=sys.stderr)
            run([mimic, "calibrate", "--collectives", "--quick", "--ranks", str(ranks), "--out", net], env=env)
        nets[ranks] = ["--network", f"{net}/network_{ranks}ranks.yml", "--system", f"{net}/system_{ranks}ranks.json"]

    times = {d: [] for _, _, _, d in plan}
    for k in range(rounds):
        for i, (s, name, _, d) in enumerate(plan):
            print(f"round {k + 1} of {rounds}: replay {i + 1} of {len(plan)} ({s} {name})", file=sys.stderr)
            times[d].append(measured_ms(mimic, d, iters, env))

    costs = f"{out}/costs.db"
    if os.path.exists(costs):
        os.remove(costs)
    print("calibrating the ops of every sharding", file=sys.stderr)
    rank_dirs = [f"{d}/rank{r}" for s, _, _, d in plan for r in range(SCENARIOS[s][0])]
    run([mimic, "calibrate", *rank_dirs, "--out", costs, "--no-sweeps"], env=env)

    summary = {"scenarios": [], "rounds": rounds, "iters": iters, "held_allocator": held}
    agree = 0
    for s in names:
        ranks, tables = SCENARIOS[s]
        rows = []
        for sc, name, a, d in plan:
            if sc != s:
                continue
            # The replays run every rank on this machine's cores; a generated trace names no host.
            shared = ["--ranks-per-host", str(ranks), "--cores-per-host", str(os.cpu_count())]
            pred = run_json([mimic, "predict", d, "--costs", costs, *nets[ranks], *shared, "--json", "-"],
                            env=env)["iteration_ms"]
            rows.append({"sharding": name, "assignment": a, "measured_ms": statistics.median(times[d]),
                         "measured_rounds_ms": times[d], "predicted_ms": pred})
        by_meas = sorted(rows, key=lambda r: r["measured_ms"])
        by_pred = sorted(rows, key=lambda r: r["predicted_ms"])
        for i, r in enumerate(by_meas):
            r["measured_rank"] = i + 1
        for i, r in enumerate(by_pred):
            r["predicted_rank"] = i + 1
        best, chosen = by_meas[0], by_pred[0]
        regret = 100 * (chosen["measured_ms"] - best["measured_ms"]) / best["measured_ms"]
        rho = spearman(rows)
        same = chosen is best
        agree += same
        print(f"\n{s}: {ranks} ranks, tables (rows, pooling) {tables}")
        print(f"  {'sharding':<16} {'assignment':<18} {'measured_ms':>11} {'rank':>4} {'predicted_ms':>12} {'rank':>4}")
        for r in by_meas:
            print(f"  {r['sharding']:<16} {','.join(map(str, r['assignment'])):<18} {r['measured_ms']:>11.2f} "
                  f"{r['measured_rank']:>4} {r['predicted_ms']:>12.2f} {r['predicted_rank']:>4}")
        print(f"  predicted best {chosen['sharding']}, measured best {best['sharding']}: "
              f"{'the same' if same else 'different'}; regret {regret:.1f}%; rank correlation {rho:.2f}")
        summary["scenarios"].append({"scenario": s, "ranks": ranks, "tables": tables, "shardings": rows,
                                     "predicted_best": chosen["sharding"], "measured_best": best["sharding"],
                                     "same": same, "regret_pct": regret, "rank_correlation": rho})
    regrets = [x["regret_pct"] for x in summary["scenarios"]]
    rhos = [x["rank_correlation"] for x in summary["scenarios"]]
    summary.update(agree=agree, scenarios_total=len(names), mean_regret_pct=statistics.mean(regrets), max_regret_pct=max(regrets),
                   mean_rank_correlation=statistics.mean(rhos))
    print(f"\n{'glibc heap held' if held else 'glibc defaults'}: predicted best = measured best in {agree} of {len(names)} scenarios; regret mean "
          f"{statistics.mean(regrets):.1f}%, max {max(regrets):.1f}%; rank correlation mean {statistics.mean(rhos):.2f}")
    with open(f"{out}/summary.json", "w") as f:
        json.dump(summary, f, indent=1)


if __name__ == "__main__":
    main()

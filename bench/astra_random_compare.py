#!/usr/bin/env python3
"""mimic simulate against ASTRA-sim on random cases: a training iteration written by `mimic generate`
(GPT, Llama, MoE or DLRM; random tensor, pipeline, data and expert parallelism, with its
communicator groups) on a random network (1-3 dimensions of Ring, Switch, FullyConnected) and a
random system file (implementations per collective and dimension, scheduling, chunks, splits),
run by ASTRA-sim's analytical binaries (congestion-aware for half the 1-D cases) and by mimic.
Prints one line per seed: equal, DIFF (with the ranks that differ), or why a side did not finish.

  bench/astra_random_compare.py MIMIC ASTRA_BIN_DIR FIRST_SEED COUNT [OUT_DIR=/tmp/mimic-astra-random]
MAX_RANKS (environment, default 32) bounds the network's NPUs.
ASTRA_BIN_DIR holds AstraSim_Unaware and AstraSim_Aware (../shared/astra/build-astra-sim.sh builds them).
"""
import json, math, os, random, re, subprocess, sys
MIMIC, ASTRA = sys.argv[1], sys.argv[2]
seed0, count = int(sys.argv[3]), int(sys.argv[4])
out_root = sys.argv[5] if len(sys.argv) > 5 else "/tmp/mimic-astra-random"
os.makedirs(out_root, exist_ok=True)
MAX_RANKS = int(os.environ.get("MAX_RANKS", "32"))  # networks up to this many NPUs
MEM = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "astra_extra", "configs", "memory",
                   "no_memory_expansion.json")

def pow2(n): return n & (n - 1) == 0

def one(seed):
    rnd = random.Random(seed)
    d = rnd.choice([1, 1, 2, 2, 3])
    npus = [rnd.choice([2, 3, 4, 4, 8, 16] if MAX_RANKS > 32 else [2, 3, 4, 4, 8]) for _ in range(d)]
    while math.prod(npus) > MAX_RANKS: npus[rnd.randrange(d)] = 2
    ranks = math.prod(npus)
    topo = [rnd.choice(["Ring", "Switch", "FullyConnected"]) for _ in range(d)]
    bw = [round(rnd.uniform(10, 200), 1) for _ in range(d)]
    lat = [round(rnd.uniform(0, 2000), 1) for _ in range(d)]
    backend = "aware" if d == 1 and rnd.random() < 0.5 else "unaware"
    algos = []
    for coll in ["all-reduce", "all-gather", "reduce-scatter", "all-to-all"]:
        a = []
        for k in range(d):
            opts = ["ring", "direct", "oneRing", "oneDirect"]
            if pow2(npus[k]) and coll != "all-to-all": opts += ["halvingDoubling", "oneHalvingDoubling"]
            if coll == "all-reduce" and pow2(npus[k]) and k == 0: opts += ["doubleBinaryTree"]
            a.append(rnd.choice(opts))
        algos.append(a)
    system = {"scheduling-policy": rnd.choice(["LIFO", "FIFO"]), "endpoint-delay": rnd.choice([0, 5, 10, 20]),
              "active-chunks-per-dimension": rnd.choice([1, 1, 2, 3]), "preferred-dataset-splits": rnd.choice([1, 2, 4, 8]),
              "all-reduce-implementation": algos[0], "all-gather-implementation": algos[1],
              "reduce-scatter-implementation": algos[2], "all-to-all-implementation": algos[3],
              "collective-optimization": rnd.choice(["localBWAware", "baseline"]), "local-mem-bw": 1600}
    model = rnd.choice(["gpt", "llama", "moe", "dlrm"])
    gen = [MIMIC, "generate", model, "--ranks", str(ranks)]
    divs = [x for x in [1, 2, 4, 8, 16] if ranks % x == 0 and x <= 8]
    tp = rnd.choice(divs)
    pp_opts = [x for x in [1, 2] if (ranks // tp) % x == 0]
    pp = rnd.choice(pp_opts)
    if model != "dlrm":
        gen += ["--tp", str(tp), "--pp", str(pp), "--layers", str(rnd.choice([2, 2, 4])), "--hidden", str(rnd.choice([256, 512])),
                "--heads", "8", "--seq", str(rnd.choice([128, 256])), "--vocab", "1024", "--micro-batch", "1"]
        if model == "moe":
            dp = ranks // (tp * pp)
            ep = rnd.choice([x for x in [1, 2, 4] if dp % x == 0])
            gen += ["--ep", str(ep), "--experts", str(max(ep, 4)), "--ffn", "512"]
        if rnd.random() < 0.3: gen += ["--zero"]
    else:
        gen += ["--tables", str(rnd.choice([2, 4, 8])), "--rows", "1000", "--emb-dim", "64", "--micro-batch", "32"]
    case = f"{out_root}/s{seed}"
    os.makedirs(case, exist_ok=True)
    prefix = f"{case}/w"
    g = subprocess.run(gen + ["-o", prefix], capture_output=True, text=True)
    if g.returncode != 0:
        return ("gen_failed", " ".join(gen), g.stderr[-300:])
    with open(f"{case}/net.yml", "w") as f:
        f.write(f"topology: [ {', '.join(topo)} ]\nnpus_count: [ {', '.join(map(str, npus))} ]\n"
                f"bandwidth: [ {', '.join(map(str, bw))} ]\nlatency: [ {', '.join(map(str, lat))} ]\n")
    json.dump(system, open(f"{case}/sys.json", "w"), indent=1)
    groups = f"{prefix}.comm_groups.json"
    binary = "AstraSim_Unaware" if backend == "unaware" else "AstraSim_Aware"
    args = [f"{ASTRA}/{binary}", f"--workload-configuration={prefix}", f"--system-configuration={case}/sys.json",
            f"--remote-memory-configuration={MEM}", f"--network-configuration={case}/net.yml", f"--logging-folder={case}/log"]
    if os.path.exists(groups): args.append(f"--comm-group-configuration={groups}")
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=240)
        out, rc = p.stdout + p.stderr, p.returncode
    except subprocess.TimeoutExpired:
        return ("astra_timeout", " ".join(args), "")
    fin, exp = {}, {}
    for line in out.splitlines():
        m = re.search(r"sys\[(\d+)\] finished, (\d+) cycles, exposed communication (\d+) cycles", line)
        if m: fin[int(m[1])] = int(m[2]); exp[int(m[1])] = int(m[3])
    cmd = [MIMIC, "simulate", prefix, "--network", f"{case}/net.yml", "--system", f"{case}/sys.json", "--memory", MEM,
           "--json", f"{case}/mimic.json"]
    if backend == "aware": cmd += ["--network-model", "congestion"]
    if os.path.exists(groups): cmd += ["--comm-groups", groups]
    q = subprocess.run(cmd, capture_output=True, text=True, timeout=240)
    if rc != 0 or len(fin) != ranks:
        return ("astra_failed" + (" mimic_ok" if q.returncode == 0 else " mimic_rc%d" % q.returncode), " ".join(args),
                out[-200:].replace("\n", " | ") + " || mimic: " + q.stderr[-200:].replace("\n", " | "))
    if q.returncode != 0:
        return ("mimic_failed", " ".join(cmd), q.stderr[-400:])
    r = json.load(open(f"{case}/mimic.json"))["ranks"]
    tol = 0.0 if backend == "unaware" else 0.02
    bad = []
    for i, x in enumerate(r):
        for a, b in ((x["finish_ns"], fin[i]), (x["exposed_comm_ns"], exp[i])):
            if abs(a - b) > tol * max(b, 1): bad.append((i, x["finish_ns"], fin[i], x["exposed_comm_ns"], exp[i])); break
    if bad: return ("DIFF", " ".join(cmd), str(bad[:4]))
    return ("equal", backend, f"{model} ranks={ranks} {topo}")

tally = {}
for s in range(seed0, seed0 + count):
    status, cmd, detail = one(s)
    tally[status.split()[0]] = tally.get(status.split()[0], 0) + 1
    print(s, status, cmd if status != "equal" else "", detail, flush=True)
print("totals:", ", ".join(f"{k} {v}" for k, v in sorted(tally.items())))

#!/usr/bin/env python3
"""Writes the simulator benchmark's inputs: a data-parallel workload where
each of L layers runs COMPUTE_US of compute overlapped with a collective of
SIZE bytes (layer i's collective waits on layer i's compute; layer i+1's
compute does not wait on it), the same on every rank, as ASTRA-sim reads it
(PREFIX.<r>.et), plus a 2-D network Ring(8) x Switch(RANKS/8) and a system
with 4 dataset splits and 2 active chunks.

    sim_workload.py MIMIC OUTDIR RANKS LAYERS SIZE_BYTES all_reduce|all_to_all [COMPUTE_US]
Prints the mimic simulate command line."""
import json, os, shutil, subprocess, sys

mimic, out, ranks, layers, size, coll = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
compute_us = int(sys.argv[7]) if len(sys.argv) > 7 else 100
comm_type = {"all_reduce": 0, "all_gather": 2, "all_to_all": 6, "reduce_scatter": 7}[coll]
os.makedirs(out, exist_ok=True)
attr_bool = lambda n, v: {"name": n, "bool_val": v}
attr_int = lambda n, v: {"name": n, "int64_val": str(v)}
nodes = []
for i in range(layers):
    comp, comm = 2 * i, 2 * i + 1
    nodes.append({"id": str(comp), "name": f"layer{i}_compute", "type": "COMP_NODE", "ctrl_deps": [],
                  "data_deps": [str(comp - 2)] if i else [], "duration_micros": str(compute_us),
                  "attr": [attr_bool("is_cpu_op", False)]})
    nodes.append({"id": str(comm), "name": f"layer{i}_{coll}", "type": "COMM_COLL_NODE", "ctrl_deps": [],
                  "data_deps": [str(comp)], "attr": [attr_bool("is_cpu_op", False), attr_int("comm_type", comm_type),
                                                     attr_int("comm_size", size)]})
prefix = os.path.join(out, "workload")
with open(prefix + ".json", "w") as f:
    json.dump({"metadata": {"version": "0.0.4", "attr": []}, "nodes": nodes}, f)
subprocess.run([mimic, "encode", prefix + ".json", "--out", prefix + ".0.et"], check=True, capture_output=True)
for r in range(1, ranks):  # every rank runs the same graph
    dst = f"{prefix}.{r}.et"
    if not os.path.exists(dst):
        os.link(prefix + ".0.et", dst)
with open(os.path.join(out, "network.yml"), "w") as f:
    f.write(f"topology: [ Ring, Switch ]\nnpus_count: [ 8, {ranks // 8} ]\nbandwidth: [ 200.0, 50.0 ]\nlatency: [ 500.0, 1000.0 ]\n")
with open(os.path.join(out, "system.json"), "w") as f:
    json.dump({"scheduling-policy": "LIFO", "endpoint-delay": 10, "active-chunks-per-dimension": 2,
               "preferred-dataset-splits": 4, "all-reduce-implementation": ["ring", "ring"],
               "all-gather-implementation": ["ring", "ring"], "reduce-scatter-implementation": ["ring", "ring"],
               "all-to-all-implementation": ["ring", "ring"], "collective-optimization": "localBWAware",
               "local-mem-bw": 1600}, f, indent=1)
with open(os.path.join(out, "memory.json"), "w") as f:
    json.dump({"memory-type": "NO_MEMORY_EXPANSION"}, f)
print(f"{mimic} simulate {prefix} --network {out}/network.yml --system {out}/system.json --memory {out}/memory.json")

#!/usr/bin/env python3
"""Compares two ETs' top-level ATen ops (what replay runs): name, input and output shapes and
integer-list arguments, in execution order. Exit 1 and the first differences when they differ.
usage: et_top_level_shapes.py A.json[.gz] B.json[.gz]   (used by tests/cli/compose_scale.sh and bench/scale_replay.py)"""
import gzip
import json
import sys


def top_level_ops(path):
    d = json.load(gzip.open(path) if path.endswith(".gz") else open(path))
    ids = {n["id"]: n for n in d["nodes"]}
    out = []
    for n in sorted(d["nodes"], key=lambda n: n["id"]):
        parent = ids.get(n.get("parent", n.get("ctrl_deps")))
        if not n["name"].startswith("aten::") or (parent and parent["name"].startswith("aten::")):
            continue
        if isinstance(n.get("inputs"), dict):
            shapes_in, shapes_out = n["inputs"]["shapes"], n["outputs"]["shapes"]
            values, types = n["inputs"]["values"], n["inputs"]["types"]
        else:
            shapes_in, shapes_out = n.get("input_shapes"), n.get("output_shapes")
            values, types = n["inputs"], n["input_types"]
        lists = [v for v, t in zip(values, types) if t.startswith("GenericList[Int")]
        out.append((n["name"], json.dumps(shapes_in), json.dumps(shapes_out), json.dumps(lists)))
    return out


def main():
    a, b = top_level_ops(sys.argv[1]), top_level_ops(sys.argv[2])
    bad = [(i, x, y) for i, (x, y) in enumerate(zip(a, b)) if x != y]
    for i, x, y in bad[:4]:
        print(f"op {i}:\n  {sys.argv[1]}: {x}\n  {sys.argv[2]}: {y}")
    print(f"{len(a)} and {len(b)} top-level ATen ops, {len(bad)} differ")
    sys.exit(0 if not bad and len(a) == len(b) else 1)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Cuts small fuzz seeds out of the real traces in ../shared/traces.

Each seed is a few nodes or events of a real file, re-serialised with the
original key order, so the fuzzer starts from the shapes real writers
produce. Run once when the traces change:
    python3 fuzz/make_seeds.py ../shared/traces fuzz/corpus
"""
import gzip
import json
import os
import sys


def read_json(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def write(path, data):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "wb") as f:
        f.write(data)


def gz(data):
    return gzip.compress(data, compresslevel=9, mtime=0)


def et_seed(doc, nodes):
    """The ET header with `nodes`, fields in the original order."""
    out = {}
    for key, value in doc.items():
        out[key] = nodes if key == "nodes" else value
    return json.dumps(out).encode()


def with_ancestors(nodes, chosen):
    """`chosen` plus every ancestor of its nodes up to the root, parents after children as the observer
    writes them: a parent missing from the trace is an error, so a seed must name only nodes it holds."""
    by_id = {n["id"]: n for n in nodes}
    out = list(chosen)
    ids = {n["id"] for n in out}
    i = 0
    while i < len(out):
        parent = by_id.get(out[i].get("parent", out[i].get("ctrl_deps")))
        if parent is not None and parent["id"] not in ids:
            out.append(parent)
            ids.add(parent["id"])
        i += 1
    return out


def pick_nodes(nodes, want, count):
    """The first nodes whose names contain one of `want`, up to `count`, plus their ancestors."""
    chosen = []
    for n in nodes:
        if len(chosen) >= count:
            break
        if any(w in n["name"] for w in want) and n not in chosen:
            chosen.append(n)
    return with_ancestors(nodes, chosen)


def et_seeds(traces, out):
    linear = read_json(os.path.join(traces, "pytorch/linear_et.json.gz"))
    nodes = linear["nodes"]
    write(f"{out}/et/linear_first_nodes.json", et_seed(linear, with_ancestors(nodes, nodes[:6])))
    write(f"{out}/et/linear_first_nodes.json.gz", gz(et_seed(linear, with_ancestors(nodes, nodes[:3]))))
    write(f"{out}/et/linear_lists.json",
          et_seed(linear, pick_nodes(nodes, ["aten::addmm", "aten::t", "aten::view", "aten::cat"], 4)))

    sample = read_json(os.path.join(traces, "pytorch/chakra_sample_1.0.2.json.gz"))
    write(f"{out}/et/chakra_sample_first_nodes.json",
          et_seed(sample, with_ancestors(sample["nodes"], sample["nodes"][:4])))
    lists = [n for n in sample["nodes"] if any("GenericList[GenericList" in t for t in n["inputs"]["types"])]
    write(f"{out}/et/chakra_sample_nested_lists.json", et_seed(sample, with_ancestors(sample["nodes"], lists[:1])))

    resnet = read_json(os.path.join(traces, "pytorch/resnet_et.json.gz"))
    write(f"{out}/et/resnet_process_group.json",
          et_seed(resnet, pick_nodes(resnet["nodes"], ["## process_group:init ##"], 1)))
    write(f"{out}/et/resnet_conv.json",
          et_seed(resnet, pick_nodes(resnet["nodes"], ["aten::convolution", "aten::_foreach"], 2)))

    strided = read_json(os.path.join(traces, "pytorch/resnet_1gpu_et_1.1.1.json.gz"))
    write(f"{out}/et/resnet_strides.json",
          et_seed(strided, pick_nodes(strided["nodes"], ["aten::empty_strided", "aten::copy_"], 2)))

    pt2 = read_json(os.path.join(traces, "pytorch/pt2/pt2_et.json"))
    triton = [n for n in pt2["nodes"] if any(a["name"] == "kernel_backend" for a in n.get("attrs", []))]
    write(f"{out}/et/pt2_triton.json", et_seed(pt2, with_ancestors(pt2["nodes"], triton[:2])))


def kineto_seeds(traces, out):
    for name in ["linear", "resnet"]:
        doc = read_json(os.path.join(traces, f"pytorch/{name}_kineto.json.gz"))
        events = doc["traceEvents"]
        # One event of each (phase, category), then a launch with its kernel and flow arrows.
        seen, sample = set(), []
        for e in events:
            key = (e.get("ph"), e.get("cat"))
            if key not in seen:
                seen.add(key)
                sample.append(e)
        kernel = next(e for e in events if e.get("cat") == "kernel")
        corr = kernel["args"]["correlation"]
        sample += [e for e in events if e.get("args", {}).get("correlation") == corr or
                   (e.get("cat") == "ac2g" and e.get("id") == corr)]
        out_doc = {k: (sample if k == "traceEvents" else v) for k, v in doc.items() if k != "deviceProperties"}
        write(f"{out}/kineto/{name}_sample.json", json.dumps(out_doc).encode())
        host = [e for e in events if e.get("cat") == "cpu_op"][:6]
        write(f"{out}/kineto/{name}_cpu_ops.json.gz", gz(json.dumps({"traceEvents": host}).encode()))
    # torch 1.13 without Kineto: a bare list with empty args.
    bare = [{"name": "aten::linear", "ph": "X", "ts": 10.5, "dur": 20.25, "tid": 1, "pid": "CPU functions",
             "args": {}},
            {"name": "aten::addmm", "ph": "X", "ts": 11.0, "dur": 15.0, "tid": 1, "pid": "CPU functions",
             "args": {}}]
    write(f"{out}/kineto/bare_list.json", json.dumps(bare).encode())


def varint(n):
    out = bytearray()
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out.append(b | 0x80)
        else:
            out.append(b)
            return bytes(out)


def chakra_messages(data):
    pos, msgs = 0, []
    while pos < len(data):
        length, shift = 0, 0
        while True:
            b = data[pos]
            pos += 1
            length |= (b & 0x7F) << shift
            shift += 7
            if not b & 0x80:
                break
        msgs.append(data[pos:pos + length])
        pos += length
    return msgs


def chakra_seeds(traces, out):
    for coll in ["all_gather", "all_reduce", "all_to_all", "reduce_scatter"]:
        with open(os.path.join(traces, f"chakra/microbench/{coll}/{coll}.0.et"), "rb") as f:
            write(f"{out}/chakra/{coll}.0.et", f.read())
    with open(os.path.join(traces, "chakra/feeder_sample.0.et"), "rb") as f:
        msgs = chakra_messages(f.read())
    framed = lambda ms: b"".join(varint(len(m)) + m for m in ms)
    small = [m for m in msgs[1:100] if len(m) < 1500][:6]
    write(f"{out}/chakra/feeder_small_nodes.0.et", framed([msgs[0]] + small))
    # The first node carries long attrs and inputs of more kinds.
    write(f"{out}/chakra/feeder_first_node.0.et", framed(msgs[:2]))
    write(f"{out}/chakra/feeder_first_nodes.0.et.gz", gz(framed([msgs[0]] + small[:2])))


def chakra_json_seeds(out):
    """Chakra as JSON, which load_trace (the ET target's entry) also reads:
    the jsonizer's metadata and first nodes, and the JSON feeder format's."""
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "data", "chakra_json")
    with gzip.open(f"{data}/jsonizer_feeder_sample.0.json.gz", "rt") as f:
        text = f.read()
    objects, depth, start, in_string, escaped = [], 0, 0, False, False
    for i, c in enumerate(text):
        if in_string:
            escaped, in_string = (False, in_string) if escaped else (c == "\\", c != '"')
            continue
        if c == '"':
            in_string = True
        elif c in "{[":
            start = i if depth == 0 else start
            depth += 1
        elif c in "}]":
            depth -= 1
            if depth == 0:
                objects.append(text[start:i + 1])
                if len(objects) == 4:
                    break
    write(f"{out}/et/chakra_jsonizer_first_nodes.json", "".join(objects).encode())
    feeder = read_json(f"{data}/feeder_format.0.json.gz")
    comm = [n for n in feeder["workload_graph"] if n["NodeType"] == 7][:2]
    doc = {"workload_graph": feeder["workload_graph"][:3] + comm}
    write(f"{out}/et/chakra_feeder_format.json", json.dumps(doc, indent=4).encode())


def main():
    traces = sys.argv[1] if len(sys.argv) > 1 else "../shared/traces"
    out = sys.argv[2] if len(sys.argv) > 2 else "fuzz/corpus"
    et_seeds(traces, out)
    kineto_seeds(traces, out)
    chakra_seeds(traces, out)
    chakra_json_seeds(out)


if __name__ == "__main__":
    main()

"""The execution-trace observer, whichever name this torch gives it.

torch 1.13 calls it ExecutionGraphObserver (schema 1.0.1, root nodes named
`[pytorch|profiler|execution_graph|...]`); torch 2.x renamed it ExecutionTraceObserver. Both
have register_callback(path) / start() / stop() / unregister_callback(), and the file is only
complete after unregister_callback().
"""

import gzip
import json
import os
import shutil

import torch.profiler


def observer_class():
    """(class, name) of the ET observer in this torch; raises if there is none."""
    for name in ("ExecutionTraceObserver", "ExecutionGraphObserver"):
        cls = getattr(torch.profiler, name, None)
        if cls is not None:
            return cls, name
    raise RuntimeError(
        f"torch {torch.__version__} has neither torch.profiler.ExecutionTraceObserver nor "
        "ExecutionGraphObserver; execution traces need torch >= 1.13")


class EtObserver:
    """Writes one execution trace to a temporary JSON file; finish() gzips it into place."""

    def __init__(self, json_path):
        cls, self.class_name = observer_class()
        self._json_path = json_path
        self._observer = cls()
        # torch 2.x returns self from register_callback; 1.13 returns None.
        self._observer.register_callback(json_path)
        self._registered = True

    def start(self):
        self._observer.start()

    def stop(self):
        self._observer.stop()

    def close(self):
        """Finalises the JSON file (the observer writes its closing bracket here)."""
        if self._registered:
            self._observer.unregister_callback()
            self._registered = False

    def finish(self, gz_path):
        """Closes the observer, gzips the JSON to gz_path, removes the JSON; returns the parsed ET."""
        self.close()
        doc = load_et(self._json_path)
        tmp = gz_path + ".tmp"
        with open(self._json_path, "rb") as src, gzip.open(tmp, "wb", compresslevel=6) as dst:
            shutil.copyfileobj(src, dst, 1 << 20)
        os.replace(tmp, gz_path)
        os.remove(self._json_path)
        return doc


def load_et(json_path):
    """The parsed ET (one iteration of a training step: small enough to hold in memory)."""
    with open(json_path, "r", encoding="utf-8") as f:
        doc = json.load(f)
    nodes = doc.get("nodes")
    if not isinstance(nodes, list):
        raise RuntimeError(f"{json_path}: execution trace has no 'nodes' list")
    return doc


def _attr(node, name):
    for a in node.get("attrs", ()):
        if a.get("name") == name:
            return a.get("value")
    return None


def et_ops(doc):
    """(tid, rf_id, name, input shapes) of every ET node with an rf_id; flat (1.0.1) or nested (1.0.2+) nodes."""
    ops = []
    for node in doc["nodes"]:
        if "rf_id" in node:
            rf_id, tid, shapes = node.get("rf_id"), node.get("tid"), node.get("input_shapes")
        else:
            rf_id, tid = _attr(node, "rf_id"), _attr(node, "tid")
            inputs = node.get("inputs")
            shapes = inputs.get("shapes") if isinstance(inputs, dict) else None
        if isinstance(rf_id, int) and rf_id > 0 and isinstance(tid, int):
            ops.append((tid, rf_id, node.get("name", ""), shapes))
    return ops

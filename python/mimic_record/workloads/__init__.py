"""Built-in workloads: each module has DESCRIPTION and build(seed=0, ...) -> step callable.

A step callable runs one full training iteration (forward, loss, backward, optimizer step).
Distributed workloads expect torch.distributed to be initialised before build().
"""

import importlib

NAMES = ("mlp", "transformer", "dlrm", "cnn", "ddp_mlp", "dlrm_dist")
DISTRIBUTED = frozenset({"ddp_mlp", "dlrm_dist"})  # known without importing torch


def load(name):
    """The workload module called `name`; ValueError naming the choices otherwise."""
    check(name)
    return importlib.import_module(f"{__name__}.{name}")


def check(name):
    if name not in NAMES:
        raise ValueError(f"unknown workload '{name}' (choose from {', '.join(NAMES)})")


def is_distributed(name):
    check(name)
    return name in DISTRIBUTED

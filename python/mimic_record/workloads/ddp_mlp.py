"""`ddp_mlp`: an MLP under DistributedDataParallel (Gloo allreduce of gradient buckets).

DDP buckets gradients in reverse parameter order: after the first iteration it rebuilds
buckets with the first one capped at dist._DEFAULT_FIRST_BUCKET_BYTES (1 MB) and the rest at
bucket_cap_mb. Seven 256x256 layers (1.8 MB of fp32 weights) with 0.25 MB buckets give several
allreduces of different sizes per iteration, each a `c10d::allreduce_` in torch 1.13's ET.
"""

import torch
import torch.distributed as dist
from torch.nn.parallel import DistributedDataParallel

from .common import mlp, seed_everything, training_step

DESCRIPTION = ("8-layer MLP (256 wide) under DDP, batch 64 per rank, 1 MB first bucket then "
               "0.25 MB buckets, SGD")


def build(seed=0, batch=64, width=256, layers=8, classes=10, bucket_cap_mb=0.25):
    seed_everything(seed)  # same initial weights everywhere (DDP would broadcast them anyway)
    model = DistributedDataParallel(mlp([width] * layers + [classes]), bucket_cap_mb=bucket_cap_mb)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    data = torch.Generator().manual_seed(seed + 1 + dist.get_rank())  # each rank its own shard
    x = torch.randn(batch, width, generator=data)
    y = torch.randint(0, classes, (batch,), generator=data)
    return training_step(model, optimizer,
                         lambda: torch.nn.functional.cross_entropy(model(x), y))

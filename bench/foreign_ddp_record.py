#!/usr/bin/python3
"""Records one data-parallel training step on N local ranks over Gloo the way a user without
mimic would: DistributedDataParallel, PyTorch's own execution-trace observer and torch.profiler
in each rank, nothing of mimic's recorder. For bench/replay_foreign_ranks.py.

  /usr/bin/python3 bench/foreign_ddp_record.py MODEL OUT_DIR [NPROC=2] [THREADS=1]

MODEL: mlp (four layers 512-1024-1024-512-10, batch 64, AdamW, 1 MiB buckets) or cnn (a small
conv net, batch 16, SGD with momentum), both under DDP, or manual (the mlp without DDP, averaging
its gradients by hand the way PyTorch's distributed tutorial does: a synchronous dist.all_reduce
of each gradient after the backward, then of the loss for logging, before the optimizer step) or manual_async (the same with async_op=True calls, all issued before
the first wait), each step on a fresh random batch. Writes OUT_DIR/rank<r>/et.json and
profile.json (each rank's files, as the observer and export_chrome_trace wrote them) and
truth.json: each rank's untraced step time, the median of 2 x UNTRACED_STEPS (default 25)
steps around the recording after WARMUP_STEPS (default 5), timed around each step, and the
median minor page faults of those steps; the ranks start each timed step together (a barrier
before it). mimic never reads truth.json.
"""
import json
import os
import socket
import statistics
import sys

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.parallel import DistributedDataParallel

from foreign_record import untraced_ms


def mlp_step(rank):
    model = DistributedDataParallel(nn.Sequential(
        nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 512), nn.GELU(),
        nn.Linear(512, 10)), bucket_cap_mb=1)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(7 + rank)
    # A fresh batch each step: a fixed one is learnt within tens of steps and
    # its gradients then run into subnormal floats, which slow every step.
    return model, opt, lambda: F.cross_entropy(model(torch.randn(64, 512, generator=g)), torch.randint(0, 10, (64,), generator=g))


def cnn_step(rank):
    model = DistributedDataParallel(nn.Sequential(
        nn.Conv2d(3, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d(2),
        nn.Flatten(), nn.Linear(64 * 8 * 8, 128), nn.ReLU(), nn.Linear(128, 10)))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    g = torch.Generator().manual_seed(11 + rank)
    return model, opt, lambda: F.cross_entropy(model(torch.randn(16, 3, 32, 32, generator=g)),
                                               torch.randint(0, 10, (16,), generator=g))


def manual_step(rank, asynchronous=False):
    """Plain data parallelism by hand: every dist.all_reduce is synchronous (the call waits in
    work.wait(), which neither the ET nor the profile records as an op), or all are issued
    with async_op=True and waited on afterwards."""
    model = nn.Sequential(nn.Linear(512, 1024), nn.GELU(), nn.Linear(1024, 1024), nn.GELU(), nn.Linear(1024, 512),
                          nn.GELU(), nn.Linear(512, 10))
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3)
    g = torch.Generator().manual_seed(7 + rank)
    world = dist.get_world_size()

    def loss_of():
        loss = F.cross_entropy(model(torch.randn(64, 512, generator=g)), torch.randint(0, 10, (64,), generator=g))

        def average_then_log(_):
            if asynchronous:
                for work in [dist.all_reduce(p.grad, async_op=True) for p in model.parameters()]:
                    work.wait()
            else:
                for p in model.parameters():
                    dist.all_reduce(p.grad)
            for p in model.parameters():
                p.grad /= world
            logged = loss.detach().clone()
            dist.all_reduce(logged)
        # backward() then averages (after the gradients are in, before opt.step()).
        return _AfterBackward(loss, average_then_log)
    return model, opt, loss_of


class _AfterBackward:
    """A loss whose backward() also runs a hook once the gradients are in."""

    def __init__(self, loss, hook):
        self.loss, self.hook = loss, hook

    def backward(self):
        self.loss.backward()
        self.hook(self.loss)


def timed(step, count, faults=None):
    """Each step's wall ms, the ranks starting it together (foreign_record.untraced_ms)."""
    return untraced_ms(step, count, faults, before=dist.barrier)


def worker(rank, nproc, model_name, out, threads, port):
    torch.set_num_threads(threads)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=nproc)
    model, opt, loss_of = {"mlp": mlp_step, "cnn": cnn_step, "manual": manual_step,
                     "manual_async": lambda rank: manual_step(rank, asynchronous=True)}[model_name](rank)

    def step():
        opt.zero_grad()
        loss_of().backward()
        opt.step()

    timed(step, int(os.environ.get("WARMUP_STEPS", "5")))
    count = int(os.environ.get("UNTRACED_STEPS", "25"))
    faults = []
    before = timed(step, count, faults)
    rank_dir = os.path.join(out, f"rank{rank}")
    os.makedirs(rank_dir, exist_ok=True)
    cls = getattr(torch.profiler, "ExecutionTraceObserver", None) or torch.profiler.ExecutionGraphObserver
    et = cls()
    et.register_callback(os.path.join(rank_dir, "et.json"))
    dist.barrier()
    with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
        et.start()
        step()
        et.stop()
    et.unregister_callback()
    prof.export_chrome_trace(os.path.join(rank_dir, "profile.json"))
    after = timed(step, count, faults)
    with open(os.path.join(rank_dir, "truth.json"), "w") as f:
        json.dump({"model": model_name, "rank": rank, "world_size": nproc, "threads": threads,
                   "untraced_median_ms": statistics.median(before + after),
                   "untraced_before_ms": statistics.median(before), "untraced_after_ms": statistics.median(after),
                   "untraced_steps_ms": before + after, "untraced_page_faults_median": statistics.median(faults),
                   "torch": torch.__version__}, f, indent=1)
    dist.destroy_process_group()


def main():
    model_name, out = sys.argv[1], sys.argv[2]
    nproc = int(sys.argv[3]) if len(sys.argv) > 3 else 2
    threads = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    mp.spawn(worker, args=(nproc, model_name, out, threads, port), nprocs=nproc, join=True)


if __name__ == "__main__":
    main()

#!/usr/bin/python3
"""How long one small Gloo all-reduce takes on this machine, and how the times spread: N local
ranks, each call after a barrier (as `mimic calibrate --collectives` times them), 250 timed calls
of BYTES (default 1 KiB) after 50 warm-up calls; prints rank 0's median, mean, p75, p90 and the
share of calls over 2 ms.

  /usr/bin/python3 bench/gloo_allreduce_latency.py N [BYTES=1024] [--busy]

--busy keeps every core from idling with one niced busy loop per core (os.nice(19)), as a
training step's compute would: on a VM, a message to a rank whose core sat idle waits for the
hypervisor to wake that virtual CPU.
"""
import multiprocessing
import os
import socket
import statistics
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, nproc, port, nbytes):
    torch.set_num_threads(1)
    dist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port}", rank=rank, world_size=nproc)
    t = torch.zeros(max(1, nbytes // 4))
    times = []
    for _ in range(300):
        dist.barrier()
        t0 = time.perf_counter()
        dist.all_reduce(t)
        times.append((time.perf_counter() - t0) * 1e6)
    times = sorted(times[50:])
    if rank == 0:
        print(f"{nproc} ranks, {nbytes} B: median {statistics.median(times):.0f} us, mean {statistics.mean(times):.0f}, "
              f"p75 {times[len(times) * 3 // 4]:.0f}, p90 {times[len(times) * 9 // 10]:.0f}, "
              f"over 2 ms {sum(x > 2000 for x in times) / len(times):.0%}")
    dist.destroy_process_group()


def spin():
    os.nice(19)
    while True:
        pass


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    nproc = int(args[0])
    nbytes = int(args[1]) if len(args) > 1 else 1024
    spinners = []
    if "--busy" in sys.argv:
        spinners = [multiprocessing.Process(target=spin, daemon=True) for _ in range(os.cpu_count())]
        for p in spinners:
            p.start()
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    try:
        mp.spawn(rank_main, args=(nproc, port, nbytes), nprocs=nproc)
    finally:
        for p in spinners:
            p.terminate()


if __name__ == "__main__":
    main()

"""Records a tiny training step with torch 1.13's own observer and profiler, stopping the
observer while an op is still running.
  /usr/bin/python3 record.py label OUT_DIR           # et.stop() inside record_function("inner")
  /usr/bin/python3 record.py profiler_step OUT_DIR   # et.stop() after the prof.step() that opens the next step
"""
import os
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

torch.set_num_threads(1)
torch.manual_seed(0)
mode, out = sys.argv[1], sys.argv[2]
os.makedirs(out, exist_ok=True)
net = nn.Linear(4, 2)
opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(3, 4), torch.randint(0, 2, (3,))


def train():
    opt.zero_grad()
    F.cross_entropy(net(x), y).backward()
    opt.step()


et = torch.profiler.ExecutionGraphObserver()
et.register_callback(os.path.join(out, "et.json"))
activities = [torch.profiler.ProfilerActivity.CPU]
if mode == "label":
    with torch.profiler.profile(activities=activities, record_shapes=True) as prof:
        with torch.profiler.record_function("outer_loop"):
            train()
            et.start()
            with torch.profiler.record_function("inner"):
                train()
                et.stop()
            train()
else:
    schedule = torch.profiler.schedule(wait=0, warmup=1, active=2, repeat=1)
    with torch.profiler.profile(activities=activities, schedule=schedule, record_shapes=True) as prof:
        train()
        prof.step()
        et.start()
        for _ in range(2):
            train()
            prof.step()
        et.stop()
et.unregister_callback()
prof.export_chrome_trace(os.path.join(out, "profile.json"))

import os, sys, torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(1); torch.manual_seed(0)
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
net = nn.Linear(4, 2); opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(3, 4), torch.randint(0, 2, (3,))
def train():
    opt.zero_grad(); F.cross_entropy(net(x), y).backward(); opt.step()
et = torch.profiler.ExecutionGraphObserver(); et.register_callback(os.path.join(out, "et.json"))
sched = torch.profiler.schedule(wait=0, warmup=1, active=2, repeat=1)
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], schedule=sched, record_shapes=True) as prof:
    train(); prof.step()
    et.start()
    for _ in range(2):
        train(); prof.step()
    et.stop()
et.unregister_callback()
prof.export_chrome_trace(os.path.join(out, "profile.json"))

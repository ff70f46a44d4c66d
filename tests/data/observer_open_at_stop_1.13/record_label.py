import os, sys, torch, torch.nn as nn, torch.nn.functional as F
torch.set_num_threads(1); torch.manual_seed(0)
out = sys.argv[1]; os.makedirs(out, exist_ok=True)
net = nn.Linear(4, 2); opt = torch.optim.SGD(net.parameters(), lr=0.1)
x, y = torch.randn(3, 4), torch.randint(0, 2, (3,))
def train():
    opt.zero_grad(); F.cross_entropy(net(x), y).backward(); opt.step()
et = torch.profiler.ExecutionGraphObserver(); et.register_callback(os.path.join(out, "et.json"))
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CPU], record_shapes=True) as prof:
    with torch.profiler.record_function("outer_loop"):
        train()
        et.start()
        with torch.profiler.record_function("inner"):
            train()
            et.stop()
        train()
et.unregister_callback()
prof.export_chrome_trace(os.path.join(out, "profile.json"))

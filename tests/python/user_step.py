"""A user's training script as `mimic record --script` sees it (used by the tests)."""

import torch

_model = None


def make_step():
    """Returns the step callable: the usual way to hand a step to mimic_record."""
    torch.manual_seed(1)
    model = torch.nn.Sequential(torch.nn.Linear(32, 64), torch.nn.Tanh(), torch.nn.Linear(64, 4))
    optimizer = torch.optim.Adam(model.parameters())
    x, y = torch.randn(16, 32), torch.randn(16, 4)

    def step():
        optimizer.zero_grad()
        torch.nn.functional.mse_loss(model(x), y).backward()
        optimizer.step()

    return step


def one_step():
    """Is itself the step (returns None): its first call counts as a warmup iteration."""
    global _model
    if _model is None:
        _model = torch.nn.Linear(8, 8)
    _model(torch.randn(4, 8)).sum().backward()


def uneven_step():
    """A step whose calls take unalike times (every other one 20 ms longer), as on a disturbed
    machine: the recorder must profile it again, up to its limit, and keep the steadiest session."""
    import time
    model = torch.nn.Linear(8, 8)
    calls = [0]

    def step():
        calls[0] += 1
        if calls[0] % 2:
            time.sleep(0.02)
        model(torch.randn(4, 8)).sum().backward()

    return step


def failing_on_rank_1():
    """A distributed step that dies on rank 1 after warmup: the launcher must stop rank 0."""
    import os
    import sys
    import torch.distributed as dist
    calls = [0]
    t = torch.ones(4)

    def step():
        calls[0] += 1
        if dist.get_rank() == 1 and calls[0] == 3:
            sys.stdout.write("rank 1 failing on purpose\n")
            sys.stdout.flush()
            os._exit(7)
        dist.all_reduce(t)

    return step

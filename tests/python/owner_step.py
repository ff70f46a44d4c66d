"""A training step full of names that reveal its owner, for `mimic obfuscate`'s tests:
record_function labels, module names in labels, a custom op library, a custom autograd
function and a custom optimizer class. Every owner string contains "Acme" or "acme"."""

import torch

_LIB = None


def _custom_op_library():
    # A custom op as a company registers one: its own namespace, a CPU kernel.
    global _LIB
    if _LIB is None:
        _LIB = torch.library.Library("acme_ops", "DEF")
        _LIB.define("fused_scale(Tensor x, float acme_factor) -> Tensor")
        impl = torch.library.Library("acme_ops", "IMPL", "CPU")
        impl.impl("fused_scale", lambda x, f: x * f)
        _LIB._acme_impl = impl  # keep the registration alive
    return torch.ops.acme_ops.fused_scale


class AcmeScaleFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return grad * 2


class AcmeOptimizer(torch.optim.SGD):
    pass


class AcmeSecretEncoder(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.acme_proj = torch.nn.Linear(64, 128)
        self.acme_head = torch.nn.Linear(128, 10)

    def forward(self, x):
        with torch.autograd.profiler.record_function("nn.Module: AcmeSecretEncoder"):
            with torch.autograd.profiler.record_function("acme/recsys/ranking_tower_v7"):
                h = torch.relu(self.acme_proj(x))
            h = AcmeScaleFunction.apply(h)
            h = _custom_op_library()(h, 0.5)
            return self.acme_head(h)


def make_step():
    torch.manual_seed(3)
    model = AcmeSecretEncoder()
    optimizer = AcmeOptimizer(model.parameters(), lr=0.01)
    x, y = torch.randn(32, 64), torch.randint(0, 10, (32,))

    def step():
        with torch.autograd.profiler.record_function("## AcmeCorp training step ##"):
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x), y)
            loss.backward()
            optimizer.step()

    return step

"""`mlp`: a 4-layer perceptron classifier (Linear, ReLU, cross-entropy, SGD)."""

import torch

from .common import mlp, seed_everything, training_step

DESCRIPTION = "4-layer MLP classifier, batch 128, 256 features, 256 hidden, cross-entropy, SGD"


def build(seed=0, batch=128, features=256, hidden=256, classes=10):
    seed_everything(seed)
    model = mlp([features, hidden, hidden, hidden, classes])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x = torch.randn(batch, features)
    y = torch.randint(0, classes, (batch,))
    return training_step(model, optimizer,
                         lambda: torch.nn.functional.cross_entropy(model(x), y))

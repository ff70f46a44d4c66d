"""`cnn`: a small image classifier (conv, batch norm, ReLU, max pool, linear)."""

import torch

from .common import seed_everything, training_step

DESCRIPTION = "3 conv blocks (conv3x3, BatchNorm2d, ReLU, MaxPool2d) + linear, 32x32 RGB, batch 32, SGD"


def _block(cin, cout):
    return [torch.nn.Conv2d(cin, cout, 3, padding=1, bias=False), torch.nn.BatchNorm2d(cout),
            torch.nn.ReLU(inplace=True), torch.nn.MaxPool2d(2)]


def build(seed=0, batch=32, classes=10):
    seed_everything(seed)
    model = torch.nn.Sequential(*_block(3, 16), *_block(16, 32), *_block(32, 64),
                                torch.nn.Flatten(), torch.nn.Linear(64 * 4 * 4, classes))
    model.train()
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    images = torch.randn(batch, 3, 32, 32)
    labels = torch.randint(0, classes, (batch,))
    return training_step(model, optimizer,
                         lambda: torch.nn.functional.cross_entropy(model(images), labels))

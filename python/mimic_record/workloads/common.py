"""Pieces shared by the built-in workloads."""

import torch


def seed_everything(seed):
    """Same weights and data on every run (and every rank, unless a workload adds the rank)."""
    torch.manual_seed(seed)


def mlp(sizes, final_activation=False):
    """Linear+ReLU layers through `sizes`; ReLU after the last layer only if asked."""
    layers = []
    for i in range(len(sizes) - 1):
        layers.append(torch.nn.Linear(sizes[i], sizes[i + 1]))
        if i < len(sizes) - 2 or final_activation:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def training_step(model, optimizer, forward_loss):
    """A step callable: zero grads, forward_loss() (returns the loss), backward, optimizer step."""

    def step():
        optimizer.zero_grad(set_to_none=False)
        loss = forward_loss()
        loss.backward()
        optimizer.step()
        return loss

    return step

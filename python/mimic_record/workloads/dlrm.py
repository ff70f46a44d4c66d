"""`dlrm`: a small DLRM (embedding tables, bottom/top MLPs, pairwise dot interaction).

The pieces are shared with `dlrm_dist`, which shards the tables across ranks.
"""

import torch

from .common import mlp, seed_everything, training_step

DESCRIPTION = ("DLRM: 8 EmbeddingBag tables (10k x 32, sum, ~20 ids per bag with offsets), "
               "bottom MLP 13-128-64-32, dot interaction, top MLP 68-128-64-1, batch 256, BCE, SGD")

DENSE_FEATURES = 13


def interact(dense, pooled):
    """Pairwise dot products of [dense, pooled tables] (B, F, D), lower triangle, plus dense."""
    features = torch.cat([dense.unsqueeze(1), pooled], dim=1)
    dots = torch.bmm(features, features.transpose(1, 2))
    count = features.shape[1]
    rows, cols = torch.tril_indices(count, count, offset=-1)
    return torch.cat([dense, dots[:, rows, cols]], dim=1)


def top_input_width(tables, dim):
    count = tables + 1
    return dim + count * (count - 1) // 2


def sparse_batch(generator, batch, rows, mean_ids):
    """Indices and offsets of `batch` bags with 1..2*mean_ids ids each (EmbeddingBag input)."""
    lengths = torch.randint(1, 2 * mean_ids, (batch,), generator=generator)
    offsets = torch.zeros(batch, dtype=torch.long)
    offsets[1:] = torch.cumsum(lengths, 0)[:-1]
    indices = torch.randint(0, rows, (int(lengths.sum()),), generator=generator)
    return indices, offsets


class Dlrm(torch.nn.Module):
    def __init__(self, tables, rows, dim, bottom, top):
        super().__init__()
        self.embeddings = torch.nn.ModuleList(
            torch.nn.EmbeddingBag(rows, dim, mode="sum") for _ in range(tables))
        self.bottom = mlp([DENSE_FEATURES, *bottom, dim], final_activation=True)
        self.top = mlp([top_input_width(tables, dim), *top, 1])

    def forward(self, dense, sparse):
        pooled = torch.stack([emb(idx, off) for emb, (idx, off) in zip(self.embeddings, sparse)], 1)
        return self.top(interact(self.bottom(dense), pooled)).squeeze(1)


def build(seed=0, batch=256, tables=8, rows=10000, dim=32, mean_ids=20):
    seed_everything(seed)
    model = Dlrm(tables, rows, dim, bottom=[128, 64], top=[128, 64])
    optimizer = torch.optim.SGD(model.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(seed + 1)
    dense = torch.randn(batch, DENSE_FEATURES, generator=generator)
    sparse = [sparse_batch(generator, batch, rows, mean_ids) for _ in range(tables)]
    labels = torch.randint(0, 2, (batch,), generator=generator).float()
    return training_step(model, optimizer, lambda: torch.nn.functional.binary_cross_entropy_with_logits(
        model(dense, sparse), labels))

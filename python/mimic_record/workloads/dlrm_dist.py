"""`dlrm_dist`: DLRM with embedding tables sharded across ranks (model parallel) and data-parallel
MLPs, as in DLRM's distributed training:
- rank r owns tables t with t % world_size == r and looks them up for the GLOBAL batch;
- an all_to_all sends every rank its local-batch slice of every table's pooled embeddings
  (backward sends the gradients back the same way);
- dense (MLP) gradients are averaged with one flattened allreduce over a separate process
  group, so the recording shows a new_group in meta.json.
Gloo in torch 1.13 implements all_to_all_single (alltoall_base) but not the list form
all_to_all ("ProcessGroup gloo does not support alltoall"), so the exchange uses
all_to_all_single on a flat buffer with per-rank split sizes (uneven when tables % world_size != 0).
"""

import torch
import torch.distributed as dist

from .common import mlp, seed_everything
from .dlrm import DENSE_FEATURES, interact, sparse_batch, top_input_width

DESCRIPTION = ("DLRM, 8 EmbeddingBag tables (10k x 32) sharded by rank, all_to_all_single of pooled "
               "embeddings, allreduce of dense grads; batch 256 per rank, BCE, SGD")


class _AllToAll(torch.autograd.Function):
    """all_to_all_single of a flat tensor; backward sends gradients along the reverse splits."""

    @staticmethod
    def forward(ctx, flat, send_splits, recv_splits):
        ctx.send_splits, ctx.recv_splits = send_splits, recv_splits
        out = flat.new_empty(sum(recv_splits))
        dist.all_to_all_single(out, flat.contiguous(), recv_splits, send_splits)
        return out

    @staticmethod
    def backward(ctx, grad):
        back = grad.new_empty(sum(ctx.send_splits))
        dist.all_to_all_single(back, grad.contiguous(), ctx.send_splits, ctx.recv_splits)
        return back, None, None


def _owner_tables(tables, world_size):
    return [[t for t in range(tables) if t % world_size == r] for r in range(world_size)]


def build(seed=0, batch=256, tables=8, rows=10000, dim=32, mean_ids=20):
    rank, world = dist.get_rank(), dist.get_world_size()
    owned = _owner_tables(tables, world)
    dense_group = dist.new_group(list(range(world)))  # every rank calls new_group, in order

    seed_everything(seed)  # identical MLP weights on every rank
    bottom = mlp([DENSE_FEATURES, 128, 64, dim], final_activation=True)
    top = mlp([top_input_width(tables, dim), 128, 64, 1])
    torch.manual_seed(seed + 100 + rank)
    embeddings = torch.nn.ModuleList(torch.nn.EmbeddingBag(rows, dim, mode="sum") for _ in owned[rank])
    dense_params = list(bottom.parameters()) + list(top.parameters())
    optimizer = torch.optim.SGD(dense_params + list(embeddings.parameters()), lr=0.01)

    # Global batch of sparse ids for the local tables; local batch of dense features and labels.
    data = torch.Generator().manual_seed(seed + 1 + rank)
    sparse = [sparse_batch(data, batch * world, rows, mean_ids) for _ in owned[rank]]
    dense = torch.randn(batch, DENSE_FEATURES, generator=data)
    labels = torch.randint(0, 2, (batch,), generator=data).float()
    send_splits = [batch * len(owned[rank]) * dim] * world
    recv_splits = [batch * len(owned[r]) * dim for r in range(world)]

    def forward_loss():
        pooled = torch.stack([emb(idx, off) for emb, (idx, off) in zip(embeddings, sparse)], 1)
        # (world*batch, local tables, dim) -> destination-rank-major flat buffer
        received = _AllToAll.apply(pooled.reshape(-1), send_splits, recv_splits)
        parts = received.split(recv_splits)
        gathered = torch.cat([p.view(batch, len(owned[r]), dim) for r, p in enumerate(parts)], 1)
        logits = top(interact(bottom(dense), gathered)).squeeze(1)
        return torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)

    def step():
        optimizer.zero_grad(set_to_none=False)
        loss = forward_loss()
        loss.backward()
        flat = torch.cat([p.grad.reshape(-1) for p in dense_params])
        dist.all_reduce(flat, group=dense_group)
        flat.div_(world)
        offset = 0
        for p in dense_params:
            n = p.grad.numel()
            p.grad.copy_(flat[offset:offset + n].view_as(p.grad))
            offset += n
        optimizer.step()
        return loss

    return step

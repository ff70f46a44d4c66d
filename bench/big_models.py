"""Training steps too large for the accuracy benches, for checking that big traces behave
(issue 20: progress, the memory estimate, the first iteration's figure). Each function returns
a step callable, as bench/foreign_record.py and `mimic record --script` want.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

from heldout_models import Block, training_step


def gpt2_large():
    """GPT-2-large's shape: 36 blocks, hidden 1280, 20 heads, sequence 512, vocabulary 50257,
    batch 1, AdamW with gradient clipping: 774M parameters, about 12.4 GB of parameters,
    gradients and AdamW state in fp32."""
    torch.manual_seed(0)
    vocab, d, t, layers, heads = 50257, 1280, 512, 36, 20
    emb = nn.Embedding(vocab, d)
    pos = nn.Parameter(torch.zeros(1, t, d))
    blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
    lnf = nn.LayerNorm(d)
    head = nn.Linear(d, vocab, bias=False)
    params = list(emb.parameters()) + [pos] + list(blocks.parameters()) + list(lnf.parameters()) + list(head.parameters())
    opt = torch.optim.AdamW(params, lr=3e-4)
    idx = torch.randint(0, vocab, (1, t))
    tgt = torch.randint(0, vocab, (1, t))

    def loss_of():
        logits = head(lnf(blocks(emb(idx) + pos)))
        return F.cross_entropy(logits.view(-1, vocab), tgt.view(-1))
    return training_step(opt, loss_of, set_to_none=True, before_step=lambda: torch.nn.utils.clip_grad_norm_(params, 1.0))

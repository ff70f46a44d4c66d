"""Training steps too large for the accuracy benches, for checking that big traces behave
(issue 20: progress, the memory estimate, the first iteration's figure). Each function returns
a step callable, as bench/foreign_record.py and `mimic record --script` want.
"""
import torch

from heldout_models import gpt_decoder


def gpt2_large():
    """GPT-2-large's shape: 36 blocks, hidden 1280, 20 heads, sequence 512, vocabulary 50257,
    batch 1, AdamW with gradient clipping: 774M parameters, about 12.4 GB of parameters,
    gradients and AdamW state in fp32."""
    torch.manual_seed(0)
    return gpt_decoder(vocab=50257, d=1280, t=512, layers=36, heads=20, batch=1)

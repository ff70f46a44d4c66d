"""`transformer`: one nn.TransformerEncoderLayer with a token embedding and an LM head."""

import torch

from .common import seed_everything, training_step

DESCRIPTION = "embedding + 2 TransformerEncoderLayers (d=64, 4 heads, ff 256) + LM head, seq 32, batch 4, Adam"


class _TinyEncoder(torch.nn.Module):
    def __init__(self, vocab, d_model, heads, layers, ff):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, d_model)
        self.layers = torch.nn.ModuleList(
            torch.nn.TransformerEncoderLayer(d_model, heads, dim_feedforward=ff, dropout=0.1,
                                             batch_first=True)
            for _ in range(layers))
        self.head = torch.nn.Linear(d_model, vocab)

    def forward(self, tokens):
        h = self.embed(tokens)
        for layer in self.layers:
            h = layer(h)
        return self.head(h)


def build(seed=0, batch=4, seq=32, vocab=1000, d_model=64, heads=4, layers=2, ff=256):
    seed_everything(seed)
    model = _TinyEncoder(vocab, d_model, heads, layers, ff)
    model.train()
    optimizer = torch.optim.Adam(model.parameters(), lr=1e-3)
    tokens = torch.randint(0, vocab, (batch, seq))
    targets = torch.randint(0, vocab, (batch, seq))

    def forward_loss():
        logits = model(tokens)
        return torch.nn.functional.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))

    return training_step(model, optimizer, forward_loss)

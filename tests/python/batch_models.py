"""Training steps whose batch comes from $MIMIC_BATCH, for `mimic scale`'s checks: a trace
recorded at batch B and scaled to 2B is compared with one recorded at 2B. The MLP's hidden
512x512 layers (default 1) and the transformer's layers (default 2) come from $MIMIC_LAYERS, for
`scale --keep-layers`: a 4-layer trace trimmed to 2 is compared with a 2-layer recording.
Use as `mimic record --script tests/python/batch_models.py:cnn`."""

import os

import torch


def _batch(default):
    return int(os.environ.get("MIMIC_BATCH", default))


def _step(model, optimizer, inputs, loss_fn):
    def step():
        optimizer.zero_grad()
        loss_fn(model(*inputs)).backward()
        optimizer.step()
    return step


def mlp():
    torch.manual_seed(0)
    b = _batch(64)
    hidden = []
    for _ in range(int(os.environ.get("MIMIC_LAYERS", 1))):
        hidden += [torch.nn.Linear(512, 512), torch.nn.ReLU()]
    model = torch.nn.Sequential(torch.nn.Linear(256, 512), torch.nn.ReLU(), *hidden, torch.nn.Linear(512, 10))
    x, y = torch.randn(b, 256), torch.randint(0, 10, (b,))
    return _step(model, torch.optim.SGD(model.parameters(), lr=0.01), (x,),
                 lambda out: torch.nn.functional.cross_entropy(out, y))


def cnn():
    torch.manual_seed(0)
    b = _batch(16)
    model = torch.nn.Sequential(
        torch.nn.Conv2d(3, 24, 3, padding=1), torch.nn.BatchNorm2d(24), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Conv2d(24, 48, 3, padding=1), torch.nn.BatchNorm2d(48), torch.nn.ReLU(), torch.nn.MaxPool2d(2),
        torch.nn.Flatten(), torch.nn.Linear(48 * 8 * 8, 10))
    x, y = torch.randn(b, 3, 32, 32), torch.randint(0, 10, (b,))
    return _step(model, torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9), (x,),
                 lambda out: torch.nn.functional.cross_entropy(out, y))


def transformer():
    torch.manual_seed(0)
    b = _batch(8)
    seq, vocab, d = 48, 1000, 96

    class LM(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.emb = torch.nn.Embedding(vocab, d)
            layer = torch.nn.TransformerEncoderLayer(d, 4, 256, dropout=0.0, batch_first=True)
            self.enc = torch.nn.TransformerEncoder(layer, int(os.environ.get("MIMIC_LAYERS", 2)))
            self.head = torch.nn.Linear(d, vocab)

        def forward(self, tokens):
            return self.head(self.enc(self.emb(tokens)))

    model = LM()
    tokens, targets = torch.randint(0, vocab, (b, seq)), torch.randint(0, vocab, (b, seq))
    return _step(model, torch.optim.AdamW(model.parameters(), lr=1e-3), (tokens,),
                 lambda out: torch.nn.functional.cross_entropy(out.reshape(-1, vocab), targets.reshape(-1)))


def recsys():
    torch.manual_seed(0)
    b = _batch(128)

    class Rec(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.tables = torch.nn.ModuleList([torch.nn.EmbeddingBag(5000, 32, mode="sum") for _ in range(4)])
            self.bottom = torch.nn.Sequential(torch.nn.Linear(13, 64), torch.nn.ReLU(), torch.nn.Linear(64, 32))
            self.top = torch.nn.Sequential(torch.nn.Linear(32 * 5, 64), torch.nn.ReLU(), torch.nn.Linear(64, 1))

        def forward(self, dense, indices, offsets):
            pooled = [t(indices[i], offsets) for i, t in enumerate(self.tables)]
            return self.top(torch.cat([self.bottom(dense)] + pooled, dim=1))

    model = Rec()
    bag = 10  # ids per bag: the index count grows with the batch
    dense = torch.randn(b, 13)
    indices = [torch.randint(0, 5000, (b * bag,)) for _ in range(4)]
    offsets = torch.arange(0, b * bag, bag)
    labels = torch.rand(b, 1)
    return _step(model, torch.optim.SGD(model.parameters(), lr=0.01), (dense, indices, offsets),
                 lambda out: torch.nn.functional.binary_cross_entropy_with_logits(out, labels))

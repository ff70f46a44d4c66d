"""Training steps mimic's built-in workloads do not cover, for bench/replay_heldout.py.

Each function returns a step callable, as `mimic record --script bench/heldout_models.py:NAME`
wants. They are here to check that the replay holds on models it was not tuned on: the op mix
(depthwise, transposed and dilated 1-D convs, LSTM, nn.GRU and GRU cells unrolled in Python,
causal attention with a -inf mask, nn.MultiheadAttention, layer and group norm, GELU, SiLU,
interpolate, index_select/index_add message passing, einsum, cumsum, label smoothing, gradient
clipping, a GAN's two optimizers) and the optimizers (SGD with weight decay or Nesterov, Adam,
AdamW, RMSprop, Adagrad) differ from the built-in workloads' (python/mimic_record/workloads).
Sizes keep each step at 1.5-70 ms on one core.
Their names are listed in benchlib/models.py (HELDOUT, and FEATURES for the steps at the end that
use a feature of PyTorch), which benches read without importing torch:
a step added here is added there too.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

torch.manual_seed(0)  # the same weights and data in every recording


def training_step(opt, loss_of, set_to_none=False, before_step=None):
    """A step callable: zero the gradients, loss_of() (the forward and the loss), backward,
    before_step() if given (gradient clipping), the optimizer's step."""

    def step():
        opt.zero_grad(set_to_none=set_to_none)
        loss = loss_of()
        loss.backward()
        if before_step is not None:
            before_step()
        opt.step()
    return step


class Basic(nn.Module):
    def __init__(self, cin, cout, stride):
        super().__init__()
        self.c1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.b1 = nn.BatchNorm2d(cout)
        self.c2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.b2 = nn.BatchNorm2d(cout)
        self.down = None
        if stride != 1 or cin != cout:
            self.down = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        y = F.relu(self.b1(self.c1(x)), inplace=True)
        y = self.b2(self.c2(y))
        return F.relu(y + (self.down(x) if self.down is not None else x))


def resnet18():
    w = 16
    layers = [nn.Conv2d(3, w, 7, 2, 3, bias=False), nn.BatchNorm2d(w), nn.ReLU(inplace=True), nn.MaxPool2d(3, 2, 1)]
    cin = w
    for i, c in enumerate([w, 2 * w, 4 * w, 8 * w]):
        layers += [Basic(cin, c, 1 if i == 0 else 2), Basic(c, c, 1)]
        cin = c
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Linear(cin, 100)]
    model = nn.Sequential(*layers)
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9, weight_decay=1e-4)
    x = torch.randn(8, 3, 64, 64)
    y = torch.randint(0, 100, (8,))

    return training_step(opt, lambda: F.cross_entropy(model(x), y))


class InvRes(nn.Module):
    def __init__(self, cin, cout, stride, expand):
        super().__init__()
        h = cin * expand
        self.use_res = stride == 1 and cin == cout
        self.body = nn.Sequential(
            nn.Conv2d(cin, h, 1, bias=False), nn.BatchNorm2d(h), nn.ReLU6(inplace=True),
            nn.Conv2d(h, h, 3, stride, 1, groups=h, bias=False), nn.BatchNorm2d(h), nn.ReLU6(inplace=True),
            nn.Conv2d(h, cout, 1, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        return x + self.body(x) if self.use_res else self.body(x)


def mobilenet():
    layers = [nn.Conv2d(3, 16, 3, 2, 1, bias=False), nn.BatchNorm2d(16), nn.Hardswish()]
    cfg = [(16, 16, 1, 1), (16, 24, 2, 4), (24, 24, 1, 4), (24, 40, 2, 4), (40, 40, 1, 4), (40, 80, 2, 4)]
    for cin, cout, s, e in cfg:
        layers.append(InvRes(cin, cout, s, e))
    layers += [nn.AdaptiveAvgPool2d(1), nn.Flatten(), nn.Dropout(0.2), nn.Linear(80, 10)]
    model = nn.Sequential(*layers)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    x = torch.randn(8, 3, 64, 64)
    y = torch.randint(0, 10, (8,))

    return training_step(opt, lambda: F.cross_entropy(model(x), y, label_smoothing=0.1), set_to_none=True)


class Block(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.qkv = nn.Linear(d, 3 * d)
        self.proj = nn.Linear(d, d)
        self.ln2 = nn.LayerNorm(d)
        self.fc = nn.Linear(d, 4 * d)
        self.out = nn.Linear(4 * d, d)
        self.heads = heads
        self.drop = nn.Dropout(0.1)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.ln1(x)).split(d, dim=2)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / (d // self.heads) ** 0.5)
        mask = torch.ones(t, t, dtype=torch.bool).tril()
        att = att.masked_fill(~mask, float("-inf"))
        att = self.drop(F.softmax(att, dim=-1))
        y = (att @ v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.proj(y)
        return x + self.drop(self.out(F.gelu(self.fc(self.ln2(x)))))


def gpt():
    return gpt_decoder(vocab=500, d=64, t=32, layers=2, heads=4, batch=4)


def gpt_decoder(vocab, d, t, layers, heads, batch):
    """A GPT-style decoder's training step with AdamW and gradient clipping (bench/big_models.py
    builds GPT-2-large's shape with it)."""
    emb = nn.Embedding(vocab, d)
    pos = nn.Parameter(torch.zeros(1, t, d))
    blocks = nn.Sequential(*[Block(d, heads) for _ in range(layers)])
    head = nn.Linear(d, vocab, bias=False)
    lnf = nn.LayerNorm(d)
    params = list(emb.parameters()) + [pos] + list(blocks.parameters()) + list(head.parameters()) + list(lnf.parameters())
    opt = torch.optim.AdamW(params, lr=3e-4)
    idx = torch.randint(0, vocab, (batch, t))
    tgt = torch.randint(0, vocab, (batch, t))

    def loss_of():
        logits = head(lnf(blocks(emb(idx) + pos)))
        return F.cross_entropy(logits.view(-1, vocab), tgt.view(-1))
    return training_step(opt, loss_of, set_to_none=True, before_step=lambda: torch.nn.utils.clip_grad_norm_(params, 1.0))


def lstm_lm():
    vocab, d = 1000, 128
    emb = nn.Embedding(vocab, d)
    rnn = nn.LSTM(d, d, num_layers=2, batch_first=True)
    head = nn.Linear(d, vocab)
    params = list(emb.parameters()) + list(rnn.parameters()) + list(head.parameters())
    opt = torch.optim.SGD(params, lr=0.1)
    idx = torch.randint(0, vocab, (8, 20))
    tgt = torch.randint(0, vocab, (8, 20))

    def loss_of():
        out, _ = rnn(emb(idx))
        return F.cross_entropy(head(out).reshape(-1, vocab), tgt.reshape(-1))
    return training_step(opt, loss_of)


def gru_seq():
    # A GRU cell unrolled by hand: many small ops, as a hand-written RNN has.
    d = 64
    cell = nn.GRUCell(d, d)
    head = nn.Linear(d, 1)
    opt = torch.optim.RMSprop(list(cell.parameters()) + list(head.parameters()), lr=1e-3)
    xs = torch.randn(16, 12, d)
    y = torch.randn(16, 1)

    def loss_of():
        h = torch.zeros(16, d)
        for t in range(xs.shape[1]):
            h = cell(xs[:, t], h)
        return F.mse_loss(head(h), y)
    return training_step(opt, loss_of)


def unet():
    # Encoder-decoder with transposed convs, interpolate, cat, group norm, sigmoid + BCE.
    class Net(nn.Module):
        def __init__(self):
            super().__init__()
            self.e1 = nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.GroupNorm(4, 16), nn.SiLU())
            self.e2 = nn.Sequential(nn.Conv2d(16, 32, 3, stride=2, padding=1), nn.GroupNorm(4, 32), nn.SiLU())
            self.up = nn.ConvTranspose2d(32, 16, 2, stride=2)
            self.d1 = nn.Sequential(nn.Conv2d(32, 16, 3, padding=1), nn.LeakyReLU(0.1))
            self.out = nn.Conv2d(16, 1, 1)

        def forward(self, x):
            a = self.e1(x)
            b = self.e2(a)
            u = self.up(b) + F.interpolate(b[:, :16], scale_factor=2, mode="bilinear", align_corners=False)
            return self.out(self.d1(torch.cat([a, u], dim=1)))

    model = Net()
    opt = torch.optim.Adagrad(model.parameters(), lr=1e-2)
    x = torch.randn(4, 1, 32, 32)
    y = (torch.rand(4, 1, 32, 32) > 0.5).float()

    return training_step(opt, lambda: F.binary_cross_entropy_with_logits(model(x), y))



class VitBlock(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.n1 = nn.LayerNorm(d)
        self.attn = nn.MultiheadAttention(d, heads, batch_first=True)
        self.n2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(), nn.Linear(4 * d, d))

    def forward(self, x):
        h = self.n1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.n2(x))


def vit():
    # Patches from a strided conv, a class token, nn.MultiheadAttention, AdamW with clipping.
    d, patch = 128, 8
    embed = nn.Conv2d(3, d, patch, patch)
    cls = nn.Parameter(torch.zeros(1, 1, d))
    pos = nn.Parameter(torch.randn(1, 17, d) * 0.02)
    blocks = nn.Sequential(*[VitBlock(d, 4) for _ in range(3)])
    head = nn.Linear(d, 10)
    params = list(embed.parameters()) + list(blocks.parameters()) + list(head.parameters()) + [cls, pos]
    opt = torch.optim.AdamW(params, lr=1e-3)
    x = torch.randn(16, 3, 32, 32)
    y = torch.randint(0, 10, (16,))

    def loss_of():
        t = embed(x).flatten(2).transpose(1, 2)
        t = blocks(torch.cat([cls.expand(t.shape[0], -1, -1), t], 1) + pos)
        return F.cross_entropy(head(t[:, 0]), y, label_smoothing=0.1)
    return training_step(opt, loss_of, before_step=lambda: torch.nn.utils.clip_grad_norm_(params, 1.0))


def tcn():
    # Dilated 1-D convolutions, group norm, SiLU, dropout, a smooth L1 regression, Adam.
    layers, c = [], 16
    for i, dilation in enumerate([1, 2, 4, 8]):
        layers += [nn.Conv1d(c if i else 8, 2 * c, 3, padding=dilation, dilation=dilation), nn.GroupNorm(4, 2 * c),
                   nn.SiLU(), nn.Dropout(0.1)]
        c *= 2
    body = nn.Sequential(*layers)
    out = nn.Linear(c, 1)
    opt = torch.optim.Adam(list(body.parameters()) + list(out.parameters()), lr=1e-3)
    x = torch.randn(32, 8, 128)
    y = torch.randn(32, 1)

    return training_step(opt, lambda: F.smooth_l1_loss(out(body(x).mean(-1)), y))


def dcgan():
    # A GAN's step: transposed-conv generator, conv discriminator, two Adam optimizers, detach.
    g = nn.Sequential(nn.ConvTranspose2d(32, 64, 4, 1, 0, bias=False), nn.BatchNorm2d(64), nn.ReLU(True),
                      nn.ConvTranspose2d(64, 32, 4, 2, 1, bias=False), nn.BatchNorm2d(32), nn.ReLU(True),
                      nn.ConvTranspose2d(32, 3, 4, 2, 1, bias=False), nn.Tanh())
    d = nn.Sequential(nn.Conv2d(3, 32, 4, 2, 1), nn.LeakyReLU(0.2, True),
                      nn.Conv2d(32, 64, 4, 2, 1, bias=False), nn.BatchNorm2d(64), nn.LeakyReLU(0.2, True),
                      nn.Conv2d(64, 1, 4, 1, 0), nn.Flatten())
    opt_g = torch.optim.Adam(g.parameters(), lr=2e-4, betas=(0.5, 0.999))
    opt_d = torch.optim.Adam(d.parameters(), lr=2e-4, betas=(0.5, 0.999))
    z = torch.randn(16, 32, 1, 1)
    real = torch.randn(16, 3, 16, 16)
    ones, zeros = torch.ones(16, 1), torch.zeros(16, 1)

    def step():
        opt_d.zero_grad()
        fake = g(z)
        loss_d = F.binary_cross_entropy_with_logits(d(real), ones) + F.binary_cross_entropy_with_logits(d(fake.detach()), zeros)
        loss_d.backward()
        opt_d.step()
        opt_g.zero_grad()
        F.binary_cross_entropy_with_logits(d(fake), ones).backward()
        opt_g.step()
    return step


def gnn():
    # Message passing over an edge list: index_select, index_add, degree normalisation, RMSprop.
    nodes, edges, f = 2000, 10000, 64
    src = torch.randint(0, nodes, (edges,))
    dst = torch.randint(0, nodes, (edges,))
    emb = nn.Embedding(nodes, f)
    w1, w2 = nn.Linear(f, f), nn.Linear(f, 16)
    opt = torch.optim.RMSprop(list(emb.parameters()) + list(w1.parameters()) + list(w2.parameters()), lr=1e-3)
    y = torch.randint(0, 16, (nodes,))
    degree = torch.zeros(nodes).index_add_(0, dst, torch.ones(edges)).clamp_(min=1).unsqueeze(1)

    def conv(h, lin):
        messages = lin(h).index_select(0, src)
        return torch.zeros(nodes, messages.shape[1]).index_add(0, dst, messages) / degree

    return training_step(opt, lambda: F.nll_loss(F.log_softmax(conv(F.relu(conv(emb.weight, w1)), w2), -1), y))


def seq2seq():
    # nn.GRU encoder and decoder, padding index, ignore_index, Adagrad with clipping.
    vocab, d = 500, 96
    emb = nn.Embedding(vocab, d, padding_idx=0)
    enc = nn.GRU(d, d, batch_first=True)
    dec = nn.GRU(d, d, batch_first=True)
    out = nn.Linear(d, vocab)
    params = [p for m in (emb, enc, dec, out) for p in m.parameters()]
    opt = torch.optim.Adagrad(params, lr=0.01)
    src = torch.randint(1, vocab, (16, 20))
    tgt = torch.randint(0, vocab, (16, 15))

    def loss_of():
        _, h = enc(emb(src))
        o, _ = dec(emb(tgt), h)
        return F.cross_entropy(out(o).reshape(-1, vocab), tgt.reshape(-1), ignore_index=0)
    return training_step(opt, loss_of, before_step=lambda: torch.nn.utils.clip_grad_norm_(params, 5.0))


def mixer():
    # Token and channel mixing by einsum, masked_fill, cumsum pooling, Nesterov SGD.
    d, t = 64, 32
    mix_t = nn.Parameter(torch.randn(t, t) * 0.1)
    mix_c = nn.Parameter(torch.randn(d, d) * 0.1)
    head = nn.Linear(d, 4)
    opt = torch.optim.SGD([mix_t, mix_c] + list(head.parameters()), lr=0.01, momentum=0.9, nesterov=True)
    x = torch.randn(32, t, d)
    mask = torch.rand(32, t) > 0.2
    y = torch.randint(0, 4, (32,))

    def loss_of():
        h = x + torch.einsum("btd,ts->bsd", x, mix_t)
        h = h + torch.einsum("btd,de->bte", F.gelu(h), mix_c)
        pooled = h.masked_fill(~mask.unsqueeze(-1), 0.0).cumsum(1)[:, -1] / mask.sum(1, keepdim=True)
        return F.cross_entropy(head(pooled), y)
    return training_step(opt, loss_of)


# Steps that use a feature of PyTorch rather than a new op mix: each once failed to replay
# whole (ops skipped or a dense stand-in for a sparse tensor). Listed as FEATURES in
# benchlib/models.py.

def dlrm_sparse():
    # The reference DLRM's set-up: EmbeddingBag(sparse=True) tables, whose gradients are sparse
    # COO tensors, and plain SGD, whose update of a table touches only the looked-up rows.
    bags = nn.ModuleList([nn.EmbeddingBag(50000, 32, mode="sum", sparse=True) for _ in range(6)])
    bottom = nn.Sequential(nn.Linear(13, 64), nn.ReLU(), nn.Linear(64, 32), nn.ReLU())
    top = nn.Sequential(nn.Linear(32 * 7, 64), nn.ReLU(), nn.Linear(64, 1))
    opt = torch.optim.SGD([p for m in (bags, bottom, top) for p in m.parameters()], lr=0.01)
    indices = [torch.randint(0, 50000, (512,)) for _ in range(6)]
    offsets = torch.arange(0, 512, 2)
    dense, y = torch.randn(256, 13), torch.rand(256, 1)

    def loss_of():
        z = torch.cat([bottom(dense)] + [b(i, offsets) for b, i in zip(bags, indices)], 1)
        return F.binary_cross_entropy_with_logits(top(z), y)
    return training_step(opt, loss_of)


def autocast_mlp():
    # A bfloat16 forward under torch.autocast("cpu"): the linears run on cast copies of their
    # float inputs and weights, the backward's GEMMs in bfloat16.
    model = nn.Sequential(nn.Linear(256, 512), nn.GELU(), nn.Linear(512, 256), nn.GELU(), nn.Linear(256, 10))
    opt = torch.optim.SGD(model.parameters(), lr=0.01, momentum=0.9)
    x, y = torch.randn(128, 256), torch.randint(0, 10, (128,))

    def loss_of():
        with torch.autocast("cpu", dtype=torch.bfloat16):
            return F.cross_entropy(model(x), y)
    return training_step(opt, loss_of)


def bilstm_packed():
    # Sequences of different lengths packed (pack_padded_sequence) through a 2-layer
    # bidirectional LSTM: the packed data and batch sizes depend on the lengths' values.
    emb = nn.Embedding(5000, 64)
    lstm = nn.LSTM(64, 96, num_layers=2, bidirectional=True, batch_first=True)
    head = nn.Linear(192, 7)
    opt = torch.optim.RMSprop([p for m in (emb, lstm, head) for p in m.parameters()], lr=1e-3)
    lengths = torch.randint(5, 40, (16,)).sort(descending=True).values
    tokens, y = torch.randint(0, 5000, (16, 40)), torch.randint(0, 7, (16,))

    def loss_of():
        _, (h, _) = lstm(nn.utils.rnn.pack_padded_sequence(emb(tokens), lengths, batch_first=True))
        return F.cross_entropy(head(torch.cat([h[-2], h[-1]], 1)), y)
    return training_step(opt, loss_of)


def vae():
    # A convolutional VAE: transposed convolutions, randn_like sampling, and a loss that mixes
    # tensors with Python numbers (wrapped as 0-d double tensors).
    encoder = nn.Sequential(nn.Conv2d(1, 16, 4, 2, 1), nn.LeakyReLU(0.2), nn.Conv2d(16, 32, 4, 2, 1),
                            nn.LeakyReLU(0.2), nn.Flatten())
    mu, log_var, expand = nn.Linear(32 * 49, 20), nn.Linear(32 * 49, 20), nn.Linear(20, 32 * 49)
    decoder = nn.Sequential(nn.ConvTranspose2d(32, 16, 4, 2, 1), nn.ReLU(), nn.ConvTranspose2d(16, 1, 4, 2, 1))
    opt = torch.optim.Adam([p for m in (encoder, mu, log_var, expand, decoder) for p in m.parameters()], lr=1e-3)
    x = torch.rand(64, 1, 28, 28)

    def loss_of():
        h = encoder(x)
        m, lv = mu(h), log_var(h)
        z = m + torch.randn_like(m) * torch.exp(0.5 * lv)
        reconstruction = decoder(expand(z).view(-1, 32, 7, 7))
        kl = -0.5 * torch.sum(1 + lv - m.pow(2) - lv.exp())
        return F.binary_cross_entropy_with_logits(reconstruction, x, reduction="sum") + kl
    return training_step(opt, loss_of)


def quantized_lstm():
    # Inference on a model quantized with quantize_dynamic: int8 LSTM layers and a linear head.
    # Their weights are prepacked once, outside the step, into objects an ET records only as
    # "<Object>" (LinearPackedParamsBase, CellParamsBase[]); the replay rebuilds them.
    model = nn.ModuleDict({"lstm": nn.LSTM(64, 128, num_layers=2, batch_first=True), "head": nn.Linear(128, 5)})
    quantized = torch.quantization.quantize_dynamic(model, {nn.LSTM, nn.Linear}, dtype=torch.qint8)
    x = torch.randn(8, 20, 64)

    def step():
        with torch.no_grad():
            h, _ = quantized["lstm"](x)
            quantized["head"](h[:, -1])
    return step


def spectral_adam():
    # Fourier layers with complex weights (rfft2, a complex einsum, irfft2) trained with Adam.
    # The einsum's backward conjugates the weight lazily (a conjugate bit on the weight's
    # storage) and Adam views the plain weight as real.
    class Spectral(nn.Module):
        def __init__(self, channels, modes):
            super().__init__()
            self.modes = modes
            self.weight = nn.Parameter(torch.randn(channels, channels, modes, modes, dtype=torch.cfloat) / channels)

        def forward(self, x):
            m = self.modes
            xf = torch.fft.rfft2(x)
            out = torch.zeros(x.shape[0], x.shape[1], x.shape[2], x.shape[3] // 2 + 1, dtype=torch.cfloat)
            out[:, :, :m, :m] = torch.einsum("bixy,ioxy->boxy", xf[:, :, :m, :m], self.weight)
            return torch.fft.irfft2(out, s=x.shape[-2:])
    lift, s1, s2, proj = nn.Conv2d(3, 16, 1), Spectral(16, 8), Spectral(16, 8), nn.Conv2d(16, 1, 1)
    opt = torch.optim.Adam([p for m in (lift, s1, s2, proj) for p in m.parameters()], lr=1e-3)
    x, y = torch.randn(8, 3, 32, 32), torch.randn(8, 1, 32, 32)

    def loss_of():
        h = lift(x)
        h = F.gelu(s1(h) + h)
        h = F.gelu(s2(h) + h)
        return F.mse_loss(proj(h), y)
    return training_step(opt, loss_of)


class SqueezeExcite(nn.Module):
    def __init__(self, channels):
        super().__init__()
        self.reduce, self.expand = nn.Conv2d(channels, channels // 4, 1), nn.Conv2d(channels // 4, channels, 1)

    def forward(self, x):
        return x * F.hardsigmoid(self.expand(F.relu(self.reduce(F.adaptive_avg_pool2d(x, 1)))))


def channels_last_seg():
    # A MobileNetV3-style segmentation step moved to channels-last (model and input), as
    # PyTorch advises for CNNs on CPUs: a 1.13 ET records no strides, and instance norm,
    # the convolutions and their backward convert between the two layouts inside the step.
    encoder = nn.Sequential(nn.Conv2d(3, 16, 3, 2, 1), nn.InstanceNorm2d(16, affine=True), nn.Hardswish(),
                            nn.Conv2d(16, 16, 3, 1, 1, groups=16), SqueezeExcite(16), nn.Hardswish(),
                            nn.Conv2d(16, 32, 3, 2, 1), nn.InstanceNorm2d(32, affine=True), nn.Hardswish())
    head = nn.Conv2d(32, 4, 1)
    encoder, head = encoder.to(memory_format=torch.channels_last), head.to(memory_format=torch.channels_last)
    opt = torch.optim.SGD([p for m in (encoder, head) for p in m.parameters()], lr=0.01, momentum=0.9, nesterov=True)
    x = torch.randn(8, 3, 64, 64).to(memory_format=torch.channels_last)
    y = torch.randint(0, 4, (8, 64, 64))

    def loss_of():
        logits = F.interpolate(head(encoder(x)), scale_factor=4, mode="bilinear", align_corners=True)
        return F.cross_entropy(logits, y) + 0.1 * F.adaptive_max_pool2d(logits, 8).square().mean()
    return training_step(opt, loss_of)

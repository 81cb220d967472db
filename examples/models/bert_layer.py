"""A BERT-base encoder layer (Devlin et al.; Hugging Face's BertLayer
layout) in plain PyTorch, in eval mode: self-attention over a padded batch
(an additive mask built from the attention mask, as BERT's extended
attention mask), post-norm residuals and a GELU feed-forward block.

    build/bin/strata compile --file examples/models/bert_layer.py --emit ptx --report
    STRATA_MODEL_SIZE=small build/bin/strata run --file examples/models/bert_layer.py

Real size: 8 sequences of 512 tokens, width 768, 12 heads, feed-forward
3072. Small: 2 sequences of 11 tokens, width 48, 3 heads, feed-forward 96.
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class BertLayer(nn.Module):
    def __init__(self, dim=768, heads=12, hidden=3072):
        super().__init__()
        self.heads = heads
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.attention_output = nn.Linear(dim, dim)
        self.attention_norm = nn.LayerNorm(dim, eps=1e-12)
        self.intermediate = nn.Linear(dim, hidden)
        self.output = nn.Linear(hidden, dim)
        self.output_norm = nn.LayerNorm(dim, eps=1e-12)

    def forward(self, x, attention_mask):
        b, t, d = x.shape
        head_dim = d // self.heads

        def heads(y):
            return y.view(b, t, self.heads, head_dim).permute(0, 2, 1, 3)

        q, k, v = heads(self.query(x)), heads(self.key(x)), heads(self.value(x))
        extended = (1.0 - attention_mask[:, None, None, :].to(x.dtype)) * torch.finfo(x.dtype).min
        scores = q @ k.transpose(-1, -2) / math.sqrt(head_dim) + extended
        context = (F.softmax(scores, dim=-1) @ v).permute(0, 2, 1, 3).reshape(b, t, d)
        x = self.attention_norm(self.attention_output(context) + x)
        return self.output_norm(self.output(F.gelu(self.intermediate(x))) + x)


def build(size):
    """The layer (eval mode) and its inputs (hidden states and a 0/1
    attention mask, the last tokens of some sequences padding) at `size`,
    "real" or "small"."""
    torch.manual_seed(0)
    if size == "small":
        layer, (b, t, d) = BertLayer(dim=48, heads=3, hidden=96), (2, 11, 48)
    else:
        layer, (b, t, d) = BertLayer(), (8, 512, 768)
    lengths = torch.randint(t // 2, t + 1, (b,))
    mask = (torch.arange(t)[None, :] < lengths[:, None]).long()
    return layer.eval(), (torch.randn(b, t, d), mask)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

"""GPT-2 small (Radford et al.; Hugging Face's GPT2LMHeadModel layout) in
plain PyTorch, in eval mode: token and position embeddings, 12 pre-norm
blocks (causal self-attention with a fused QKV projection, GELU (tanh) MLP),
the final layer norm and the language-model head tied to the token
embedding.

    build/bin/strata compile --file examples/models/gpt2_small.py --emit ptx --report
    STRATA_MODEL_SIZE=small build/bin/strata run --file examples/models/gpt2_small.py

Real size: one sequence of 1024 tokens, vocabulary 50257, width 768, 12
blocks of 12 heads. Small: vocabulary 97, width 48, 2 blocks of 3 heads,
13 tokens.
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class Attention(nn.Module):
    def __init__(self, dim, heads, context):
        super().__init__()
        self.heads = heads
        self.c_attn = nn.Linear(dim, 3 * dim)
        self.c_proj = nn.Linear(dim, dim)
        self.register_buffer("bias", torch.tril(torch.ones(context, context, dtype=torch.bool)))

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.c_attn(x).split(d, dim=2)
        q, k, v = (y.view(b, t, self.heads, d // self.heads).transpose(1, 2)
                   for y in (q, k, v))
        scores = q @ k.transpose(-2, -1) / math.sqrt(d // self.heads)
        scores = scores.masked_fill(~self.bias[:t, :t], float("-inf"))
        y = F.softmax(scores, dim=-1) @ v
        return self.c_proj(y.transpose(1, 2).contiguous().view(b, t, d))


class Block(nn.Module):
    def __init__(self, dim, heads, context):
        super().__init__()
        self.ln_1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, context)
        self.ln_2 = nn.LayerNorm(dim)
        self.c_fc = nn.Linear(dim, 4 * dim)
        self.c_proj = nn.Linear(4 * dim, dim)

    def forward(self, x):
        x = x + self.attn(self.ln_1(x))
        return x + self.c_proj(F.gelu(self.c_fc(self.ln_2(x)), approximate="tanh"))


class GPT2(nn.Module):
    def __init__(self, vocab=50257, context=1024, dim=768, depth=12, heads=12):
        super().__init__()
        self.wte = nn.Embedding(vocab, dim)
        self.wpe = nn.Embedding(context, dim)
        self.h = nn.ModuleList(Block(dim, heads, context) for _ in range(depth))
        self.ln_f = nn.LayerNorm(dim)
        self.lm_head = nn.Linear(dim, vocab, bias=False)
        self.lm_head.weight = self.wte.weight

    def forward(self, ids):
        positions = torch.arange(ids.shape[1], device=ids.device)
        x = self.wte(ids) + self.wpe(positions)
        for block in self.h:
            x = block(x)
        return self.lm_head(self.ln_f(x))


def build(size):
    """The model (eval mode) and its inputs (token ids) at `size`, "real"
    or "small"."""
    torch.manual_seed(0)
    if size == "small":
        model = GPT2(vocab=97, context=16, dim=48, depth=2, heads=3)
        return model.eval(), (torch.randint(0, 97, (2, 13)),)
    return GPT2().eval(), (torch.randint(0, 50257, (1, 1024)),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

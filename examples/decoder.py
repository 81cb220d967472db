"""A small pre-norm decoder block: RMSNorm, causal self-attention written
with matmul, softmax and a -inf triu mask, and a SwiGLU MLP.

    build/bin/strata compile --file examples/decoder.py --emit tensor
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-6):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.randn(dim))

    def forward(self, x):
        return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + self.eps) * self.weight


class DecoderBlock(nn.Module):
    def __init__(self, dim=64, heads=4, hidden=172):
        super().__init__()
        self.heads = heads
        self.attn_norm = RMSNorm(dim)
        self.qkv = nn.Linear(dim, 3 * dim, bias=False)
        self.out = nn.Linear(dim, dim, bias=False)
        self.mlp_norm = RMSNorm(dim)
        self.gate = nn.Linear(dim, hidden, bias=False)
        self.up = nn.Linear(dim, hidden, bias=False)
        self.down = nn.Linear(hidden, dim, bias=False)

    def forward(self, x):
        b, t, d = x.shape
        h = self.attn_norm(x)
        q, k, v = self.qkv(h).split(d, dim=-1)
        q = q.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        k = k.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        v = v.view(b, t, self.heads, d // self.heads).transpose(1, 2)
        scores = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(d // self.heads)
        mask = torch.triu(torch.full((t, t), float("-inf"), dtype=scores.dtype,
                                     device=x.device), diagonal=1)
        attn = F.softmax(scores + mask, dim=-1)
        y = torch.matmul(attn, v).transpose(1, 2).contiguous().view(b, t, d)
        x = x + self.out(y)
        h = self.mlp_norm(x)
        return x + self.down(F.silu(self.gate(h)) * self.up(h))


torch.manual_seed(0)
model = DecoderBlock()
inputs = (torch.randn(2, 13, 64),)

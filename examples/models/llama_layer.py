"""A Llama decoder layer (Touvron et al.; Llama-2-7B's shape, with
grouped-query attention as in later Llamas) in plain PyTorch: RMSNorm,
rotary position embeddings, grouped-query causal attention, and a SwiGLU
MLP, in bfloat16 at real size.

    build/bin/strata compile --file examples/models/llama_layer.py --emit ptx --report
    STRATA_MODEL_SIZE=small build/bin/strata run --file examples/models/llama_layer.py

Real size: one sequence of 1024 tokens, width 4096, 32 query heads sharing
8 key/value heads (head dimension 128), MLP 11008, bfloat16. Small: width
64, 4 query heads sharing 2 key/value heads, MLP 172, 13 tokens, float32.
"""
import math
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class RMSNorm(nn.Module):
    def __init__(self, dim, eps=1e-5):
        super().__init__()
        self.eps = eps
        self.weight = nn.Parameter(torch.ones(dim))

    def forward(self, x):
        variance = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(variance + self.eps)).to(x.dtype) * self.weight


def rotate_half(x):
    a, b = x.chunk(2, dim=-1)
    return torch.cat((-b, a), dim=-1)


class LlamaLayer(nn.Module):
    def __init__(self, dim=4096, heads=32, kv_heads=8, hidden=11008, context=4096,
                 theta=10000.0):
        super().__init__()
        self.heads, self.kv_heads, self.head_dim = heads, kv_heads, dim // heads
        self.input_layernorm = RMSNorm(dim)
        self.q_proj = nn.Linear(dim, dim, bias=False)
        self.k_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.v_proj = nn.Linear(dim, kv_heads * self.head_dim, bias=False)
        self.o_proj = nn.Linear(dim, dim, bias=False)
        self.post_attention_layernorm = RMSNorm(dim)
        self.gate_proj = nn.Linear(dim, hidden, bias=False)
        self.up_proj = nn.Linear(dim, hidden, bias=False)
        self.down_proj = nn.Linear(hidden, dim, bias=False)
        inv_freq = 1.0 / theta ** (torch.arange(0, self.head_dim, 2).float() / self.head_dim)
        angles = torch.outer(torch.arange(context).float(), inv_freq)
        angles = torch.cat((angles, angles), dim=-1)
        self.register_buffer("cos", angles.cos())
        self.register_buffer("sin", angles.sin())

    def forward(self, x):
        b, t, d = x.shape
        h = self.input_layernorm(x)
        q = self.q_proj(h).view(b, t, self.heads, self.head_dim).transpose(1, 2)
        k = self.k_proj(h).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        v = self.v_proj(h).view(b, t, self.kv_heads, self.head_dim).transpose(1, 2)
        cos, sin = self.cos[:t].to(x.dtype), self.sin[:t].to(x.dtype)
        q = q * cos + rotate_half(q) * sin
        k = k * cos + rotate_half(k) * sin
        group = self.heads // self.kv_heads
        k = k[:, :, None].expand(b, self.kv_heads, group, t, self.head_dim).reshape(
            b, self.heads, t, self.head_dim)
        v = v[:, :, None].expand(b, self.kv_heads, group, t, self.head_dim).reshape(
            b, self.heads, t, self.head_dim)
        scores = q @ k.transpose(2, 3) / math.sqrt(self.head_dim)
        mask = torch.full((t, t), float("-inf"), device=x.device).triu(1)
        attn = F.softmax(scores.float() + mask, dim=-1).to(x.dtype)
        y = (attn @ v).transpose(1, 2).reshape(b, t, d)
        x = x + self.o_proj(y)
        h = self.post_attention_layernorm(x)
        return x + self.down_proj(F.silu(self.gate_proj(h)) * self.up_proj(h))


def build(size):
    """The layer (eval mode, random weights) and its input at `size`,
    "real" (bfloat16) or "small" (float32)."""
    torch.manual_seed(0)
    if size == "small":
        layer = LlamaLayer(dim=64, heads=4, kv_heads=2, hidden=172, context=16)
        with torch.no_grad():
            for norm in (layer.input_layernorm, layer.post_attention_layernorm):
                norm.weight.uniform_(0.5, 1.5)
        return layer.eval(), (torch.randn(2, 13, 64),)
    layer = LlamaLayer().to(torch.bfloat16).eval()
    return layer, (torch.randn(1, 1024, 4096, dtype=torch.bfloat16),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

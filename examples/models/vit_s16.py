"""ViT-S/16 (Dosovitskiy et al.; DeiT-S's shape) in plain PyTorch, in eval
mode: 16 x 16 patches embedded by a strided convolution, a class token and
learned positions, pre-norm encoder blocks (nn.MultiheadAttention, GELU
MLP), and the classifier on the class token.

    build/bin/strata compile --file examples/models/vit_s16.py --emit ptx --report
    STRATA_MODEL_SIZE=small build/bin/strata run --file examples/models/vit_s16.py

Real size: batch 8 of 224 x 224 images (196 patches and the class token),
width 384, 12 blocks of 6 heads, MLP 1536, 1000 classes. Small: width 48,
2 blocks of 3 heads on 2 images of 48 x 32.
"""
import os

import torch
import torch.nn as nn


class Block(nn.Module):
    def __init__(self, dim, heads, hidden):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim, eps=1e-6)
        self.attn = nn.MultiheadAttention(dim, heads, batch_first=True)
        self.norm2 = nn.LayerNorm(dim, eps=1e-6)
        self.mlp = nn.Sequential(nn.Linear(dim, hidden), nn.GELU(),
                                 nn.Linear(hidden, dim))

    def forward(self, x):
        h = self.norm1(x)
        x = x + self.attn(h, h, h, need_weights=False)[0]
        return x + self.mlp(self.norm2(x))


class VisionTransformer(nn.Module):
    def __init__(self, image=(224, 224), patch=16, dim=384, depth=12, heads=6,
                 hidden=1536, classes=1000):
        super().__init__()
        patches = (image[0] // patch) * (image[1] // patch)
        self.embed = nn.Conv2d(3, dim, patch, patch)
        self.cls = nn.Parameter(torch.randn(1, 1, dim) * 0.02)
        self.positions = nn.Parameter(torch.randn(1, patches + 1, dim) * 0.02)
        self.blocks = nn.Sequential(*[Block(dim, heads, hidden) for _ in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, classes)

    def forward(self, images):
        x = self.embed(images).flatten(2).transpose(1, 2)
        x = torch.cat([self.cls.expand(x.shape[0], -1, -1), x], dim=1)
        x = self.blocks(x + self.positions)
        return self.head(self.norm(x)[:, 0])


def build(size):
    """The model (eval mode) and its inputs at `size`, "real" or "small"."""
    torch.manual_seed(0)
    if size == "small":
        return (VisionTransformer(image=(48, 32), dim=48, depth=2, heads=3,
                                  hidden=96, classes=10).eval(),
                (torch.randn(2, 3, 48, 32),))
    return VisionTransformer().eval(), (torch.randn(8, 3, 224, 224),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

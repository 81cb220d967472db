"""A UNet down block and up block (the shape of a diffusion model's UNet,
as in Hugging Face diffusers' UNet2DModel) in plain PyTorch, in eval mode:
residual blocks of group norm, SiLU and 3 x 3 convolutions, a strided
convolution down, nearest-neighbour upsampling and a convolution up, and
the skip connection concatenated on the way back.

    build/bin/strata compile --file examples/models/unet_block.py --emit ptx --report
    STRATA_MODEL_SIZE=small build/bin/strata run --file examples/models/unet_block.py

Real size: a batch of 4 feature maps of 128 channels at 64 x 64, down to
256 channels at 32 x 32 and back. Small: 8 channels at 12 x 10, 2 maps.
"""
import os

import torch
import torch.nn as nn
import torch.nn.functional as F


class ResnetBlock(nn.Module):
    def __init__(self, inputs, outputs, groups):
        super().__init__()
        self.norm1 = nn.GroupNorm(groups, inputs)
        self.conv1 = nn.Conv2d(inputs, outputs, 3, padding=1)
        self.norm2 = nn.GroupNorm(groups, outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, padding=1)
        self.shortcut = (nn.Conv2d(inputs, outputs, 1) if inputs != outputs
                         else nn.Identity())

    def forward(self, x):
        y = self.conv1(F.silu(self.norm1(x)))
        y = self.conv2(F.silu(self.norm2(y)))
        return self.shortcut(x) + y


class UNetBlocks(nn.Module):
    def __init__(self, channels=128, groups=32):
        super().__init__()
        self.down_resnet = ResnetBlock(channels, 2 * channels, groups)
        self.downsample = nn.Conv2d(2 * channels, 2 * channels, 3, stride=2, padding=1)
        self.mid = ResnetBlock(2 * channels, 2 * channels, groups)
        self.upsample = nn.Conv2d(2 * channels, 2 * channels, 3, padding=1)
        self.up_resnet = ResnetBlock(4 * channels, channels, groups)

    def forward(self, x):
        skip = self.down_resnet(x)
        h = self.mid(self.downsample(skip))
        h = self.upsample(F.interpolate(h, scale_factor=2.0, mode="nearest"))
        return self.up_resnet(torch.cat([h, skip], dim=1))


def build(size):
    """The blocks (eval mode) and their input at `size`, "real" or
    "small"."""
    torch.manual_seed(0)
    if size == "small":
        return UNetBlocks(channels=8, groups=4).eval(), (torch.randn(2, 8, 12, 10),)
    return UNetBlocks().eval(), (torch.randn(4, 128, 64, 64),)


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

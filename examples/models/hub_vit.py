"""timm's Vision Transformer (not written here), random weights.

    build/bin/strata compile --file examples/models/hub_vit.py --emit ptx --report

Real size: vit_small_patch16_224 (12 layers, width 384, 6 heads), 8 images
of 224 x 224. Small: the same family at 2 layers of width 192 over 8 x 8
patches of 2 images of 32 x 32, 10 classes. Needs `timm` (installed into
build/venv by tools/dev.sh).
"""
import os

import timm
import torch


def build(size):
    torch.manual_seed(0)
    if size == "small":
        model = timm.create_model("vit_tiny_patch16_224", pretrained=False,
                                  img_size=32, patch_size=8, depth=2,
                                  num_classes=10)
        inputs = (torch.randn(2, 3, 32, 32),)
    else:
        model = timm.create_model("vit_small_patch16_224", pretrained=False)
        inputs = (torch.randn(8, 3, 224, 224),)
    return model.eval(), inputs


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

"""torchvision's ConvNeXt-T (not written here), random weights: 7 x 7
depthwise convolutions, layer norms over the channels of NCHW tensors
(permuted), GELU, layer scale.

    build/bin/strata compile --file examples/models/hub_convnext.py --emit ptx --report

Real size: 1 image of 224 x 224 (batch 1), 1000 classes. Small: 1 image of
32 x 32, 10 classes. The layer scales (1e-6 at initialization, which
would hide every block behind its shortcut) are drawn from [0.5, 1.5].
Needs `torchvision` (installed into build/venv by tools/dev.sh).
"""
import os

import torch
import torchvision


def build(size):
    torch.manual_seed(0)
    if size == "small":
        model = torchvision.models.convnext_tiny(num_classes=10)
        inputs = (torch.randn(1, 3, 32, 32),)
    else:
        model = torchvision.models.convnext_tiny()
        inputs = (torch.randn(1, 3, 224, 224),)
    with torch.no_grad():
        for name, p in model.named_parameters():
            if name.endswith("layer_scale"):
                p.uniform_(0.5, 1.5)
    return model.eval(), inputs


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

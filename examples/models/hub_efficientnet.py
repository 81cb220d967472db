"""torchvision's EfficientNet-B0 (not written here), random weights, eval
mode (batch norm statistics randomized): depthwise convolutions,
squeeze-excitation gates, SiLU.

    build/bin/strata compile --file examples/models/hub_efficientnet.py --emit ptx --report

Real size: 1 image of 224 x 224 (batch 1, as it is deployed), 1000
classes. Small: 1 image of 32 x 32, 10 classes. Needs `torchvision`
(installed into build/venv by tools/dev.sh).
"""
import os

import torch
import torchvision


def build(size):
    torch.manual_seed(0)
    if size == "small":
        model = torchvision.models.efficientnet_b0(num_classes=10)
        inputs = (torch.randn(1, 3, 32, 32),)
    else:
        model = torchvision.models.efficientnet_b0()
        inputs = (torch.randn(1, 3, 224, 224),)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    return model.eval(), inputs


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

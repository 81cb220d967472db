"""torchvision's resnet18 (not written here), random weights, eval mode
(batch norm statistics randomized).

    build/bin/strata compile --file examples/models/hub_resnet18.py --emit ptx --report

Real size: 8 images of 224 x 224, 1000 classes. Small: 2 images of
37 x 35, 10 classes. Needs `torchvision` (installed into build/venv by
tools/dev.sh).
"""
import os

import torch
import torchvision


def build(size):
    torch.manual_seed(0)
    if size == "small":
        model = torchvision.models.resnet18(num_classes=10)
        inputs = (torch.randn(2, 3, 37, 35),)
    else:
        model = torchvision.models.resnet18()
        inputs = (torch.randn(8, 3, 224, 224),)
    for m in model.modules():
        if isinstance(m, torch.nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    return model.eval(), inputs


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

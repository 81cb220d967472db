"""ResNet-18 (He et al., torchvision's layout) in plain PyTorch, in eval
mode: 3x3 convolutions with batch norm and ReLU, residual shortcuts
(1x1 strided convolutions where the shape changes), max pooling, global
average pooling and the classifier.

    build/bin/strata compile --file examples/models/resnet18.py --emit ptx --report
    STRATA_MODEL_SIZE=small build/bin/strata run --file examples/models/resnet18.py

Real size: batch 8 of 224 x 224 images, 1000 classes. Small: the same
network 8 channels wide on 2 images of 38 x 35.
"""
import os

import torch
import torch.nn as nn


class BasicBlock(nn.Module):
    def __init__(self, inputs, outputs, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(inputs, outputs, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(outputs)
        self.conv2 = nn.Conv2d(outputs, outputs, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(outputs)
        self.relu = nn.ReLU()
        self.shortcut = nn.Identity()
        if stride != 1 or inputs != outputs:
            self.shortcut = nn.Sequential(
                nn.Conv2d(inputs, outputs, 1, stride, bias=False),
                nn.BatchNorm2d(outputs))

    def forward(self, x):
        y = self.relu(self.bn1(self.conv1(x)))
        y = self.bn2(self.conv2(y))
        return self.relu(y + self.shortcut(x))


class ResNet18(nn.Module):
    def __init__(self, width=64, classes=1000):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, width, 7, 2, 3, bias=False),
                                  nn.BatchNorm2d(width), nn.ReLU(),
                                  nn.MaxPool2d(3, 2, 1))
        layers, inputs = [], width
        for i, outputs in enumerate((width, 2 * width, 4 * width, 8 * width)):
            stride = 1 if i == 0 else 2
            layers += [BasicBlock(inputs, outputs, stride),
                       BasicBlock(outputs, outputs, 1)]
            inputs = outputs
        self.layers = nn.Sequential(*layers)
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(inputs, classes)

    def forward(self, x):
        x = self.pool(self.layers(self.stem(x)))
        return self.fc(torch.flatten(x, 1))


def build(size):
    """The model (eval mode, batch norm statistics randomized) and its
    inputs at `size`, "real" or "small"."""
    torch.manual_seed(0)
    if size == "small":
        model, inputs = ResNet18(width=8, classes=10), (torch.randn(2, 3, 38, 35),)
    else:
        model, inputs = ResNet18(), (torch.randn(8, 3, 224, 224),)
    for m in model.modules():
        if isinstance(m, nn.BatchNorm2d):
            m.running_mean.uniform_(-0.5, 0.5)
            m.running_var.uniform_(0.5, 1.5)
    return model.eval(), inputs


model, inputs = build(os.environ.get("STRATA_MODEL_SIZE", "real"))

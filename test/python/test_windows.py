"""Convolutions, pooling and unfolding: implicit GEMMs and window folds,
run on the CPU (fused loop kernels and emulated GPU kernels) and compared
with PyTorch on fresh random inputs of ragged sizes."""
import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from conftest import prepare
from strata.frontend import capture, import_program
from strata.runner import check


def randn(*shape, dtype=torch.float32):
    return (torch.randn(*shape) * 2 + 0.5).to(dtype)


# name -> (program, inputs)
PROGRAMS = {
    "conv2d_padding_bias": (lambda x, w, b: F.conv2d(x, w, b, padding=1),
                            lambda: (randn(2, 3, 9, 11), randn(16, 3, 3, 3), randn(16))),
    "conv2d_stride_dilation_groups": (
        lambda x, w: F.conv2d(x, w, stride=(2, 1), padding=(2, 1), dilation=(1, 2),
                              groups=2),
        lambda: (randn(3, 4, 13, 10), randn(6, 2, 3, 3))),
    "conv2d_depthwise": (lambda x, w, b: F.conv2d(x, w, b, stride=2, padding=1, groups=5),
                         lambda: (randn(2, 5, 12, 9), randn(10, 1, 3, 3), randn(10))),
    "conv1d_and_3d": (lambda x, w, v, u: (F.conv1d(x, w, padding=2, stride=3),
                                          F.conv3d(v, u, padding=(1, 0, 1))),
                      lambda: (randn(2, 3, 29), randn(7, 3, 5),
                               randn(1, 2, 5, 6, 7), randn(3, 2, 3, 2, 3))),
    "conv_same_padding": (lambda x, w: F.conv2d(x, w, padding="same"),
                          lambda: (randn(2, 3, 8, 9), randn(4, 3, 4, 3))),
    "conv_transpose": (lambda x, w, b, y, v: (
        F.conv_transpose2d(x, w, b, stride=2),
        F.conv_transpose2d(x, w, stride=(3, 2), padding=1, output_padding=(2, 1),
                           dilation=(1, 2)),
        F.conv_transpose1d(y, v, groups=2, stride=2, padding=2)),
        lambda: (randn(2, 6, 5, 7), randn(6, 4, 2, 3), randn(4),
                 randn(3, 4, 11), randn(4, 3, 5))),
    "max_pool": (lambda x: (F.max_pool2d(x, 3, 2, 1), F.max_pool2d(x, 2),
                            F.max_pool2d(x, (3, 2), (2, 3), (1, 0), ceil_mode=True),
                            F.max_pool2d(x, 3, 1, 1, dilation=2),
                            F.max_pool1d(x[0], 4, 3, ceil_mode=True)),
                 lambda: (randn(2, 3, 13, 11),)),
    # The argmax positions too (PyTorch's: first maximum, flat over the
    # input plane), for max_unpool and friends.
    "max_pool_indices": (lambda x: (F.max_pool2d(x, 3, 2, 1, return_indices=True),
                                    F.max_pool2d(x, (2, 3), ceil_mode=True,
                                                 return_indices=True)[1],
                                    F.max_pool1d(x[1], 3, 2, 1, dilation=2,
                                                 return_indices=True)),
                         lambda: (randn(2, 3, 13, 11),)),
    "avg_pool": (lambda x, v: (F.avg_pool2d(x, 3, 2, 1),
                               F.avg_pool2d(x, 3, 2, 1, count_include_pad=False),
                               F.avg_pool2d(x, (2, 3), ceil_mode=True),
                               F.avg_pool2d(x, 3, 2, 1, ceil_mode=True,
                                            count_include_pad=False),
                               F.avg_pool2d(x, 2, divisor_override=3),
                               F.avg_pool1d(x[0], 3, 2, 1),
                               F.avg_pool3d(v, 2, 1, 1)),
                 lambda: (randn(2, 3, 13, 11), randn(1, 2, 5, 4, 6))),
    "adaptive_pool": (lambda x: (F.adaptive_avg_pool2d(x, 1), F.adaptive_avg_pool2d(x, (4, 3)),
                                 F.adaptive_avg_pool2d(x, (5, 7)),
                                 F.adaptive_max_pool2d(x, (3, 4)),
                                 F.adaptive_avg_pool1d(x[0], 4)),
                      lambda: (randn(2, 3, 12, 9),)),
    "resampling": (lambda x, v: (F.interpolate(x, size=(13, 20), mode="nearest"),
                                 F.interpolate(x, scale_factor=2, mode="nearest"),
                                 F.interpolate(x, size=(5, 14), mode="bilinear"),
                                 F.interpolate(x, size=(11, 4), mode="bilinear",
                                               align_corners=True),
                                 F.interpolate(x, size=(13, 20), mode="bicubic"),
                                 F.interpolate(x, size=(4, 5), mode="bicubic"),
                                 F.interpolate(x, scale_factor=1.7, mode="bicubic",
                                               align_corners=True),
                                 F.interpolate(v, size=(3, 7, 5), mode="trilinear")),
                   lambda: (randn(2, 3, 7, 9), randn(1, 2, 4, 5, 6))),
    # Grid positions well outside [-1, 1]: zeros, clamps and several
    # reflections.
    "grid_sample": (lambda x, g: tuple(
        F.grid_sample(x, g, mode=mode, padding_mode=pad, align_corners=corners)
        for mode in ("bilinear", "nearest") for pad in ("zeros", "border", "reflection")
        for corners in (False, True)),
        lambda: (randn(2, 3, 7, 9), torch.rand(2, 5, 6, 2) * 7 - 3.5)),
    "unfold": (lambda x, y: (x.unfold(1, 3, 2), x.unfold(-1, 4, 1), y.unfold(0, 2, 3),
                             F.unfold(x, (2, 3), padding=1, stride=(2, 1))),
               lambda: (randn(2, 7, 9, 10), randn(11))),
    "padded_views": (lambda x: (F.pad(x.t().reshape(8, 6), (0, 0, 1, 1))[:, 1:5].exp(),
                                F.pad(F.pad(x, (1, 1), value=2.0), (2, 0)),
                                F.pad(x.exp(), (1, 2, 3, 0), value=-1.0) * 2),
                     lambda: (randn(6, 8),)),
    "conv_block": (nn.Sequential(nn.Conv2d(3, 8, 3, padding=1, bias=False),
                                 nn.BatchNorm2d(8), nn.ReLU(),
                                 nn.MaxPool2d(3, 2, 1),
                                 nn.Conv2d(8, 12, 3, stride=2, padding=1),
                                 nn.GroupNorm(4, 12), nn.SiLU(),
                                 nn.ConvTranspose2d(12, 5, 2, stride=2),
                                 nn.AdaptiveAvgPool2d(1), nn.Flatten()).eval(),
                   lambda: (randn(2, 3, 17, 15),)),
}


def _prepare(name):
    return prepare(PROGRAMS, name)


@pytest.mark.parametrize("via", ["loop", "kernel", "kernel-shuffled"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_pytorch(name, via):
    fn, inputs = _prepare(name)
    report = check(fn, inputs, via=via)
    assert report.passed, report


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_half_convolutions_accumulate_in_f32(dtype):
    torch.manual_seed(3)
    report = check(lambda x, w: F.conv2d(x, w, padding=1),
                   (randn(2, 24, 9, 10, dtype=dtype), randn(40, 24, 3, 3, dtype=dtype)),
                   via="kernel")
    assert report.passed, report


def tile_program(fn, *inputs):
    import strata
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("tile"))
    return str(module)


def test_a_convolution_is_one_contraction_kernel():
    # Padding, windows, im2col, the GEMM, NCHW, bias, batch norm and ReLU:
    # one kernel, scheduled as a contraction (rows: output channels,
    # columns: batch and pixels), the im2col matrix never stored.
    block = nn.Sequential(nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32),
                          nn.ReLU()).eval()
    text = tile_program(block, torch.randn(2, 16, 20, 20))
    assert text.count("tileir.kernel") == 1, text
    assert "tileir.contract" in text
    assert "domain [32, 800]" in text, text


def test_transposed_products_are_contractions():
    # A product stored transposed (attention's p @ v before the heads
    # merge) is a batched GEMM, not one element per thread.
    text = tile_program(lambda p, v: (p @ v).transpose(1, 2),
                        torch.randn(2, 4, 96, 80), torch.randn(2, 4, 80, 72))
    assert "tileir.contract" in text and "for_each_point" not in text, text



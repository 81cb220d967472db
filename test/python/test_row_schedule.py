"""Row reductions get the cooperative row schedule (a block per row, folds
shared by its threads through warp shuffles and shared memory) and the
emulated GPU kernels match PyTorch at ragged sizes, with the threads of
every barrier interval run forward and in reverse."""
import re

import pytest
import torch
import torch.nn.functional as F

import strata
from strata.frontend import capture, import_program
from strata.runner import check
from conftest import tile_ir


def randn(*shape):
    return torch.randn(*shape) * 2 + 0.5  # never zeros


def rmsnorm(x):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)


ROW_PROGRAMS = {
    "softmax": lambda x: F.softmax(x, -1),
    "rmsnorm": rmsnorm,
    "layer_norm": lambda x: F.layer_norm(x, x.shape[-1:]),
    "row_sum_and_max": lambda x: (x.sum(-1), x.amax(-1)),
    "full_mean": lambda x: x.mean(),
}

# Ragged rows (37 is one warp with 5 elements left over; 513 and 333 are
# odd; 4096 takes 256 threads and 8 warps) and a single row.
SHAPES = [(1000, 37), (3, 513), (5, 333), (1, 4096)]



@pytest.mark.parametrize("shape", SHAPES, ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(ROW_PROGRAMS))
def test_row_program_matches_pytorch(name, shape):
    torch.manual_seed(sum(map(ord, name)) + shape[1])
    fn = ROW_PROGRAMS[name]
    inputs = (randn(*shape),)
    assert re.search(r"tileir\.(composite_)?fold", tile_ir(fn, inputs))
    # The first shape also runs its threads in reverse and shuffled (the
    # race check).
    vias = (["kernel", "kernel-reversed", "kernel-shuffled"]
            if shape == SHAPES[0] else ["kernel"])
    for via in vias:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def test_every_thread_receives_the_fold():
    # Each element needs its row's max and sum: a thread that missed the
    # cross-warp combine would write a wrong value.
    x = randn(7, 4096)
    report = check(lambda x: x - x.amax(-1, keepdim=True) + x.sum(-1, keepdim=True),
                   (x,), via="kernel")
    assert report.passed, report


def test_column_reductions_keep_a_thread_per_column():
    # Reading down columns, a block per column would not coalesce; a thread
    # per column does, where there are enough columns to fill the GPU.
    text = tile_ir(lambda x: x.sum(0), (randn(37, 1100),))
    assert "tileir.for_each_point" in text and "tileir.fold" not in text


def channel_norm(x, w, b):
    # ConvNeXt's layer norm over the channels of an NCHW tensor: each row
    # (a pixel) reads its channels with the stride of a channel plane.
    return F.layer_norm(x.permute(0, 2, 3, 1), x.shape[1:2], w, b)


def squeeze_excite(x, w1, w2):
    # MobileNetV3's gate: the pooled channels through two 1 x 1
    # convolutions, scaling every pixel of the channel; the second reads the
    # [1, C, 1, 1] squeeze along C.
    s = F.relu(F.conv2d(x.mean((2, 3), keepdim=True), w1))
    return x * F.hardsigmoid(F.conv2d(s, w2))


@pytest.mark.parametrize("name", ["column_sum", "channel_norm",
                                  "squeeze_excite"])
def test_few_strided_rows_take_a_block_each(name):
    # Under 1024 rows (kMaxRowsForStridedRowSchedule) a thread per row
    # would leave nearly every SM idle, each thread folding its long row
    # alone (ConvNeXt-T's 7 x 7 x 768 norm: one block of 49 threads): a
    # block per row reads strided, but every row at once. A buffer's
    # dimensions of one element make no stride at all (the squeeze's
    # [1, C, 1, 1]: MobileNetV3's gated kernels were a thread per channel).
    torch.manual_seed(len(name))
    fn, inputs = {
        "column_sum": (lambda x: x.sum(0), (randn(513, 37),)),
        "channel_norm": (channel_norm, (randn(2, 37, 5, 7), randn(37),
                                        randn(37))),
        # 1100 channels: rows enough for the generic schedule, were the
        # squeeze's unit dimensions taken for a stride.
        "squeeze_excite": (squeeze_excite, (randn(1, 1100, 7, 9),
                                            randn(10, 1100, 1, 1) * 0.05,
                                            randn(1100, 10, 1, 1) * 0.2)),
    }[name]
    text = tile_ir(fn, inputs)
    # The last kernel: the sum, the norm, the gated scale.
    last = text[text.rindex("tileir.kernel"):]
    assert "tileir.for_each_point" not in last, text
    assert re.search(r"tileir\.(composite_)?fold", last), text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


@pytest.mark.parametrize("name", ["softmax", "layer_norm"])
def test_short_rows_share_a_block_a_warp_each(name):
    # Rows of 96 (runs of 4 f32, kept in a row cache) take a warp each, 8
    # per block: 3 blocks of 256 threads; each warp caches its own row.
    torch.manual_seed(11)
    fn = ROW_PROGRAMS[name]
    x = randn(24, 96)
    assert "domain [24] tile [8] threads 256" in tile_ir(fn, (x,))
    module = import_program(capture(fn, (x,)))
    module.run(strata.pipeline("kernel"))
    assert "kernelir.shared : memref<8x96xf32" in str(module)
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, (x,), via=via)
        assert report.passed, (via, report)


ONLINE_SOFTMAX = {
    "softmax": lambda x: F.softmax(x, -1),
    "log_softmax": lambda x: F.log_softmax(x, -1),
    "scaled_softmax": lambda x: F.softmax(x * 0.125, -1),
    # Rows masked with -inf (a causal mask's first rows are mostly masked).
    "masked_softmax": lambda x: F.softmax(
        x + torch.triu(torch.full(x.shape, float("-inf")), 1), -1),
}


@pytest.mark.parametrize("shape", [(37, 70), (5, 2049), (3, 4096)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(ONLINE_SOFTMAX))
def test_softmax_statistics_are_one_online_fold(name, shape):
    # The max and the sum of exp(x - max) are one fold over online
    # softmax's (max, sum) monoid (tileir-fuse-folds): the row is read
    # once for both. Splitting the row among threads in any order (the
    # three thread orders) gives the same sums within tolerance.
    torch.manual_seed(sum(map(ord, name)) + shape[1])
    fn = ONLINE_SOFTMAX[name]
    inputs = (randn(*shape),)
    text = tile_ir(fn, inputs)
    assert text.count("tileir.composite_fold") == 1, text
    assert "tileir.fold max" not in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)



WELFORD = {
    "var": lambda x: x.var(-1),
    "std_biased": lambda x: x.std(-1, unbiased=False),
    "layer_norm": lambda x: F.layer_norm(x, x.shape[-1:]),
    # A mean far from 0 next to a small spread: Chan's combination keeps
    # the deviations' sum as the two passes do.
    "offset_var": lambda x: (x * 0.01 + 1000.0).var(-1),
}


@pytest.mark.parametrize("shape", [(37, 70), (5, 2049), (3, 4096)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(WELFORD))
def test_variance_statistics_are_one_welford_fold(name, shape):
    # The mean and the sum of squared deviations from it are one fold over
    # Welford's (count, mean, squares) monoid (tileir-fuse-folds): the row
    # is read once for both, in every thread order.
    torch.manual_seed(sum(map(ord, name)) + shape[1])
    fn = WELFORD[name]
    inputs = (randn(*shape),)
    text = tile_ir(fn, inputs)
    assert text.count("tileir.composite_fold") == 1, text
    assert "tileir.fold add" not in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def ties(*shape):
    return torch.randint(-3, 4, shape).float()  # many equal values per row


def with_nans(*shape):
    x = randn(*shape)
    x[1, 5] = x[1, 60] = float("nan")  # the first NaN wins
    x[2, -1] = float("nan")
    return x


ARG_REDUCTIONS = {
    "max_dim": (lambda x: torch.max(x, -1), randn),
    "min_dim": (lambda x: torch.min(x, -1), randn),
    "max_ties": (lambda x: torch.max(x, -1), ties),
    "min_ties": (lambda x: torch.min(x, -1), ties),
    "max_nan": (lambda x: torch.max(x, -1), with_nans),
    "min_nan": (lambda x: torch.min(x, -1), with_nans),
}


@pytest.mark.parametrize("shape", [(37, 70), (5, 2049)],
                         ids=lambda s: "x".join(map(str, s)))
@pytest.mark.parametrize("name", sorted(ARG_REDUCTIONS))
def test_arg_reductions_are_cooperative_folds(name, shape):
    # An arg-reduction along a row is a composite fold of (value, position)
    # shared by the block's threads: the first extreme wins ties and the
    # first NaN wins everything, whatever order the threads combine in.
    torch.manual_seed(sum(map(ord, name)) + shape[1])
    fn, make = ARG_REDUCTIONS[name]
    inputs = (make(*shape),)
    text = tile_ir(lambda x: fn(x)[1], inputs)
    assert "tileir.composite_fold" in text and "loopir.reduce arg" not in text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(lambda x: tuple(fn(x)), inputs, via=via)
        assert report.passed, (via, report)


def test_online_softmax_of_infinite_rows_is_nan_as_in_pytorch():
    # A row of -inf (every key masked) and a row holding +inf have no
    # softmax: the two passes' exp(x - max) is exp(inf - inf) there. The
    # online fold's sums must be NaN too, not a uniform distribution.
    x = randn(4, 70)
    x[1] = float("-inf")
    x[2, 7] = float("inf")
    fn = ONLINE_SOFTMAX["softmax"]
    assert tile_ir(fn, (x,)).count("tileir.composite_fold") == 1
    for via in ["kernel", "kernel-reversed"]:
        report = check(fn, (x,), via=via)
        assert report.passed, (via, report)

"""Prefix scans (cumsum, cumprod, and any reduction masked to k <= i) get
the scan schedule: one block per row folds the row once with a
tileir.scan (each chunk of points scanned across the threads by warp
shuffles and shared memory, offset by the chunks before it), instead of
every point folding its own prefix (the row's length squared). The
emulated GPU kernels match PyTorch at ragged sizes, with the threads of
every barrier interval run forward, in reverse and scrambled."""
import re

import pytest
import torch
import torch.nn.functional as F

from strata.frontend import capture
from strata.report import traffic_report
from strata.runner import check
from conftest import tile_ir

VIAS = ["kernel", "kernel-reversed", "kernel-shuffled"]


def randn(*shape):
    return torch.randn(*shape) * 2 + 0.5  # never zeros


def prefix_by_hand(x):
    """An inclusive prefix sum written with a triangular where."""
    n = x.shape[-1]
    i = torch.arange(n).unsqueeze(1)
    k = torch.arange(n).unsqueeze(0)
    return torch.where(k <= i, x.unsqueeze(-2), torch.zeros(())).sum(-1)


# name -> (fn, inputs, schedule options). Rows of 1000 and 4100 (several
# chunks of 256 threads, the last one partial); 45-point rows four and
# eight to a block (groups of 16 and 8 threads, the last block's groups
# past the 37 rows); a scan down the columns; integer and boolean inputs
# (i64 prefixes, i8 carried as i32); a fused producer and epilogue; a
# softmax's statistics folded before its cumsum in the same program; a
# hand-written mask; halves.
SCANS = {
    "cumsum_rows": (lambda x: torch.cumsum(x, 1) * 2,
                    lambda: (randn(3, 1000),), ""),
    "cumsum_long_row": (lambda x: torch.cumsum(x, -1),
                        lambda: (randn(2, 4100),), ""),
    "cumsum_groups_of_16": (lambda x: torch.cumsum(x, 1),
                            lambda: (randn(37, 45),), "tile-sizes=4 threads=64"),
    "cumsum_groups_of_8": (lambda x: torch.cumsum(x, 1),
                           lambda: (randn(37, 45),), "tile-sizes=8 threads=64"),
    "cumprod_columns": (lambda x: torch.cumprod(1 + 0.01 * x, 0),
                        lambda: (randn(300, 7),), ""),
    "cumsum_integers": (lambda i, b: (torch.cumsum(i, -1), torch.cumsum(b, -1)),
                        lambda: (torch.randint(-9, 9, (4, 300)),
                                 torch.randint(-9, 9, (4, 77), dtype=torch.int8)), ""),
    "position_ids": (lambda m: (m.long().cumsum(-1) - 1) * m.long(),
                     lambda: (torch.rand(5, 700) > 0.3,), ""),
    "softmax_cumsum": (lambda x: torch.cumsum(F.softmax(x, -1), -1),
                       lambda: (randn(3, 2000),), ""),
    "prefix_by_hand": (lambda x: prefix_by_hand(x).exp(),
                       lambda: (randn(6, 100) * 0.05,), ""),
    # Halves accumulate in f32 and round each prefix once (PyTorch's
    # accumulate type): an f32 scan.
    "cumsum_halves": (lambda h, b: (torch.cumsum(h, -1), torch.cumsum(b, 0)),
                      lambda: (randn(3, 500).half(), randn(300, 5).bfloat16()), ""),
    # cummax / cummin: a scan of the extremes, then one of the positions
    # of records (points holding their own prefix's extreme). NaNs (the
    # last one's position, once a row has one), runs of ties (the last
    # position of the extreme), i64's own extremes, booleans, halves.
    "cummax_cummin": (lambda x: (*torch.cummax(x, 1), *torch.cummin(x, 1)),
                      lambda: (with_nans_and_ties(randn(3, 1000)),), ""),
    "cummax_integers": (
        lambda i, e, b, h: (*torch.cummax(i, 1), *torch.cummin(i.t(), 0),
                            *torch.cummin(e, 1), *torch.cummax(b, 1),
                            *torch.cummax(h, 1)),
        lambda: (torch.randint(-5, 5, (4, 300)),
                 torch.tensor([[2 ** 63 - 1, 5, 2 ** 63 - 1, -2 ** 63] * 10]),
                 torch.rand(3, 70) > 0.5,
                 with_nans_and_ties(randn(3, 200)).half()), ""),
    # logcumsumexp: one scan of online softmax's (max, sum) monoid, each
    # sum rescaled as its prefix's maximum grows: a row starting 200 below
    # the rest (nothing underflows), -inf, +inf and NaN along the way;
    # rows of several chunks; groups of 16 lanes; halves (in f32).
    "logcumsumexp_rows": (lambda x: torch.logcumsumexp(x, 1),
                          lambda: (with_extremes(randn(4, 1000) * 3),), ""),
    "logcumsumexp_long_row": (lambda x: torch.logcumsumexp(x * 10, -1),
                              lambda: (randn(2, 4100),), ""),
    "logcumsumexp_groups_of_16": (lambda x: torch.logcumsumexp(x, 1),
                                  lambda: (randn(37, 45),), "tile-sizes=4 threads=64"),
    "logcumsumexp_halves": (lambda h, b: (torch.logcumsumexp(h, -1),
                                          torch.logcumsumexp(b, 0)),
                            lambda: (randn(3, 500).half(), randn(300, 5).bfloat16()), ""),
}
SCAN_COUNTS = {"logcumsumexp_halves": 2, "cumsum_integers": 2, "cumsum_halves": 2, "cummax_cummin": 4,
               "cummax_integers": 10}


def with_extremes(x):
    """`x` with a row starting far below its other points (-200), a -inf
    prefix, a +inf and a NaN."""
    x = x.clone()
    x[0, 0] = -200.0
    x[1, :3] = float("-inf")
    x[2, 50] = float("inf")
    x[3, 70] = float("nan")
    return x


def with_nans_and_ties(x):
    """`x` with a run of ties in its first row and NaNs in the next."""
    x = x.clone()
    x[0, 100:110] = x[0].max()
    x[1, 7] = x[1, 150] = float("nan")
    return x


def _prepared(name):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs, options = SCANS[name]
    return fn, make_inputs(), options


@pytest.mark.parametrize("via", VIAS)
@pytest.mark.parametrize("name", sorted(SCANS))
def test_scan_matches_pytorch(name, via):
    fn, inputs, options = _prepared(name)
    report = check(fn, inputs, via=via, options=options)
    assert report.passed, report


@pytest.mark.parametrize("name", sorted(SCANS))
def test_every_prefix_is_one_scan_of_its_row(name):
    fn, inputs, options = _prepared(name)
    text = tile_ir(fn, inputs, options)
    scans = re.findall(r"tileir\.(?:composite_)?scan ", text)
    assert len(scans) == SCAN_COUNTS.get(name, 1), text
    assert "tileir.fold" not in text or name == "softmax_cumsum", text
    # The masks are gone: no contribution is selected against its index
    # (cummax's records compare points with their prefixes' extremes: eq).
    for body in re.findall(r"tileir\.(?:composite_)?scan .*?\} each", text, re.S):
        assert not re.search(r"arith\.cmpi [su](le|lt|ge|gt)", body), body


def test_scan_work_is_linear_in_the_row():
    """cumsum of a softmax over GPT-2's vocabulary (top-p sampling): one
    kernel, the row read and written once, and a few FLOPs per element,
    not one per pair of elements."""
    fn = lambda x: torch.cumsum(F.softmax(x, -1), -1)  # noqa: E731
    report = traffic_report(capture(fn, (torch.randn(64, 50257),)))
    elements = 64 * 50257
    assert len(report.kernels) == 1, report.text()
    assert report.bytes <= 1.01 * report.ideal_bytes, report.text()
    assert report.flops < 20 * elements, report.text()


def test_exclusive_prefix_stays_a_fold_per_point():
    """k < i leaves the point out: no scan of this schedule (an inclusive
    one), and the numbers still match."""
    def exclusive(x):
        n = x.shape[-1]
        i, k = torch.arange(n).unsqueeze(1), torch.arange(n).unsqueeze(0)
        return torch.where(k < i, x.unsqueeze(-2), torch.zeros(())).sum(-1)
    x = randn(4, 40)
    assert "tileir.scan" not in tile_ir(exclusive, (x,))
    assert check(exclusive, (x,), via="kernel").passed


@pytest.mark.parametrize("fn", [lambda x: torch.cumsum(x, -1),
                                lambda x: F.softmax(x, -1)],
                         ids=["scan", "fold"])
def test_rows_of_a_partial_warp_are_a_clear_error(fn):
    """A row's threads combine with warp shuffles, which need whole warps:
    16 threads for one row is refused when the threads are chosen (the GPU
    pipelines verify no kernelir op), one thread is not."""
    x = randn(4, 300)
    with pytest.raises(Exception, match="a row program needs one thread or "
                                        "a whole number of warps"):
        tile_ir(fn, (x,), "threads=16")
    assert check(fn, (x,), via="kernel", options="threads=1").passed

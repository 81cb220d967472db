"""The order of contraction tiles (tileir-raster): large grids take their
tiles in bands of rows (raster_group), and a banded order computes what
the row-major one does, at ragged sizes, on every multiply path, with
leading batch and split-k dimensions, in every thread and block order."""

import re

import pytest
import torch
import torch.nn.functional as F

from strata.runner import check
from conftest import tile_ir


def randn(*shape):
    return torch.randn(*shape) * 2 + 0.5  # never zeros


def raster_groups(text):
    """The raster_group of every tileir.kernel in `text` (None: row-major)."""
    return [int(g) if g else None for g in re.findall(
        r"tileir\.kernel .* threads \d+(?: raster_group (\d+))? \{", text)]


BANDED = {
    # f32 on FMAs in 32 x 32 tiles: a grid of 32 x 11, bands of 3 rows
    # (the last one of 2), bias and GELU in the epilogue.
    "fma_epilogue": (lambda x, w, c: F.gelu(x @ w + c),
                     lambda: (randn(1000, 517), randn(517, 333), randn(333)),
                     "tile-sizes=32,32 raster-group=3"),
    # Three batches of 70 x 50 (grids of 3 x 2 tiles) and k split in two:
    # batch and slice vary slowest, each matrix in bands of 2 rows (the
    # last one of 1).
    "bmm_split_k": (torch.bmm,
                    lambda: (randn(3, 70, 1024), randn(3, 1024, 50)),
                    "tile-sizes=1,32,32 split-k=2 raster-group=2"),
    # Halves on tensor cores (mma.sync) in 64 x 64 tiles: 5 x 5, bands of 4
    # (the last one of 1).
    "half_mma": (torch.matmul,
                 lambda: (randn(300, 333).half(), randn(333, 260).half()),
                 "raster-group=4"),
    # Warpgroups fed by TMA (x @ w.T): the tensor maps' boxes start where
    # the banded program ids put the tile.
    "half_wgmma_tma": (lambda x, w: x @ w.t(),
                       lambda: (randn(300, 328).half(), randn(260, 328).half()),
                       "wgmma=true tma=true raster-group=2"),
}


@pytest.mark.parametrize("name", sorted(BANDED))
def test_banded_order_matches_pytorch(name):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs, options = BANDED[name]
    inputs = make_inputs()
    groups = raster_groups(tile_ir(fn, inputs, options))
    forced = int(re.search(r"raster-group=(\d+)", options).group(1))
    # Every contraction kernel takes the band; the split-k sum (elementwise)
    # stays row-major.
    assert forced in groups, groups
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)


def test_bands_where_the_grid_outgrows_a_wave_and_b_outgrows_l2():
    # 4096 x 4096 halves in 128 x 128 tiles: 32 x 32 = 1024 instances,
    # each row of them sweeping all of B (32 MiB, more than half of L2):
    # bands of 8 rows; raster-group=1 forces row-major. GPT-2's QKV
    # projection (4 x 1024 tokens, 768 -> 2304: 576 tiles) sweeps 3.5 MiB,
    # which L2 keeps: row-major. 512 x 512 (in 64 x 64 tiles: 64
    # instances, one wave) and a matrix-vector product keep row-major.
    a = torch.randn(4096, 4096).half()
    assert raster_groups(tile_ir(torch.matmul, (a, a))) == [8]
    assert raster_groups(tile_ir(torch.matmul, (a, a), "raster-group=1")) == [None]
    w = torch.randn(768, 2304).half()
    assert raster_groups(tile_ir(torch.matmul, (a[:, :768].contiguous(), w))) == [None]
    b = a[:512, :512].contiguous()
    # (512 x 512 splits its k too: every kernel row-major.)
    assert set(raster_groups(tile_ir(torch.matmul, (b, b)))) == {None}
    v = torch.randn(512, 1)
    assert set(raster_groups(tile_ir(torch.matmul, (b.float(), v)))) == {None}


def test_negative_raster_group_is_an_error():
    with pytest.raises(Exception, match="group and min-programs must not be "
                                        "negative, got group=-3"):
        tile_ir(torch.matmul, (randn(64, 64), randn(64, 64)), "raster-group=-3")


def test_bands_taller_than_the_grid_are_the_whole_grid():
    # 1000 x 333 in 32 x 32 tiles: 32 rows of tiles. A forced band of any
    # height beyond 32 (even one no index could multiply by the columns)
    # is one band of all 32 rows: the grid column by column.
    torch.manual_seed(32)
    inputs = (randn(1000, 517), randn(517, 333))
    options = "tile-sizes=32,32 raster-group=1000000000000000000"
    assert raster_groups(tile_ir(torch.matmul, inputs, options)) == [32]
    report = check(torch.matmul, inputs, via="kernel-shuffled", options=options)
    assert report.passed, report

"""Persistent contraction kernels (tileir-persist): a wave of program
instances each looping over its share of the tiles computes what one
instance per tile does, at ragged sizes, in bands, on every multiply path
(FMAs, mma.sync on cp.async chunks, wgmma on a TMA ring whose mbarriers
count their phases across tiles), in every thread and block order."""

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


def instances(text):
    """The instances of every tileir.kernel in `text` (None: one a tile)."""
    return [int(n) if n else None for n in re.findall(
        r"tileir\.kernel .* threads \d+(?: raster_group \d+)?"
        r"(?: instances (\d+))?(?: wave)? \{", text)]


PERSISTENT = {
    # f32 on FMAs in 32 x 32 tiles: 32 x 11 tiles in bands of 3, taken by
    # 7 instances (352 = 7 x 50 + 2: two instances take one tile more),
    # bias and GELU in the epilogue.
    "fma_epilogue": (lambda x, w, c: F.gelu(x @ w + c),
                     lambda: (randn(1000, 517), randn(517, 333), randn(333)),
                     "tile-sizes=32,32 raster-group=3 persistent-instances=7"),
    # Halves on tensor cores (mma.sync) from cp.async chunks: 5 x 5 tiles
    # of 64 x 64 by 4 instances; each tile's ring of chunks starts anew.
    "half_mma": (torch.matmul,
                 lambda: (randn(300, 333).half(), randn(333, 260).half()),
                 "persistent-instances=4"),
    # Warpgroups fed by TMA (x @ w.T): k = 328 in 21 steps of 16 on two
    # mbarriers, initialized once per block. Step kt of an instance's i-th
    # tile is step 21 i + kt of its ring: a tile's first step is on slot 1
    # of parity 0 after an even one, so parities counted per tile (or the
    # ring initialized again) fail as a hang would.
    "half_wgmma_tma": (lambda x, w: x @ w.t(),
                       lambda: (randn(300, 328).half(), randn(260, 328).half()),
                       "wgmma=true tma=true raster-group=2 persistent-instances=3"),
    # A wave of one SM (persistent-sms=1): the instances are an estimate
    # (8, the blocks tileir-persist reckons an SM holds), so the kernel
    # strides over its tiles (25; 352 for the FMA kernel) by the blocks
    # launched (kernelir.grid_dim), which the runtime chooses (the exact
    # wave): the CPU runs the estimate, and waves of 3 and 11 blocks (as
    # other GPUs would), with every stride, tile count and ring step taken
    # from the blocks launched.
    "half_wgmma_tma_wave": (lambda x, w: x @ w.t(),
                            lambda: (randn(300, 328).half(),
                                     randn(260, 328).half()),
                            "wgmma=true tma=true raster-group=2 persistent-sms=1"),
    "fma_wave": (lambda x, w, c: F.gelu(x @ w + c),
                 lambda: (randn(1000, 517), randn(517, 333), randn(333)),
                 "tile-sizes=32,32 raster-group=3 persistent-sms=1"),
}


@pytest.mark.parametrize("name", sorted(PERSISTENT))
def test_persistent_kernels_match_pytorch(name):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs, options = PERSISTENT[name]
    inputs = make_inputs()
    text = tile_ir(fn, inputs, options)
    forced = re.search(r"persistent-instances=(\d+)", options)
    if forced:
        assert instances(text) == [int(forced.group(1))], text
        assert " wave {" not in text, text
    else:  # An estimate of the wave: the launch takes the exact one.
        assert instances(text)[0] is not None and " wave {" in text, text
        module = import_program(capture(fn, inputs))
        module.run(strata.pipeline("kernel", options))
        kernel = str(module)
        assert re.search(r"grid = array<i64: 8, 1, 1>.*wave_tiles = "
                         r"(25|352) : i64", kernel), kernel
        assert re.search(r"scf\.for %\S+ = %\S+ to %c(25|352) step "
                         r"%\S+ ", kernel) and "kernelir.grid_dim x" in kernel
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)
    if not forced:
        for blocks in (3, 11):
            report = check(fn, inputs, via="kernel-shuffled",
                           options=options + " wave-blocks=%d" % blocks)
            assert report.passed, (blocks, report)


def test_a_tma_ring_is_set_up_once_per_block():
    # The mbarriers are initialized before the loop over tiles, their
    # slot and parity taken from the step counted across tiles.
    fn, make_inputs, options = PERSISTENT["half_wgmma_tma"]
    module = import_program(capture(fn, make_inputs()))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    body = text[text.index("kernelir.func"):]
    inits = [m.start() for m in re.finditer(r"kernelir\.mbarrier_init", body)]
    tile_loop = re.search(r"scf\.for %\S+ = %\S+ to %c25 step %c3 ", body)
    assert inits and tile_loop, body
    assert max(inits) < tile_loop.start(), body
    assert re.search(r"grid = array<i64: 3, 1, 1>", body), body


def test_a_wave_of_the_target_by_default_only_where_asked():
    # 4096 x 4096 halves in 128 x 128 tiles: 1024 tiles. Persistent only
    # with persistent-sms: two such blocks fit an SM (their three stages
    # of chunks, and 128 registers of 256 threads), so a wave of 132 SMs
    # is 264 instances. 512 x 512 (64 tiles, less than a wave) keeps one
    # instance per tile; so do elementwise kernels.
    a = torch.randn(4096, 4096).half()
    assert instances(tile_ir(torch.matmul, (a, a))) == [None]
    assert instances(tile_ir(torch.matmul, (a, a), "persistent-sms=132")) == [264]
    b = a[:512, :512].contiguous()
    assert set(instances(tile_ir(torch.matmul, (b, b), "persistent-sms=132"))) == {None}
    # Forced instances are what is launched; a wave of the target's SMs is
    # an estimate the launch refines.
    assert " wave {" in tile_ir(torch.matmul, (a, a), "persistent-sms=132")
    assert " wave {" not in tile_ir(torch.matmul, (a, a),
                                    "persistent-instances=264")
    assert instances(tile_ir(torch.exp, (a,), "persistent-instances=4")) == [None]


def test_negative_persistent_options_are_an_error():
    with pytest.raises(Exception, match="sms and instances must not be "
                                        "negative, got sms=0 instances=-4"):
        tile_ir(torch.matmul, (randn(64, 64), randn(64, 64)),
                "persistent-instances=-4")

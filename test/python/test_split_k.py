"""Split-K (tileir-split-k): a contraction with few output tiles and a long
k becomes a kernel of partial contractions over slices of k and a kernel
that adds them and runs the epilogue; both match PyTorch at ragged sizes in
every thread order, and forcing an impossible split is a clear error."""

import pytest
import torch
import torch.nn.functional as F

import strata
from strata.frontend import capture, import_program
from strata.runner import check
from conftest import tile_ir, kernel_domains, excess_over_one_rounding


def randn(*shape):
    return torch.randn(*shape) * 2 + 0.5  # never zeros




SPLITS = {
    # 37 x 45 is one 64 x 64 tile, four of 32 x 32 (on FMAs a small grid
    # takes smaller tiles first, tileir-tile); k = 3000 splits into 10
    # slices of 300 (at most 16, at least 256 k each, dividing k), and the
    # epilogue (bias, gelu) runs once on the sum, in an elementwise kernel
    # with an elementwise tile.
    "epilogue": (lambda x, w, c: F.gelu(x @ w + c),
                 lambda: (randn(37, 3000), randn(3000, 45), randn(45)),
                 [("10, 37, 45", "1, 32, 32"), ("37, 45", "8, 64")]),
    # A prologue indexed by k (b[k]) is sliced with it.
    "prologue": (lambda x, b, w: (x + b) @ w,
                 lambda: (randn(33, 1024), randn(1024), randn(1024, 20)),
                 [("4, 33, 20", "1, 32, 32"), ("33, 20", "16, 32")]),
    # Batch dimensions stay after the slice: 2 batches of one tile, k =
    # 2048 in 8 slices.
    "bmm": (torch.bmm, lambda: (randn(2, 20, 2048), randn(2, 2048, 24)),
            [("8, 2, 20, 24", "1, 1, 32, 32"), ("2, 20, 24", "1, 16, 32")]),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_k_matches_pytorch(name):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs, kernels = SPLITS[name]
    inputs = make_inputs()
    text = tile_ir(fn, inputs)
    assert kernel_domains(text) == kernels, text
    assert text.count("tileir.contract") == 1
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def test_enough_tiles_or_short_k_are_not_split():
    # 256 x 256 has 16 tiles but k = 200 is too short to slice; 1024 x 1024
    # has 256 tiles, enough to fill a GPU.
    text = tile_ir(torch.matmul, (randn(256, 200), randn(200, 256)))
    assert len(kernel_domains(text)) == 1, text
    text = tile_ir(torch.matmul, (randn(1024, 512), randn(512, 1024)))
    assert len(kernel_domains(text)) == 1, text


def test_forced_splits():
    torch.manual_seed(5)
    x, w = randn(45, 770), randn(770, 29)
    # k = 770 = 2 x 5 x 7 x 11: by default at most 770 / 256 = 3 slices,
    # and 3 does not divide it, so 2 (a divisor spares the remainder's
    # kernel while it keeps half the slices). Forced: 5 (shorter slices are
    # allowed), 1 (none), 3 (3 slices of 256 and a kernel for the 2 k
    # left), and more slices than k is an error.
    assert kernel_domains(tile_ir(torch.matmul, (x, w)))[0] == ("2, 45, 29", "1, 32, 32")
    text = tile_ir(torch.matmul, (x, w), "split-k=5")
    assert kernel_domains(text)[0] == ("5, 45, 29", "1, 32, 32"), text
    report = check(torch.matmul, (x, w), via="kernel-shuffled", options="split-k=5")
    assert report.passed, report
    assert len(kernel_domains(tile_ir(torch.matmul, (x, w), "split-k=1"))) == 1
    text = tile_ir(torch.matmul, (x, w), "split-k=3")
    assert kernel_domains(text)[:2] == [("3, 45, 29", "1, 32, 32"),
                                        ("1, 45, 29", "1, 32, 32")], text
    report = check(torch.matmul, (x, w), via="kernel-shuffled", options="split-k=3")
    assert report.passed, report
    with pytest.raises(Exception, match="k = 770 does not split into 771 slices"):
        tile_ir(torch.matmul, (x, w), "split-k=771")


def test_prime_k_splits_with_a_remainder():
    # k = 3001 is prime: no slice count divides it. Four 32 x 32 tiles want
    # 32 slices, at most 16 and 3001 / 256 = 11: 11 slices of 272, the 9
    # k left (2992 on) in a one-slice partial kernel, and the sum of all 12
    # partials with the epilogue.
    torch.manual_seed(3001)
    fn = lambda x, w, c: F.gelu(x @ w + c)
    inputs = (randn(37, 3001), randn(3001, 45), randn(45))
    text = tile_ir(fn, inputs)
    assert kernel_domains(text) == [("11, 37, 45", "1, 32, 32"),
                                    ("1, 37, 45", "1, 32, 32"),
                                    ("37, 45", "8, 64")], text
    assert "k 272 " in text and "k 9 " in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def test_half_split_k_multiplies_slices_on_tensor_cores():
    # Each slice of 256 k is a whole number of mma steps; the partials are
    # f32, summed in f32 and rounded to f16 once, in the epilogue kernel.
    from strata.runner import host_view, poisoned, via_pipeline
    torch.manual_seed(7)
    m, k, n = 40, 1024, 24
    a, b = randn(m, k).half(), randn(k, n).half()
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("kernel"))
    text = str(module)
    assert text.count("kernelir.launch") == 2 and "kernelir.mma" in text, text
    for via in ["kernel", "kernel-reversed"]:
        module = import_program(capture(torch.matmul, (a, b)))
        out = poisoned((m, n), torch.float16)
        module.run_on_cpu("forward", via_pipeline(via), [host_view(a), host_view(b)],
                          [host_view(out)])
        excess = excess_over_one_rounding(out, a, b)
        assert excess <= 0, (via, excess)

"""Loop IR fusion targets and normalization, checked on captured programs
(and numerically, through the CPU path)."""
import re

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import strata
from strata.frontend import capture, import_program
from strata.runner import check


def loop_ir(fn, *inputs):
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("loop"))
    return str(module)


TARGETS = [
    ("relu_matmul", lambda x, b, w: torch.relu(torch.matmul(x + b, w)),
     lambda: (torch.randn(16, 64), torch.randn(64), torch.randn(64, 16)), 1),
    ("rmsnorm", lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
     lambda: (torch.randn(1, 32, 2048), torch.randn(2048)), 1),
    ("softmax", lambda x: F.softmax(x, -1), lambda: (torch.randn(32, 2048),), 1),
    ("log_softmax", lambda x: F.log_softmax(x, -1), lambda: (torch.randn(32, 2048),), 1),
    ("layer_norm", nn.LayerNorm(512), lambda: (torch.randn(8, 512),), 2),
    ("broadcast_chain", lambda a, b, c: (a * b + c.exp() - 2).abs(),
     lambda: (torch.randn(7, 1, 5), torch.randn(3, 1), torch.randn(5)), 1),
    ("swiglu", lambda g, u: F.silu(g) * u,
     lambda: (torch.randn(4, 100), torch.randn(4, 100)), 1),
    ("transpose_reshape", lambda x, b: (x.transpose(0, 1).reshape(6, 20) + b).exp(),
     lambda: (torch.randn(20, 6), torch.randn(20)), 1),
]


@pytest.mark.parametrize("name,fn,inputs,most", TARGETS, ids=[t[0] for t in TARGETS])
def test_fusion_target(name, fn, inputs, most):
    report = check(fn, inputs())
    assert report.passed, report
    assert report.kernels <= most, "%s: %d kernels" % (name, report.kernels)


def test_four_matmul_spellings_converge():
    x, w = torch.randn(16, 65), torch.randn(65, 9)
    spellings = [
        lambda x, w: x @ w,
        lambda x, w: F.linear(x, w.t()),
        lambda x, w: torch.einsum("ij,jk->ik", x, w),
        lambda x, w: (x.unsqueeze(2) * w.unsqueeze(0)).sum(1),
    ]
    texts = [loop_ir(fn, x, w) for fn in spellings]
    assert all(t == texts[0] for t in texts), "\n\n".join(texts)
    assert texts[0].count("loopir.kernel") == 1
    assert "loopir.reduce add" in texts[0]


def test_softmax_is_one_row_kernel_with_hoisted_reductions():
    text = loop_ir(lambda x: F.softmax(x, -1), torch.randn(32, 2048))
    # The row loop holds the max, the sum and the column loop, in that order.
    body = re.findall(r"loopir\.(parallel|reduce \w+)", text)
    assert body == ["parallel", "reduce max", "reduce add", "parallel"], body
    assert "arith.divf %cst" in text  # one reciprocal per row


def test_mlp_keeps_a_matmul_consuming_a_matmul_separate():
    mlp = nn.Sequential(nn.Linear(64, 129), nn.GELU(), nn.Linear(129, 33))
    report = check(mlp, (torch.randn(11, 64),))
    assert report.passed and report.kernels == 2


def test_independent_sibling_reductions_share_one_pass():
    fn = lambda x: x.pow(2).mean(-1) - x.mean(-1).pow(2)
    text = loop_ir(fn, torch.randn(32, 100))
    assert len(re.findall(r"loopir\.reduce add, add", text)) == 1
    report = check(fn, (torch.randn(32, 100),))
    assert report.passed and report.kernels == 1


def test_residual_stream_is_read_not_recomputed():
    # x_{n+1} = x_n + relu(rmsnorm(x_n) @ w_n) for 8 layers: each residual
    # add has three consumers (the next norm's statistics, the next
    # product's prologue, the next add). Counting only
    # arithmetic, every add fused into both, so layer n's kernels re-read
    # every earlier layer's outputs (inputs grew with the depth); with the
    # producer's loads counted, a kernel reads a bounded number of inputs.
    torch.manual_seed(8)
    weights = [torch.randn(96, 96) / 10 for _ in range(8)]

    def residual(x, *ws):
        for w in ws:
            h = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6)
            x = x + torch.relu(h @ w)
        return x

    inputs = (torch.randn(70, 96),) + tuple(weights)
    text = loop_ir(residual, *inputs)
    heads = re.findall(r"loopir\.kernel ins\(([^:]*):", text)
    assert max(len(h.split(",")) for h in heads) <= 4, text
    report = check(residual, inputs)
    assert report.passed, report


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


CONCATENATIONS = [
    # Rotary embeddings: q * cos + rotate_half(q) * sin, one kernel.
    ("rotary", lambda q, c, s: q * c + rotate_half(q) * s,
     lambda dtype: (torch.randn(2, 3, 13, 38, dtype=dtype),
                    torch.randn(13, 38, dtype=dtype),
                    torch.randn(13, 38, dtype=dtype)), 1),
    # A class token before patch embeddings, then a computed consumer.
    ("class_token", lambda c, p: torch.cat((c.expand(3, 1, 20), p), 1).exp(),
     lambda dtype: (torch.randn(1, 1, 20, dtype=dtype),
                    torch.randn(3, 7, 20, dtype=dtype)), 1),
    # Three computed parts along the middle axis.
    ("three_parts", lambda a, b: torch.cat((a.exp(), b * 2, a.abs()), 1) - 1,
     lambda dtype: (torch.randn(5, 3, 7, dtype=dtype),
                    torch.randn(5, 4, 7, dtype=dtype)), 1),
]


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name,fn,inputs,most", CONCATENATIONS,
                         ids=[c[0] for c in CONCATENATIONS])
def test_concatenation_fuses_into_its_consumer(name, fn, inputs, most, dtype):
    """A concatenation of few inputs is one nest over the result (a guarded
    load per input, selected by position), so it and what computes its
    parts fuse into its consumer: rotary embeddings' rotate_half was a
    kernel of two nests (the generic schedule) and the negation a third."""
    torch.manual_seed(0)
    args = inputs(dtype)
    for via in ["loop", "kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, args, via=via)
        assert report.passed, (via, report)
        assert report.kernels <= most, "%s: %d kernels" % (name, report.kernels)


def test_concatenation_of_many_inputs_and_dtypes():
    """Five inputs keep one nest per input; integers, booleans and an empty
    part concatenate in either form."""
    torch.manual_seed(0)
    parts = [torch.randn(4, n) for n in (2, 1, 3, 1, 2)]
    report = check(lambda *xs: torch.cat([x * (i + 1) for i, x in enumerate(xs)], 1),
                   parts, via="kernel")
    assert report.passed, report
    ints = (torch.randint(-5, 5, (3, 4)), torch.randint(-5, 5, (2, 4)))
    report = check(lambda a, b: torch.cat((a, b + 1)) * 3, ints, via="kernel")
    assert report.passed, report
    bools = (torch.rand(3, 2) > 0.5, torch.rand(3, 5) > 0.5, torch.zeros(3, 0) > 0)
    report = check(lambda a, b, e: ~torch.cat((a, e, b), 1), bools, via="kernel")
    assert report.passed, report


def test_computed_producer_fuses_under_a_pad_guard():
    """A computed producer read through a padded view fuses under its guard:
    its loads read nothing out of bounds, and the padding is selected where
    the guard fails (exp of the padding would replace it)."""
    torch.manual_seed(0)
    x = torch.randn(6, 9)
    fn = lambda x: -F.pad(x.exp(), (2, 1, 1, 3), value=1.5)
    for via in ["loop", "kernel", "kernel-reversed"]:
        report = check(fn, (x,), via=via)
        assert report.passed, (via, report)
        assert report.kernels == 1, report.kernels


def test_weights_rounded_to_a_half_are_written_by_their_softmax():
    """Eager attention in halves (transformers' `eager`: an f32 softmax of
    the scaled, masked scores rounded to bf16 before P . V) where it is no
    flash row: 2 heads of 24 queries share each key and value, too many
    for a decode step's fold, and an output row of 72 is none the Q tile's
    tensor cores take (a multiple of 16).
    The rounding stays with the softmax's row, which writes the bf16
    weights that P . V stages like any operand; fused into P . V's operand
    instead, the f32 exponentials were written, summed by a kernel of their
    own and read back by P . V (2.3 times the weights' bytes)."""
    torch.manual_seed(0)

    def attend(q, k, v):
        b, h, t, e = q.shape
        kv = k.shape[1]
        k = k[:, :, None].expand(b, kv, h // kv, t, e).reshape(b, h, t, e)
        v = v[:, :, None].expand(b, kv, h // kv, t, e).reshape(b, h, t, e)
        s = q @ k.transpose(2, 3) / 8.0
        mask = torch.full((t, t), float("-inf")).triu(1)
        return F.softmax(s.float() + mask, dim=-1).to(q.dtype) @ v

    args = (torch.randn(1, 4, 24, 72, dtype=torch.bfloat16),
            torch.randn(1, 2, 24, 72, dtype=torch.bfloat16),
            torch.randn(1, 2, 24, 72, dtype=torch.bfloat16))
    text = loop_ir(attend, *args)
    assert "x24x24xf32>" not in text, text
    assert re.search(r"-> tensor<1x4x24x24xbf16>", text), text
    assert text.count("loopir.kernel") == 3, text
    for via in ["kernel", "kernel-reversed"]:
        report = check(attend, args, via=via)
        assert report.passed, (via, report)

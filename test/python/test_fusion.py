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

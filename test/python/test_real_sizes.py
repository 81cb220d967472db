"""Small sizes prove numbers, real sizes prove schedules: the decoder block
of examples/decoder.py at GPT-2-small dimensions (dim 768, 12 heads, MLP
2048, one sequence of 1024) compiles with every projection as a tiled
contraction, attention as one flash kernel, and no launch beyond 65,536
blocks. (Its numbers are checked at
small sizes in test_run.py and test_contraction.py.)"""
import os
import re

import pytest
import torch

import strata
from conftest import REPO
from strata.compile_expr import from_file
from strata.frontend import capture, import_program

MAX_BLOCKS = 65536


@pytest.fixture(scope="module")
def gpt2_block():
    model, _ = from_file(os.path.join(REPO, "examples", "decoder.py"))
    block = type(model)(dim=768, heads=12, hidden=2048)
    torch.manual_seed(0)
    return capture(block, (torch.randn(1, 1024, 768),))


def lowered(program, stage):
    module = import_program(program)
    module.run(strata.pipeline(stage))
    return str(module)


def tile_kernels(text):
    """(domain, tile, body) of each tileir.kernel."""
    heads = list(re.finditer(r"tileir\.kernel .*? domain \[([\d, ]+)\] "
                             r"tile \[([\d, ]+)\]", text))
    for head, after in zip(heads, heads[1:] + [None]):
        body = text[head.end():after.start() if after else len(text)]
        yield ([int(d) for d in head.group(1).split(",")],
               [int(t) for t in head.group(2).split(",")], body)


def test_every_real_size_contraction_is_tiled(gpt2_block):
    # A sum over k >= 64 in a kernel of at least 64 x 64 outputs is a
    # matrix product: it must not run one output element per program.
    text = lowered(gpt2_block, "tile")
    contracts = 0
    for domain, tile, body in tile_kernels(text):
        contracts += body.count("tileir.contract")
        rows, cols = domain[-2:] if len(domain) >= 2 else (1, domain[0])
        per_element = all(t == 1 for t in tile[-2:])
        folds = [int(k) for k in re.findall(
            r"tileir\.fold add\(.*?\) \(.*?\) in \[(\d+)\]", body)]
        assert not (rows >= 64 and cols >= 64 and per_element and
                    any(k >= 64 for k in folds)), (domain, tile, body[:2000])
    # qkv, out, gate and up (one program), down; attention is one row
    # program (test_real_size_attention_is_one_kernel_without_scores).
    assert contracts == 5, text


def test_no_real_size_launch_exceeds_65536_blocks(gpt2_block):
    text = lowered(gpt2_block, "kernel")
    grids = [[int(g) for g in grid.split(",")] for grid in
             re.findall(r"grid = array<i64: ([\d, ]+)>", text)]
    assert len(grids) == 7
    for grid in grids:
        assert grid[0] * grid[1] * grid[2] <= MAX_BLOCKS, grids


def test_real_size_traffic_report(gpt2_block):
    from strata.report import traffic_report
    report = traffic_report(gpt2_block)
    weights = sum(w.numel() for w in gpt2_block.weights.values())
    assert report.ideal_bytes == (2 * 1024 * 768 + weights) * 4
    assert len(report.kernels) == 7
    # The matrix products are most of the FLOPs: 2 * 1024 * (3 * 768 * 768
    # + 768 * 768 + 3 * 768 * 2048) for the projections, in contraction
    # kernels, and 2 * 2 * 12 * 1024 * 1024 * 64 for attention, in its row
    # kernel (q.k and the weighted values per key and query, FMA).
    products = 2 * 1024 * (4 * 768 * 768 + 3 * 768 * 2048)
    contraction_flops = sum(k["flops"] for k in report.kernels
                            if k["kind"] == "contraction")
    assert contraction_flops >= products
    # And little else in them: the prologues (RMSNorm's scale, and for
    # gate and up the residual add before it) once per staged element per
    # block tile, 0.46 GFLOP.
    assert contraction_flops <= products + 0.5e9
    attention = 4 * 12 * 1024 ** 2 * 64
    rows = [k["flops"] for k in report.kernels if k["kind"] == "row"]
    assert max(rows) >= attention
    # The rest is its online softmax: the monoid's combine, which the row
    # applies per key, rescales each weighted sum as it adds a value (3
    # FLOPs where the product alone takes 2: 5/4 of the products), and the
    # exponentials and statistics per key.
    assert max(rows) <= attention * 1.3


def test_real_size_attention_is_one_kernel_without_scores():
    # Prefill at sequence 4096 with GPT-2's heads: one kernel per (head,
    # tile of 64 queries), 768 blocks, reading q, K and V and writing the
    # output; no 12 x 4096 x 4096 scores anywhere.
    from strata.report import traffic_report

    def attend(q, k, v):
        s = torch.matmul(q, k.transpose(-2, -1)) / 8.0
        return torch.matmul(torch.softmax(s, dim=-1), v)

    inputs = tuple(torch.randn(1, 12, 4096, 64) for _ in range(3))
    program = capture(attend, inputs)
    text = lowered(program, "tile")
    assert "4096x4096" not in text, text
    (domain, tile, body), = tile_kernels(text)
    assert domain == [1, 12, 4096] and tile == [1, 1, 64], (domain, tile)
    report = traffic_report(program)
    assert report.kernels[0]["programs"] == 768, report.text()
    assert report.bytes <= report.ideal_bytes * 1.001, report.text()


@pytest.mark.xfail(strict=True, reason="2.9x: with attention one kernel, the "
                   "rest is what passes between kernels at their usual "
                   "boundaries (QKV 9.4 MB, the MLP's hidden 8.4 MB, each "
                   "written and read) and the residual stream recomputed "
                   "after attention; see docs/tile-schedules.md")
def test_real_size_traffic_is_within_twice_the_ideal(gpt2_block):
    from strata.report import traffic_report
    report = traffic_report(gpt2_block)
    assert report.bytes <= 2 * report.ideal_bytes, report.text()


def test_real_size_decode_attention_is_split_kv_at_the_ideal_traffic():
    # GPT-2 small's attention for one new token against 1024 cached keys:
    # the flash fold per head, its keys split across blocks (split-KV,
    # tileir-split-folds: 8 slices of 128 keys, 96 blocks instead of 12),
    # reading q, K and V once and writing the output; the slices' states
    # (max, sum, 64 sums of the row) are what it adds to the ideal, and a
    # second kernel per head combines them. The row vector counts each of
    # the 64 value columns it loads (no elements missed).
    from strata.report import traffic_report

    def attend(q, k, v):
        s = torch.matmul(q, k.transpose(-2, -1)) / 8.0
        return torch.matmul(torch.softmax(s, dim=-1), v)

    inputs = (torch.randn(1, 12, 1, 64), torch.randn(1, 12, 1024, 64),
              torch.randn(1, 12, 1024, 64))
    report = traffic_report(capture(attend, inputs))
    assert [(k["kind"], k["programs"]) for k in report.kernels] == [
        ("row", 96), ("row", 12)], report.text()
    states = 8 * 12 * 66 * 4
    assert report.bytes <= report.ideal_bytes * 1.001 + 2 * states, report.text()


@pytest.mark.parametrize("spelling", ["eager", "softmax in halves"])
def test_real_size_decode_attention_in_halves_is_split_kv(spelling):
    # Llama-2-7B's decode step in bf16 (32 heads, head dimension 128, 4096
    # cached keys), as transformers' eager attention writes it (an f32
    # softmax rounded to bf16 before P . V) and as a softmax in bf16: the
    # flash fold with split-KV, K and V read once, where the rounded weights
    # kept three kernels (scores, softmax, a P . V of 32 blocks: 40.8 us
    # modeled against an ideal 15.6).
    from strata.report import traffic_report

    def eager(q, k, v):
        w = torch.matmul(q, k.transpose(2, 3)) * 128 ** -0.5
        w = torch.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
        return torch.matmul(w, v)

    def halves(q, k, v):
        s = torch.matmul(q, k.transpose(2, 3)) * 128 ** -0.5
        return torch.matmul(torch.softmax(s, dim=-1), v)

    inputs = (torch.randn(1, 32, 1, 128, dtype=torch.bfloat16),
              torch.randn(1, 32, 4096, 128, dtype=torch.bfloat16),
              torch.randn(1, 32, 4096, 128, dtype=torch.bfloat16))
    fn = eager if spelling == "eager" else halves
    report = traffic_report(capture(fn, inputs))
    assert [k["kind"] for k in report.kernels] == ["row", "row"], report.text()
    assert report.bytes <= report.ideal_bytes * 1.01, report.text()

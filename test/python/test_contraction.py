"""Contractions get the tiled contraction schedule (block tiles of rows and
columns, operands staged through shared memory in steps of k, fused
prologue and epilogue) and the emulated GPU kernels match PyTorch at
ragged sizes, forward and with the threads of every barrier interval in
reverse."""
import re

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import strata
from strata.frontend import capture, import_program
from strata.runner import check
from conftest import tile_ir, excess_over_one_rounding


def randn(*shape):
    return torch.randn(*shape) * 2 + 0.5  # never zeros


CONTRACTIONS = {
    # Ragged everywhere: no size is a multiple of the 64 x 64 tile or of
    # the 16 k of a step.
    "matmul": (torch.matmul, lambda: (randn(100, 333), randn(333, 70))),
    "one_tile_of_many": (torch.matmul, lambda: (randn(9, 513), randn(513, 8))),
    "prologue_epilogue": (lambda x, b, w, c: F.gelu((x * b) @ w + c),
                          lambda: (randn(37, 65), randn(65), randn(65, 129), randn(129))),
    "linear": (nn.Linear(96, 40), lambda: (randn(2, 17, 96),)),
    "bmm": (torch.bmm, lambda: (randn(3, 37, 20), randn(3, 20, 41))),
    "einsum_transposed": (lambda a, b: torch.einsum("ki,kj->ij", a, b),
                          lambda: (randn(23, 31), randn(23, 45))),
}



@pytest.mark.parametrize("name", sorted(CONTRACTIONS))
def test_contraction_matches_pytorch(name):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs = CONTRACTIONS[name]
    inputs = make_inputs()
    assert "tileir.contract" in tile_ir(fn, inputs)
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def rms_normed(x, w):
    return x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w


# Products whose fused prologue reads a per-row statistic, and sibling
# products of one input: each matrix product is a tileir.contract (the
# count is the third entry), never a fold per output element.
FUSED_CONTRACTIONS = {
    "rms_normed_projection": (lambda x, w, p: rms_normed(x, w) @ p.t(),
                              lambda: (randn(70, 96), randn(96), randn(150, 96)), 1),
    "layer_normed_projection": (lambda x, p: F.layer_norm(x, (96,)) @ p.t(),
                                lambda: (randn(70, 96), randn(150, 96)), 1),
    "gated_projections": (lambda x, w, g, u: F.silu(rms_normed(x, w) @ g.t())
                          * (rms_normed(x, w) @ u.t()),
                          lambda: (randn(70, 96), randn(96), randn(77, 96),
                                   randn(77, 96)), 2),
}


@pytest.mark.parametrize("dtype", [torch.float32, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(FUSED_CONTRACTIONS))
def test_fused_prologues_and_siblings_stay_contractions(name, dtype):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs, products = FUSED_CONTRACTIONS[name]
    inputs = tuple(t.to(dtype) for t in make_inputs())
    text = tile_ir(fn, inputs)
    assert text.count("tileir.contract") == products, text
    assert "tile [1, 1]" not in text and "tile [1, 1, 1]" not in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def contract_stages(fn, inputs, options):
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("tile", options))
    return [int(s or 1) for s in
            re.findall(r"tileir.contract [^\n]*?(?:stages (\d+))? :", str(module))]


def test_sibling_contractions_share_tensor_cores_and_shared_memory():
    # Gate and up on bf16: both contractions of the one program multiply on
    # tensor cores, and their pipelines split the shared memory: a budget
    # for two stages of one 64 x 64 bf16 contraction (6 KiB a stage) gives
    # each sibling one.
    fn, make_inputs, _ = FUSED_CONTRACTIONS["gated_projections"]
    inputs = tuple(t.bfloat16() for t in make_inputs())
    single, _, _ = FUSED_CONTRACTIONS["rms_normed_projection"]
    single_inputs = inputs[:3]
    budget = "shared-memory=14000"
    assert contract_stages(single, single_inputs, budget) == [2]
    assert contract_stages(fn, inputs, budget) == [1, 1]
    assert contract_stages(fn, inputs, "") == [2, 2]
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel"))
    kernels = str(module).split("kernelir.func")[1:]
    gated = [k for k in kernels if "math.exp" in k]  # silu's epilogue
    assert len(gated) == 1, kernels
    # Two k loops (one per accumulator) of mma.sync, no FMA fallback.
    assert "kernelir.mma " in gated[0] and "math.fma" not in gated[0]
    assert gated[0].count("scf.for") == 2, gated[0]


@pytest.mark.parametrize("options", ["tile-sizes=16,32 threads=64 k-tile=8",
                                     "tile-sizes=8,8 threads=32 k-tile=5"])
def test_forced_contraction_shapes(options):
    torch.manual_seed(1)
    x, w = randn(45, 77), randn(77, 29)
    module = import_program(capture(torch.matmul, (x, w)))
    module.run(strata.pipeline("tile", "schedule=contraction " + options))
    assert "tileir.contract" in str(module)
    report = check(torch.matmul, (x, w), via="kernel",
                   options="schedule=contraction " + options)
    assert report.passed, report


@pytest.mark.parametrize("via", ["loop", "kernel", "kernel-reversed"])
def test_bfloat16_contraction_accumulates_in_f32(via):
    # bf16 products are summed in f32 and rounded once, as cuBLAS does:
    # within one bf16 rounding of the exact product (plus f32 summation
    # error), which summing in bf16 would miss by far. (No host matmul is
    # the reference: their bf16 and f32 sums differ between builds.)
    from strata.runner import host_view, poisoned, via_pipeline
    torch.manual_seed(3)
    a, b = randn(45, 77).bfloat16(), randn(77, 29).bfloat16()
    program = capture(torch.matmul, (a, b))
    module = import_program(program)
    text = tile_ir(torch.matmul, (a, b))
    assert "tileir.contract" in text and "arith.extf" in text
    out = poisoned((45, 29), torch.bfloat16)
    module.run_on_cpu("forward", via_pipeline(via), [host_view(a), host_view(b)],
                      [host_view(out)])
    assert excess_over_one_rounding(out, a, b) <= 0


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(512, 384, 256), (100, 333, 70), (9, 513, 8),
                                   (45, 77, 29)])
def test_half_matmul_multiplies_on_tensor_cores(shape, dtype):
    # One kernel whose warps multiply f16 (bf16) on tensor cores
    # (kernelir.mma, emulated here through the PTX fragment layout) and sum
    # in f32: within one rounding of the f32 product of the inputs, in every
    # thread order. (PyTorch 1.13 has no CPU f16 matmul to compare with.)
    from strata.runner import host_view, poisoned, via_pipeline
    torch.manual_seed(sum(shape))
    m, k, n = shape
    a, b = randn(m, k).to(dtype), randn(k, n).to(dtype)
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("kernel"))
    text = str(module)
    assert text.count("kernelir.launch") == 1, text
    assert "kernelir.mma" in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        module = import_program(capture(torch.matmul, (a, b)))
        out = poisoned((m, n), dtype)
        module.run_on_cpu("forward", via_pipeline(via), [host_view(a), host_view(b)],
                          [host_view(out)])
        excess = excess_over_one_rounding(out, a, b)
        assert excess <= 0, (via, excess)


WARPGROUP_SCHEDULES = {
    # The default 64 x 64 tile, 8 warps: two warpgroups side by side, each
    # 64 x 32 (m64n32k16), 16 k a step.
    "default": "",
    # One stage: no pipeline, a fence and barrier per step.
    "unpipelined": "stages=1",
    # Two warpgroups stacked, each one 64 x 128 slab, 32 k a step (two
    # wgmma.mma_async per kernelir.wgmma).
    "stacked": "schedule=contraction tile-sizes=128,128 threads=256 k-tile=32",
    # One warpgroup, two slabs of 64 x 128.
    "two_slabs": "schedule=contraction tile-sizes=128,128 threads=128 k-tile=32",
    # 37 x 3000 by 3000 x 45: one tile, split in k (tileir-split-k); the
    # partial kernel's slices multiply by warpgroups.
    "split_k": "",
}
WARPGROUP_SHAPES = {"split_k": (37, 3000, 45)}


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("schedule", sorted(WARPGROUP_SCHEDULES))
def test_half_matmul_by_warpgroups(schedule, dtype):
    # wgmma=true: each warpgroup multiplies its 64-row slabs straight from
    # shared chunks in wgmma's core-matrix layout (kernelir.wgmma, emulated
    # here through the descriptors' byte strides). Ragged everywhere: rows
    # of 300, 260 columns, k = 333 (the last step mostly out of bounds).
    from strata.runner import host_view, poisoned, via_pipeline
    options = "wgmma=true " + WARPGROUP_SCHEDULES[schedule]
    torch.manual_seed(len(schedule))
    m, k, n = WARPGROUP_SHAPES.get(schedule, (300, 333, 260))
    a, b = randn(m, k).to(dtype), randn(k, n).to(dtype)
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert "kernelir.wgmma" in text and "kernelir.mma " not in text, text
    assert text.count("kernelir.launch") == (2 if schedule == "split_k" else 1)
    assert "kernelir.proxy_fence" in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        module = import_program(capture(torch.matmul, (a, b)))
        out = poisoned((m, n), dtype)
        module.run_on_cpu("forward", via_pipeline(via, options),
                          [host_view(a), host_view(b)], [host_view(out)])
        excess = excess_over_one_rounding(out, a, b)
        assert excess <= 0, (via, excess)


TMA_SCHEDULES = {
    # Two warpgroups stacked (128 x 128), 64 k a step: rows of 128 bytes
    # (the 128-byte swizzle), three stages on three mbarriers.
    "stacked": "schedule=contraction tile-sizes=128,128 threads=256 k-tile=64",
    # The default 64 x 64 tile, 16 k a step: the 32-byte swizzle.
    "default": "",
    # 32 k a step (the 64-byte swizzle), one stage: every step waits on the
    # same mbarrier, its parity alternating.
    "unpipelined": "k-tile=32 stages=1",
    # 128 k a step: two boxes a step per operand (k blocks of 64 halves).
    "two_boxes": "schedule=contraction tile-sizes=128,64 threads=128 "
                 "k-tile=128 stages=2",
    # Persistent: 3 instances take every tile, their rings of 3 stages
    # counted across tiles.
    "persistent": "persistent-instances=3 k-tile=32 stages=3",
    # Each step's wgmmas waited for before the next step's copies are
    # awaited (otherwise, with stages > 1, they stay in flight for a step).
    "waited": "wgmma-overlap=false k-tile=32 stages=3",
}

# The TMA schedules whose steps' wgmmas stay in flight for a step: not one
# stage (two_boxes' 48 KiB steps fit one stage in shared memory).
OVERLAPPED = {"stacked", "default", "persistent"}


def assert_wgmmas_in_flight(text, overlapped):
    # Overlapped: every wgmma async, the loop's wait leaving the step's
    # groups in flight and a wait for none after the loop; otherwise none.
    assert re.search(r"kernelir\.wgmma .* async :", text) if overlapped \
        else "async" not in text, text
    assert bool(re.search(r"kernelir\.wgmma_wait .* pending [1-9]", text)) \
        == overlapped, text
    assert ("pending 0" in text) == overlapped, text


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("schedule", sorted(TMA_SCHEDULES))
@pytest.mark.parametrize("form", ["linear", "matmul"])
def test_half_matmul_by_warpgroups_fed_by_tma(form, schedule, dtype):
    # tma=true: x @ w.T (both operands K-major, as every nn.Linear's) and
    # a @ b (b row-major, k x n: copied MN-major, read by wgmma transposed)
    # have both chunks copied by kernelir.tma_load into swizzled chunks,
    # one thread issuing, every thread waiting on the stage's mbarrier; no
    # thread stages an element. Ragged: 300 rows, k = 328 (rows of whole
    # 16-byte units, as a tensor map needs, but no multiple of any step),
    # 264 or 260 columns: the boxes' zeros past the tensors are the edges
    # and the k tail. Emulated in every thread order, the mbarriers'
    # phases and bytes exactly (a wrong count or parity fails as a hang
    # would).
    from strata.runner import host_view, poisoned, via_pipeline
    options = "wgmma=true tma=true " + TMA_SCHEDULES[schedule]
    torch.manual_seed(len(schedule))
    m, k = 300, 328
    if form == "linear":
        a, b = randn(m, k).to(dtype), randn(260, k).to(dtype)
        fn, product = (lambda x, w: x @ w.t()), (lambda: b.t())
    else:  # Rows of b: 264 halves, whole 16-byte units.
        a, b = randn(m, k).to(dtype), randn(k, 264).to(dtype)
        fn, product = torch.matmul, (lambda: b)
    n = product().shape[1]
    module = import_program(capture(fn, (a, b)))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert text.count("kernelir.tensor_map") == 2, text
    assert "kernelir.tma_load" in text and "async_copy" not in text, text
    assert re.search(r"kernelir\.wgmma .* swizzle \d+" +
                     (" rhs_mn_major" if form == "matmul" else "( async)? :"),
                     text), text
    assert_wgmmas_in_flight(text, schedule in OVERLAPPED)
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        module = import_program(capture(fn, (a, b)))
        out = poisoned((m, n), dtype)
        module.run_on_cpu("forward", via_pipeline(via, options),
                          [host_view(a), host_view(b)], [host_view(out)])
        excess = excess_over_one_rounding(out, a, product())
        assert excess <= 0, (via, excess)


def test_mlp_and_gram_matrix_fed_by_tma():
    # nn.Linear layers with fused epilogues (bias, GELU) and x @ x.T (one
    # buffer, one tensor map, as both operands of square tiles) take TMA
    # and match PyTorch on the CPU in a shuffled thread order.
    torch.manual_seed(7)
    mlp = nn.Sequential(nn.Linear(96, 200), nn.GELU(), nn.Linear(200, 64)).half()
    for fn, inputs in ((mlp, (randn(50, 96).half(),)),
                       (lambda x: x @ x.t(), (randn(130, 64).half(),))):
        options = "wgmma=true tma=true"
        module = import_program(capture(fn, inputs))
        module.run(strata.pipeline("kernel", options))
        assert "kernelir.tma_load" in str(module), str(module)
        report = check(fn, inputs, via="kernel-shuffled", options=options)
        assert report.passed, report


BATCHED_TMA = {
    # Both operands batched: A's boxes [1, rows, k], B's (row-major, k x n,
    # so MN-major) [1, k, columns].
    "bmm": (torch.bmm, lambda: (randn(3, 100, 328), randn(3, 328, 72))),
    # B batched and transposed (K-major, as attention's q @ k.T).
    "bmm_nt": (lambda a, b: a @ b.transpose(1, 2),
               lambda: (randn(3, 100, 328), randn(3, 72, 328))),
    # Two batch dimensions (heads of a batch): 4-d boxes [1, 1, rows, k].
    "heads": (torch.matmul,
              lambda: (randn(2, 3, 100, 72), randn(2, 3, 72, 40))),
}


@pytest.mark.parametrize("schedule", ["default", "stacked", "persistent"])
@pytest.mark.parametrize("case", sorted(BATCHED_TMA))
def test_batched_half_matmul_fed_by_tma(case, schedule):
    # A batched operand's tensor map is of its whole tensor: a box is one
    # batch's rows ([1, ..., rows, S bytes], the leading extents 1, its
    # coordinates the tile's batch coordinates), landing in the same 2-d
    # chunk as an unbatched one's; the box's zeros past the tensor are the
    # ragged edges (100 rows, k = 328 or 72) as before; a persistent
    # kernel's instances take tiles of every batch. Emulated against PyTorch in every
    # thread order.
    torch.manual_seed(len(case))
    fn, make = BATCHED_TMA[case]
    inputs = tuple(t.half() for t in make())
    # Tile sizes name every dimension: 1 along the batch.
    batch = "1," * (max(t.dim() for t in inputs) - 2)
    options = "wgmma=true tma=true " + TMA_SCHEDULES[schedule].replace(
        "tile-sizes=", "tile-sizes=" + batch)
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert text.count("kernelir.tensor_map") == 2, text
    assert "async_copy" not in text, text
    for t in inputs:
        box = r"box \[" + "1, " * (t.dim() - 2) + r"\d+, \d+\]"
        assert t.dim() == 2 or re.search(box, text), (t.shape, text)
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)


FOLDED_BATCH_TMA = {
    # nn.Linear on activations of a batch of sequences: the batch folds
    # into the rows, x[r floordiv 100][r mod 100][k].
    "linear_3d": (nn.Linear(64, 72), lambda: (randn(3, 100, 64),)),
    # A batch of one: x[0][r][k].
    "linear_batch_of_1": (nn.Linear(64, 72), lambda: (randn(1, 100, 64),)),
    # Two leading dimensions: x[r floordiv 150][(r floordiv 50) mod 3]
    # [r mod 50][k].
    "linear_4d": (nn.Linear(64, 72), lambda: (randn(2, 3, 50, 64),)),
    # x @ B.T for a batch of Bs: the batch folds into n, K-major.
    "batch_in_n": (lambda x, b: x @ b.transpose(1, 2),
                   lambda: (randn(100, 64), randn(3, 72, 64))),
}


@pytest.mark.parametrize("case", sorted(FOLDED_BATCH_TMA))
def test_folded_batch_fed_by_tma(case):
    # A K-major operand whose leading dimensions delinearize the rows (or
    # columns) it varies is one matrix of all the batches' rows to its
    # tensor map: a box of rank 2 over the 3-d or 4-d buffer (`box [rows,
    # S]`; the runtime sees the leading dimensions as one), so a tile's
    # rows may straddle two batches, as the folded index does. Ragged:
    # 300 rows in 64-row tiles. Emulated against PyTorch in every order.
    torch.manual_seed(len(case))
    fn, make = FOLDED_BATCH_TMA[case]
    fn = fn.half() if isinstance(fn, nn.Module) else fn
    inputs = tuple(t.half() for t in make())
    options = "wgmma=true tma=true"
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert text.count("kernelir.tensor_map") == 2, text
    assert "async_copy" not in text, text
    assert re.search(r"kernelir\.tma_load %\w+\[%\w+, %\w+\], .* box "
                     r"\[\d+, \d+\] .* : memref<\d+x\d+x\d+x", text), text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)


def heads_in_k(o, w):
    # Attention's output [b][h][s][d] read as rows (b, s) and k (h, d), as
    # its output projection reads it.
    b, h, s, d = o.shape
    return o.transpose(1, 2).reshape(b, s, h * d) @ w.t()


def attention_then_projection(q, k, v, w):
    b, h, s, d = q.shape
    y = torch.softmax(q @ k.transpose(-2, -1) / 8, dim=-1) @ v
    return y.transpose(1, 2).reshape(b, s, h * d) @ w.t()


SPLIT_VIEW_TMA = {
    # 96 rows a sequence: a 128-row tile's rows are boxes of 32 rows
    # (gcd), two of its boxes in the next sequence.
    "heads_in_k": (heads_in_k, lambda: (randn(2, 4, 96, 64), randn(72, 256))),
    # Heads of 32: a box row of the 64-byte swizzle is one head's.
    "heads_of_32_in_k": (heads_in_k,
                         lambda: (randn(2, 6, 40, 32), randn(72, 192))),
    # The weight's k split: [h][n][d] read as n x (h d).
    "weight_heads_in_k": (
        lambda x, w: x @ w.permute(1, 0, 2).reshape(72, 256).t(),
        lambda: (randn(100, 256), randn(4, 72, 64))),
    # The projection of an attention kernel's [b h][s][d] output.
    "attention_output": (attention_then_projection,
                         lambda: (randn(2, 4, 40, 64), randn(2, 4, 40, 64),
                                  randn(2, 4, 40, 64), randn(72, 256))),
}


# The stacked schedule is forced on every kernel: not the attention's.
@pytest.mark.parametrize("case,schedule", [
    (case, schedule) for case in sorted(SPLIT_VIEW_TMA)
    for schedule in ["stacked", "default"]
    if (case, schedule) != ("attention_output", "stacked")])
def test_split_views_fed_by_tma(case, schedule):
    # A K-major operand whose indices split its rows and/or k in two (the
    # attention output [b][h][s][d] read as [b s][h d]) takes TMA through
    # a view of its tensor map ([b][h][s][d]: `kernelir.tensor_map =
    # array<...>`) and boxes [1, 1, rows, k]; a tile straddling two
    # sequences takes boxes of the gcd of its rows and a sequence's, each
    # at its rows of the chunk. Ragged: 192 or 80 rows, 72 columns.
    # Emulated against PyTorch in every order.
    torch.manual_seed(len(case))
    fn, make = SPLIT_VIEW_TMA[case]
    inputs = tuple(t.half() for t in make())
    options = "wgmma=true tma=true " + TMA_SCHEDULES[schedule]
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", options))
    [kernel] = [k for k in str(module).split("kernelir.func")[1:]
                if "kernelir.wgmma" in k and "tensor_map" in k]
    assert re.search(r"kernelir\.tensor_map = array<i64: (\d+, )+\d+>",
                     kernel), kernel
    assert "async_copy" not in kernel, kernel
    assert re.search(r"box \[(1, )+\d+, \d+\]", kernel), kernel
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)


def test_split_view_needs_boxes_of_whole_swizzle_periods():
    # 100 rows a sequence: a 64-row tile's boxes would be gcd(64, 100) = 4
    # rows, less than a swizzle period: the operand keeps cp.async, the
    # weight's copies with it (a kernel's operands take TMA together).
    torch.manual_seed(1)
    inputs = (randn(2, 4, 100, 64).half(), randn(72, 256).half())
    options = "wgmma=true tma=true"
    module = import_program(capture(heads_in_k, inputs))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert "kernelir.tensor_map" not in text and "async_copy" in text, text
    report = check(heads_in_k, inputs, via="kernel", options=options)
    assert report.passed, report


TMA_STORE = {
    # nn.Linear's epilogue kept (bias, GELU, the cast) before the tile goes
    # out: 300 x 264 (264 halves a row: whole 16-byte units).
    "linear_gelu": (lambda x, w, b: F.gelu(x @ w.t() + b),
                    lambda: (randn(300, 328).half(), randn(264, 328).half(),
                             randn(264).half())),
    # a @ b in bf16 (B MN-major on the way in).
    "matmul_bf16": (torch.matmul, lambda: (randn(300, 328).bfloat16(),
                                           randn(328, 264).bfloat16())),
    # A batch folded into the rows of the result: [3][100][72] seen as 300
    # x 72 by its tensor map.
    "linear_3d": (lambda x, w: x @ w.t(),
                  lambda: (randn(3, 100, 64).half(), randn(72, 64).half())),
    # f32 results (4 bytes an element): rows of 264 floats.
    "f32_result": (lambda x, w: (x @ w.t()).float() * 2,
                   lambda: (randn(300, 328).half(), randn(264, 328).half())),
}


@pytest.mark.parametrize("schedule", ["stacked", "default", "persistent"])
@pytest.mark.parametrize("case", sorted(TMA_STORE))
def test_result_tiles_stored_by_tma(case, schedule):
    # tma-store=true: the threads store their elements of the result tile
    # (after the epilogue's maps) into a swizzled staging buffer, a proxy
    # fence and a barrier, and one thread copies it out by kernelir.
    # tma_store, a box per swizzled block of columns, which TMA clips at the
    # tensor's ragged edges (300 rows, 264 or 72 columns); no thread stores
    # to global memory. Persistent: a barrier after each tile's copies.
    # Three thread orders against PyTorch.
    torch.manual_seed(len(case))
    fn, make = TMA_STORE[case]
    inputs = make()
    options = "wgmma=true tma=true tma-store=true " + TMA_SCHEDULES[schedule]
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", options))
    [kernel] = [k for k in str(module).split("kernelir.func")[1:]
                if "kernelir.wgmma" in k]
    assert re.search(r"kernelir\.tma_store .* box \[\d+, \d+\] swizzle",
                     kernel), kernel
    assert "bulk_wait pending 0 read" in kernel, kernel
    assert not re.search(r"kernelir\.store .*, %arg\d+\[", kernel), kernel
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)


@pytest.mark.parametrize("dtype,schedule,family", [
    (torch.float32, "", "math.fma"),
    (torch.float16, "schedule=contraction tile-sizes=32,64 threads=64 "
     "k-tile=32", "kernelir.mma ")])
def test_result_tiles_of_other_families_stored_by_tma(dtype, schedule,
                                                      family):
    # The epilogue's copy-out is the kernel's, whatever multiplies: an f32
    # contraction on fused multiply-adds and an f16 one on mma.sync (a
    # tile of two warpgroups' rows is not) store by TMA too, the staging
    # over the lhs chunks, which every thread copies into by cp.async: so
    # every thread waits for the copy-out (a barrier after the one
    # thread's wait) before it may copy into them again.
    torch.manual_seed(3)
    fn = lambda x, w, b: F.gelu(x @ w.t() + b)  # noqa: E731
    inputs = (randn(300, 328).to(dtype), randn(264, 328).to(dtype),
              randn(264).to(dtype))
    options = "wgmma=true tma=true tma-store=true " + schedule
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert "kernelir.wgmma" not in text and family in text, text
    assert "kernelir.tma_store" in text, text
    assert re.search(r"kernelir\.shared : .* overlays", text), text
    assert "async_copy" in text, text
    assert re.search(r"bulk_wait pending 0 read\n\s*}\n\s*kernelir\.barrier",
                     text), text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)


@pytest.mark.parametrize("columns,schedule,result", [
    # 260 halves a row are no whole 16-byte units (a tensor map's
    # strides).
    (260, "", torch.float16),
    # f32 results of 128 x 256 tiles in five stages: the 128 KiB staging
    # buffer is larger than either operand's chunks (40 and 80 KiB) and
    # has no room beside them.
    (264, "schedule=contraction tile-sizes=128,256 threads=256 k-tile=32 "
     "stages=5 shared-memory=230000", torch.float32)])
def test_tma_store_only_where_a_tensor_map_fits(columns, schedule, result):
    # Elsewhere the threads store the tile, as without tma-store.
    torch.manual_seed(2)
    fn = lambda x, w: (x @ w.t()).to(result)  # noqa: E731
    inputs = (randn(300, 328).half(), randn(columns, 328).half())
    options = "wgmma=true tma=true tma-store=true " + schedule
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert "tma_store" not in text, text
    report = check(fn, inputs, via="kernel", options=options)
    assert report.passed, report


STAGING_OVER_CHUNKS = {
    # 128 x 128 tiles, three stages of 64 k: the 32 KiB staging buffer
    # over the 48 KiB of either operand's chunks.
    "stacked": TMA_SCHEDULES["stacked"],
    # 128 x 256 tiles in four stages (192 KiB of chunks), which left no
    # room for a 64 KiB staging buffer of its own: over the rhs chunks.
    "wide": "schedule=contraction tile-sizes=128,256 threads=256 k-tile=64 "
            "stages=4 shared-memory=230000",
    # A persistent kernel's tiles: the next tile's copies into the chunks
    # after the last tile's staging is read.
    "persistent": "schedule=contraction tile-sizes=128,128 threads=256 "
                  "k-tile=64 persistent-instances=3",
}


def shared_buffers(text):
    return re.findall(r"kernelir\.shared : (memref<.*?>>)( overlays)?", text)


@pytest.mark.parametrize("schedule", sorted(STAGING_OVER_CHUNKS))
def test_tma_store_staging_over_operand_chunks(schedule):
    # The staging buffer overlays an operand's chunks where they hold it:
    # the kernel takes the shared memory it takes without tma-store (the
    # same buffers and one overlay), after a barrier that follows the
    # contraction's last wait (every warpgroup's reads of the chunks and
    # groups in flight done). Emulated with the async groups tracked: a
    # thread's store over a chunk that a group may still read fails the
    # run. Three thread orders against PyTorch at 300 x 264 x 328.
    torch.manual_seed(5)
    fn = lambda x, w, b: F.gelu(x @ w.t() + b)  # noqa: E731
    inputs = (randn(300, 328).half(), randn(264, 328).half(),
              randn(264).half())
    options = "wgmma=true tma=true " + STAGING_OVER_CHUNKS[schedule]
    texts = []
    for store in ["", " tma-store=true"]:
        module = import_program(capture(fn, inputs))
        module.run(strata.pipeline("kernel", options + store))
        texts.append(str(module))
    plain, staged = (shared_buffers(t) for t in texts)
    assert [b for b in staged if not b[1]] == plain, (plain, staged)
    assert len(staged) == len(plain) + 1, staged
    after_last_wait = (r"kernelir\.wgmma_wait .* pending 0 .*\n"
                       r"\s*kernelir\.barrier")
    assert re.search(after_last_wait, texts[1]), texts[1]
    assert not re.search(after_last_wait, texts[0]), texts[0]
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via,
                       options=options + " tma-store=true")
        assert report.passed, (via, report)


GATED = {
    # A gated MLP's pair (x @ g.T and x @ u.T, one kernel): x is one tensor
    # map that both contractions' copies read.
    "gated": lambda x, g, u: F.silu(x @ g.t()) * (x @ u.t()),
    # x read by the epilogue too: neither contraction takes TMA (a tensor
    # map is read by TMA alone), both keep cp.async.
    "gated_reused": lambda x, g, u: F.silu(x @ g.t()) * (x @ u.t()) + x[:, :1],
}


@pytest.mark.parametrize("schedule", ["default", "stacked", "persistent"])
@pytest.mark.parametrize("tma", [False, True])
@pytest.mark.parametrize("case", sorted(GATED))
def test_sibling_contractions_by_warpgroups(case, tma, schedule):
    # Sibling contractions (one per accumulator) share the warpgroups'
    # layout, each its own k loop of wgmma; under tma=true they take TMA
    # together or not at all. Ragged: 100 rows, 72 columns, k = 328.
    torch.manual_seed(len(case) + tma)
    fn = GATED[case]
    inputs = (randn(100, 328).half(), randn(72, 328).half(),
              randn(72, 328).half())
    options = ("wgmma=true " + ("tma=true " if tma else "") +
               TMA_SCHEDULES[schedule])
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", options))
    [kernel] = [k for k in str(module).split("kernelir.func")[1:]
                if "kernelir.wgmma" in k]
    assert "kernelir.mma " not in kernel, kernel
    copied = tma and case == "gated"
    assert kernel.count("kernelir.tensor_map") == (3 if copied else 0), kernel
    assert ("async_copy" in kernel) != copied, kernel
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options=options)
        assert report.passed, (via, report)


@pytest.mark.parametrize("case", ["batch_in_n", "k_333", "reused"])
def test_tma_only_where_a_tensor_map_fits(case):
    # Where either operand has no tensor map (rows of 333 halves, no whole
    # 16-byte units; x @ B for a batch of row-major Bs, whose batch folds
    # into n: a chunk's row of k holds columns of two batches, apart in
    # memory, which no box is) or its buffer is read elsewhere too (it
    # would need a second argument), the contraction keeps the cp.async
    # staging under tma=true.
    x = randn(100, 333 if case == "k_333" else 64).half()
    fns = {
        "batch_in_n": (torch.matmul, (x, randn(3, 64, 72).half())),
        "k_333": (lambda x, w: x @ w.t(), (x, randn(72, 333).half())),
        # x is the residual of the epilogue as well.
        "reused": (lambda x, w: x @ w.t() + x, (x, randn(64, 64).half())),
    }
    fn, inputs = fns[case]
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", "wgmma=true tma=true"))
    text = str(module)
    assert "kernelir.wgmma" in text and "tma_load" not in text, text
    assert "tensor_map" not in text, text


def test_tma_needs_wgmma():
    module = import_program(capture(torch.matmul, (randn(8, 8), randn(8, 8))))
    with pytest.raises(strata.CompilerError, match="needs wgmma=true"):
        module.run(strata.pipeline("kernel", "tma=true"))


def test_warpgroups_only_where_the_tile_allows():
    # 32-row tiles hold no 64-row slab, f32 operands are not halves: both
    # keep their schedules (mma.sync, fused multiply-adds) under wgmma=true.
    a, b = randn(100, 64).half(), randn(64, 72).half()
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline(
        "kernel", "wgmma=true schedule=contraction tile-sizes=32,64 threads=128"))
    assert "kernelir.mma " in str(module) and "wgmma" not in str(module)
    module = import_program(capture(torch.matmul, (a.float(), b.float())))
    module.run(strata.pipeline("kernel", "wgmma=true"))
    assert "mma" not in str(module)


PIPELINED = {
    # Aligned rows: both operands copied asynchronously, 16 bytes a copy.
    "aligned": (torch.matmul, lambda: (randn(100, 64), randn(64, 72))),
    # k = 333: 4-byte copies of A; rows of 70 (multiples of 2, not of 4):
    # 8-byte copies of B.
    "ragged": (torch.matmul, lambda: (randn(100, 333), randn(333, 70))),
    # x @ w.T: the rhs chunk runs across w's rows, computed and stored.
    "linear": (nn.Linear(96, 40), lambda: (randn(17, 96),)),
    # A batch of rows: the flattening to 34 x 96 and back simplifies away
    # (loopir-normalize), so x's rows are copied too.
    "batched_linear": (nn.Linear(96, 40), lambda: (randn(2, 17, 96),)),
    # A fused prologue is computed; the plain rhs is copied.
    "prologue": (lambda x, b, w: (x * b) @ w,
                 lambda: (randn(37, 65), randn(65), randn(65, 128))),
}


@pytest.mark.parametrize("stages", [1, 2, 3])
@pytest.mark.parametrize("name", sorted(PIPELINED))
def test_pipelined_contraction_matches_pytorch(name, stages):
    # Each step of k keeps `stages` chunk slots; the copies of later steps
    # are in flight while a step multiplies. Every thread order, with
    # bounds checks, must still read each slot only once it is filled and
    # before it is refilled.
    torch.manual_seed(sum(map(ord, name)) + stages)
    fn, make_inputs = PIPELINED[name]
    inputs = make_inputs()
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel", "stages=%d" % stages))
    text = str(module)
    assert "kernelir.async_copy" in text, text
    assert ("memref<%dx" % stages in text) == (stages > 1), text
    if stages > 1:
        assert "kernelir.async_wait pending %d" % (stages - 2) in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via, options="stages=%d" % stages)
        assert report.passed, (via, report)


@pytest.mark.parametrize("dtype, tf32", [(torch.float16, False),
                                         (torch.bfloat16, False),
                                         (torch.float32, True)])
@pytest.mark.parametrize("n", [48, 45])
def test_tensor_core_epilogue_in_pairs(dtype, tf32, n):
    # Each lane's accumulator elements are pairs of neighbouring columns, so
    # with an even n the epilogue loads the bias and residual and stores
    # the result two elements at a time (a 32-bit store of two halves, a
    # 64-bit one of two floats); with n = 45 a pair could straddle the edge
    # and every access stays scalar. Checked in every thread order: halves
    # against f32 sums (`check` widens them), tf32 within its rounding of
    # both operands (2^-10 each) of the exact product.
    torch.manual_seed(n)
    x, w = randn(37, 72).to(dtype), randn(72, n).to(dtype)
    b, r = randn(n).to(dtype), randn(37, n).to(dtype)
    fn = lambda x, w, b, r: (x @ w + b) * r
    options = "tf32=true" if tf32 else ""
    module = import_program(capture(fn, (x, w, b, r)))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert "kernelir.mma" in text, text
    pair = "vector<2x%s>" % {torch.float16: "f16", torch.bfloat16: "bf16",
                             torch.float32: "f32"}[dtype]
    stores = [l for l in text.splitlines() if "kernelir.store" in l and "memref<37x" in l]
    assert stores and all((pair in l) == (n % 2 == 0) for l in stores), stores
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        if not tf32:
            report = check(fn, (x, w, b, r), via=via, options=options)
            assert report.passed, (via, report)
            continue
        from strata.runner import host_view, poisoned, via_pipeline
        module = import_program(capture(fn, (x, w, b, r)))
        out = poisoned((37, n), dtype)
        module.run_on_cpu("forward", via_pipeline(via, options),
                          [host_view(t) for t in (x, w, b, r)], [host_view(out)])
        exact = (x.double() @ w.double() + b.double()) * r.double()
        bound = (x.double().abs() @ w.double().abs()) * r.double().abs() * \
            2.0 ** -9 + exact.abs() * 1e-6 + 1e-6
        assert bool(((out.double() - exact).abs() <= bound).all()), via


@pytest.mark.parametrize("layout", ["linear", "row_major"])
def test_half_matmul_copies_both_operands(layout):
    # On tensor cores B is staged n x k where its rows run along k (x @ w.T:
    # w's own rows; ldmatrix) and k x n where they run along n (a row-major
    # b; ldmatrix .trans): either way both operands are asynchronous copies
    # of 8 halves. k = 104 is not a multiple of the 16 k of a step, so the
    # last step's copies zero-fill past k.
    from strata.runner import host_view, poisoned, via_pipeline
    torch.manual_seed(5)
    x = randn(70, 104).half()
    if layout == "linear":
        w = randn(48, 104).half()
        fn, b = (lambda x, w: x @ w.t()), w.t()
    else:
        w = randn(104, 48).half()
        fn, b = (lambda x, w: x @ w), w
    module = import_program(capture(fn, (x, w)))
    module.run(strata.pipeline("kernel"))
    text = str(module)
    assert "kernelir.mma" in text, text
    assert text.count("elements 8") == 2 * 2, text  # 2 operands x 2 places.
    transposed = [l for l in text.splitlines()
                  if "kernelir.ldmatrix" in l and " transpose :" in l]
    assert bool(transposed) == (layout == "row_major"), text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        module = import_program(capture(fn, (x, w)))
        out = poisoned((70, 48), torch.float16)
        module.run_on_cpu("forward", via_pipeline(via), [host_view(x), host_view(w)],
                          [host_view(out)])
        excess = excess_over_one_rounding(out, x, b)
        assert excess <= 0, (via, excess)


@pytest.mark.parametrize("shape", [(100, 64, 72), (45, 77, 29), (9, 513, 8)])
def test_tf32_matmul_only_when_asked_for(shape):
    # f32 contractions use fused multiply-adds unless tf32=true; then their
    # warps multiply on tensor cores (m16n8k8), each operand rounded to
    # tf32 (10 mantissa bits, to nearest) and the sums in f32. Compared with
    # the exact product: within the two roundings of each product, and
    # visibly less exact than f32 (so the rounding is really emulated).
    from strata.runner import host_view, poisoned, via_pipeline
    torch.manual_seed(sum(shape))
    m, k, n = shape
    a, b = randn(m, k), randn(k, n)
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("kernel"))
    assert "kernelir.mma" not in str(module)
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("kernel", "tf32=true"))
    text = str(module)
    assert "kernelir.mma" in text and "vector<4x1xf32>" in text, text
    # A's fragments with ldmatrix (8 x 4 floats per matrix), B's by element.
    assert "kernelir.ldmatrix" in text and "-> vector<4x1xf32>" in text, text
    exact = a.double() @ b.double()
    bound = (a.double().abs() @ b.double().abs()) * (2.0 ** -10 * 1.01 + k * 2.0 ** -23)
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        module = import_program(capture(torch.matmul, (a, b)))
        out = poisoned((m, n), torch.float32)
        module.run_on_cpu("forward", via_pipeline(via, "tf32=true"),
                          [host_view(a), host_view(b)], [host_view(out)])
        error = (out.double() - exact).abs()
        assert bool((error <= bound).all()), (via, (error - bound).max())
        relative = (error / exact.abs().clamp(min=1.0)).max().item()
        assert relative > 2.0 ** -16, (via, relative)


def test_pipeline_beyond_static_shared_memory():
    # 128 x 128 tiles, 32 k a step, 3 stages: 96 KiB of chunks, beyond the
    # 48 KiB a block declares statically, allowed by a larger budget
    # (dynamic shared memory at launch). The same kernels, emulated.
    torch.manual_seed(7)
    options = ("schedule=contraction tile-sizes=128,128 threads=256 k-tile=32 "
               "stages=3 shared-memory=200000")
    x, w = randn(300, 200), randn(200, 260)
    module = import_program(capture(torch.matmul, (x, w)))
    module.run(strata.pipeline("kernel", options))
    text = str(module)
    assert "memref<3x128x32xf32" in text and "memref<3x32x128xf32" in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(torch.matmul, (x, w), via=via, options=options)
        assert report.passed, (via, report)


@pytest.mark.parametrize("dtype, options", [(torch.float16, ""), (torch.bfloat16, ""),
                                            (torch.float32, "tf32=true")])
def test_large_block_tiles_on_tensor_cores(dtype, options):
    # A tensor-core contraction with at least 128 programs of 128 x 128
    # (here 128 batches) takes 128 x 128 block tiles (tileir-tile) and 64 k
    # per step for halves, 32 for tf32 (tileir-k-tile); rows of 100,
    # columns of 90 and k = 72 leave most of each tile and of the last step
    # out of bounds.
    from strata.runner import host_view, poisoned, via_pipeline
    torch.manual_seed(11)
    k = 72
    a, b = randn(128, 100, k).to(dtype), randn(128, k, 90).to(dtype)
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("tile", options))
    assert "tile [1, 128, 128] threads 256" in str(module)
    # Halves: 64 k per step, its two steps in flight (three stages where k
    # had more); tf32: 32 k per step, double-buffered. Both in dynamic
    # shared memory.
    step = 32 if dtype == torch.float32 else 64
    assert "k 72 step %d stages 2" % step in str(module)
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("kernel", options))
    assert "kernelir.mma" in str(module)
    exact = a.double() @ b.double()
    bound = (a.double().abs() @ b.double().abs()) * (2.0 ** -10 * 1.01 + k * 2.0 ** -23)
    if dtype != torch.float32:  # and the result's rounding to f16 / bf16
        bound += exact.abs() * 2.0 ** -(11 if dtype == torch.float16 else 8) * 1.01
    for via in ["kernel", "kernel-shuffled"]:
        module = import_program(capture(torch.matmul, (a, b)))
        out = poisoned((128, 100, 90), dtype)
        module.run_on_cpu("forward", via_pipeline(via, options),
                          [host_view(a), host_view(b)], [host_view(out)])
        error = (out.double() - exact).abs()
        assert bool((error <= bound).all()), (via, (error - bound).max())


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("shape", [(100, 333, 70), (45, 77, 29)])
def test_half_matmul_without_tensor_cores_stages_halves(shape, dtype):
    # With tensor-cores=false the threads multiply with fused multiply-adds,
    # but the chunks are still staged as halves (copied as they are, half the
    # shared memory), widened to f32 as they are read. (So small a grid
    # takes 32 x 32 tiles on FMAs: 32-row chunks of 16 k.)
    from strata.runner import host_view, poisoned, via_pipeline
    torch.manual_seed(sum(shape))
    m, k, n = shape
    a, b = randn(m, k).to(dtype), randn(k, n).to(dtype)
    module = import_program(capture(torch.matmul, (a, b)))
    module.run(strata.pipeline("kernel", "tensor-cores=false"))
    text = str(module)
    assert "kernelir.mma" not in text, text
    half = "bf16" if dtype == torch.bfloat16 else "f16"
    assert "memref<2x32x16x%s, #gpu.address_space<workgroup>>" % half in text, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        module = import_program(capture(torch.matmul, (a, b)))
        out = poisoned((m, n), dtype)
        module.run_on_cpu("forward", via_pipeline(via, "tensor-cores=false"),
                          [host_view(a), host_view(b)], [host_view(out)])
        excess = excess_over_one_rounding(out, a, b)
        assert excess <= 0, (via, excess)

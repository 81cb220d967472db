"""Attention is one kernel: each query row's scores q.k are folded over the
keys with online softmax's (max, sum, one weighted sum per output element)
monoid (tileir-fuse-folds), so they never exist in memory, and every
spelling that decomposes to matmul-softmax-matmul reaches it. A short query
(decoding) takes a warp or more per row, whose lanes split a long output
row; many query rows take the Q-tile schedule,
up to 64 rows per block sharing each chunk of keys and values through
shared memory (flash attention). Checked against PyTorch at ragged sizes,
the block's threads in every order."""
import math
import re

import pytest
import torch
import torch.nn.functional as F

import strata
from strata.frontend import capture, import_program
from strata.runner import check
from conftest import tile_ir

B, H, T = 2, 3, 45  # 45 keys: one warp and a ragged rest per thread


def attend(q, k, v):
    s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    return torch.matmul(F.softmax(s, dim=-1), v)


def attend_masked(q, k, v, mask):
    # An additive mask: 0 where a key counts, -inf where it does not.
    s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1]) + mask
    return torch.matmul(F.softmax(s, dim=-1), v)


def masked_fill(q, k, v, keep):
    s = torch.matmul(q, k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    s = s.masked_fill(keep == 0, float("-inf"))
    return torch.matmul(s.softmax(-1), v)


def shared_kv(q, k, v):
    # Multi-query attention: one key/value head for every query head.
    return attend(q, k.expand(-1, q.shape[1], -1, -1),
                  v.expand(-1, q.shape[1], -1, -1))


def randn(*shape):
    return torch.randn(*shape) * 1.5 + 0.25


def padding_mask():
    mask = torch.zeros(B, 1, 1, T)
    mask[0, ..., 40:] = float("-inf")  # the first sequence is shorter
    return mask


def cases():
    q, k, v = randn(B, H, 1, 32), randn(B, H, T, 32), randn(B, H, T, 32)
    return {
        "decode": (attend, (q, k, v)),
        "padding_mask": (attend_masked, (q, k, v, padding_mask())),
        "masked_fill": (masked_fill, (q, k, v, torch.rand(B, 1, 1, T) > 0.3)),
        "multi_query": (shared_kv, (q, randn(B, 1, T, 32), randn(B, 1, T, 32))),
        "three_queries_d64": (attend, (randn(B, H, 3, 64), randn(B, H, T, 64),
                                       randn(B, H, T, 64))),
        "head_dim_16": (attend, (randn(B, H, 1, 16), randn(B, H, T, 16),
                                 randn(B, H, T, 16))),
        # Longer output rows than a thread holds: each lane of the row's
        # warp folds every key's maximum and sum and 1/32 of the row's sums
        # (4 and 3 slots).
        "head_dim_128": (attend, (randn(1, 2, 1, 128), randn(1, 2, T, 128),
                                  randn(1, 2, T, 128))),
        "head_dim_96_masked_three_queries": (
            masked_fill, (randn(1, 2, 3, 96), randn(1, 2, T, 96),
                          randn(1, 2, T, 96), torch.rand(1, 1, 3, T) > 0.3)),
        # 80 (Phi-2's) splits among runs of 16 lanes (5 slots each), two
        # runs a warp taking turns over the keys; two queries sharing their
        # keys stage them in shared memory, 72 among runs of 8 lanes.
        "head_dim_80": (attend, (randn(1, 2, 1, 80), randn(1, 2, T, 80),
                                 randn(1, 2, T, 80))),
        "head_dim_72_two_queries": (attend, (randn(1, 2, 2, 72),
                                             randn(1, 2, T, 72),
                                             randn(1, 2, T, 72))),
    }



def one_fold_kernel(name, cases):
    """The tile program of case `name` (seeded by its name) after checking
    that it is one kernel of one composite fold; (fn, inputs, text)."""
    torch.manual_seed(sum(map(ord, name)))
    fn, inputs = cases[name]
    text = tile_ir(fn, inputs)
    assert text.count("tileir.kernel") == 1, text
    assert text.count("tileir.composite_fold") == 1, text
    return fn, inputs, text


def check_every_order(fn, inputs):
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


@pytest.mark.parametrize("name", sorted(cases()))
def test_short_query_attention_is_one_online_softmax_fold(name):
    # One kernel, its folds one composite fold: the max, the normalizer and
    # one sum per element of the output row; nothing else is written.
    fn, inputs, text = one_fold_kernel(name, cases())
    assert "tileir.fold" not in text, text
    head_dim = inputs[0].shape[-1]
    identity = ", ".join(["0xFF800000 : f32"] +
                         ["0.000000e+00 : f32"] * (head_dim + 1))
    keys = inputs[1].shape[-2]
    assert re.search(r"composite_fold \(%\w+\) in \[" + str(keys) +
                     r"\] identity\(" + re.escape(identity) + r"\)", text), text
    check_every_order(fn, inputs)


def test_fully_masked_rows_are_nan_as_in_pytorch():
    # softmax over keys that are all -inf is 0 / 0 in PyTorch: the fold's
    # -inf maximum must not turn that into a number.
    torch.manual_seed(5)
    q, k, v = randn(B, H, 1, 16), randn(B, H, T, 16), randn(B, H, T, 16)
    mask = padding_mask()
    mask[1] = float("-inf")
    report = check(attend_masked, (q, k, v, mask), via="kernel")
    assert report.passed, report


def safe_masked(q, k, v, keep):
    # torch 2.x's scaled_dot_product_attention with a boolean mask
    # (_safe_softmax): a query that sees no key gets 0, not NaN, by a
    # `where` on the mask's `any` over the keys, a mask the heads share.
    s = torch.matmul(q, k.transpose(-2, -1)) * q.shape[-1] ** -0.5
    out = torch.matmul(s.masked_fill(~keep, float("-inf")).softmax(-1), v)
    return torch.where(keep.any(-1, keepdim=True), out, 0.0)


@pytest.mark.parametrize("rows", [1, 37])
def test_boolean_mask_row_test_stays_beside_the_flash_fold(rows):
    # The mask's `any` is a statistic of the row (keys only) that neither
    # joins the fold of each output element (it once folded 64 copies of
    # it, 255 registers and 2 KB of spills per transformers GPT-2 layer) nor
    # turns the heads into a loop: one flash fold per row and one fold of
    # the mask, the rows still (batch, head, query).
    torch.manual_seed(rows)
    t = 45
    keep = torch.rand(B, 1, rows, t) > 0.3
    keep[1, 0, 0] = False  # a row that sees no key: 0
    inputs = (randn(B, H, rows, 32), randn(B, H, t, 32), randn(B, H, t, 32),
              keep)
    fn, inputs, text = one_fold_kernel("safe", {"safe": (safe_masked, inputs)})
    assert text.count("tileir.fold ") == 1, text
    assert len(re.findall(r"tileir\.fold \w+\([^)]*\) \(", text)) == 1, text
    assert re.search(r"domain \[%d, %d, %d\]" % (B, H, rows), text), text
    check_every_order(fn, inputs)


@pytest.mark.parametrize("dtype,rows", [(torch.float32, 37),
                                        (torch.float16, 70),
                                        (torch.bfloat16, 70)])
def test_boolean_mask_normalizer_joins_the_flash_fold(dtype, rows):
    # Loop fusion gives the softmax's sum and the mask's `any` (a count of
    # kept keys) one loop: one fold of two sums. tileir-fuse-folds takes
    # the sum out, so that the flash fold holds it (m, l, a_0, ...) rather
    # than a second pass over the keys recomputing every q . k; the count
    # keeps a fold of its own. In halves the fold then multiplies on
    # tensor cores.
    torch.manual_seed(rows)
    t = 75
    keep = torch.rand(1, 1, rows, t) > 0.3
    keep[0, 0, 3] = False  # a row that sees no key: 0
    inputs = tuple(x.to(dtype) for x in (randn(1, 2, rows, 32),
                                         randn(1, 2, t, 32),
                                         randn(1, 2, t, 32))) + (keep,)
    text = tile_ir(safe_masked, inputs)
    assert re.search(r"%\d+:34 = tileir.composite_fold", text), text
    assert re.findall(r"tileir\.fold \w+\([^)]*\) \(", text) == \
        ["tileir.fold add(0 : i64) ("], text
    if dtype != torch.float32:
        module = import_program(capture(safe_masked, inputs))
        module.run(strata.pipeline("kernel"))
        assert "kernelir.mma" in str(module)
    check_every_order(safe_masked, inputs)


def split_decode_kernel(inputs, options=""):
    module = import_program(capture(attend, inputs))
    module.run(strata.pipeline("kernel", options))
    return str(module)


def test_decode_splits_the_output_row_among_a_warps_lanes():
    # Decoding at head dimension 128: each lane holds the row's maximum and
    # sum and 4 of its 128 sums (element 32 s + lane, read straight from
    # the value row: coalesced), not all 130 (237 registers at 64, spills
    # at 128). Each lane scores one key of a group of 32 and hands the
    # score to the others (one idx shuffle; the sum's contribution, 1, is
    # a constant every lane has); nothing is combined across lanes, each
    # element is shuffled from its lane before it is written.
    torch.manual_seed(7)
    inputs = (randn(1, 2, 1, 128), randn(1, 2, T, 128), randn(1, 2, T, 128))
    text = split_decode_kernel(inputs)
    assert text.count("kernelir.func") == 1, text
    assert "kernelir.shuffle xor" not in text, text
    assert "kernelir.shared" not in text, text
    assert re.search(r"iter_args\([^)]*\) -> \((f32, ){5}f32\)", text), text
    assert text.count("kernelir.shuffle idx") == 1 + 128, text


def test_decode_rows_of_several_warps_combine_their_splits():
    # With more than a warp per row (here forced: 128 threads for 200
    # keys, split-KV in 4 slices and their combine), each warp folds every
    # fourth group of 32 keys, split among its lanes, and the warps combine
    # their folds lane by lane through shared memory after one barrier,
    # in warp order: the same bits in every warp, in every thread order.
    torch.manual_seed(8)
    inputs = (randn(1, 2, 1, 128), randn(1, 2, 200, 128),
              randn(1, 2, 200, 128))
    text = split_decode_kernel(inputs, "threads=128")
    assert text.count("kernelir.func") == 2, text
    assert "kernelir.shuffle xor" not in text, text
    assert text.count("kernelir.shared : memref<4x32xf32") == 2 * 6, text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(attend, inputs, via=via, options="threads=128")
        assert report.passed, (via, report)


def causal(q, k, v):
    # A causal mask from triu, as GPT-style models build it.
    t, u = q.shape[-2], k.shape[-2]
    s = torch.matmul(q, k.transpose(-2, -1)) / math.sqrt(q.shape[-1])
    future = torch.triu(torch.ones(t, u, dtype=torch.bool), diagonal=1)
    return torch.matmul(s.masked_fill(future, float("-inf")).softmax(-1), v)


def causal_additive(q, k, v):
    # The same mask added, as examples/decoder.py writes it.
    t = q.shape[-2]
    mask = torch.triu(torch.full((t, t), float("-inf")), diagonal=1)
    return torch.softmax(q @ k.transpose(-2, -1) * 0.2 + mask, dim=-1) @ v


def long_cases():
    """Prefill: many query rows (37 and 100: neither a multiple of the Q
    tile), 70 keys (a chunk of 64 and a ragged rest)."""
    t = 70
    def qkv(rows, d=32, kv_heads=H):
        return (randn(B, H, rows, d), randn(B, kv_heads, t, d),
                randn(B, kv_heads, t, d))
    padding = torch.zeros(B, 1, 1, t)
    padding[0, ..., 60:] = float("-inf")
    q, k, v = qkv(37)
    return {
        "prefill": (attend, qkv(100)),
        "padding_mask": (attend_masked, (q, k, v, padding)),
        "masked_fill": (masked_fill, (q, k, v, torch.rand(B, 1, 37, t) > 0.3)),
        # Causal: chunks of keys in the future of all of a block's rows
        # are skipped (rows 0-63 and keys 64-69).
        "causal": (causal, qkv(70)),
        "causal_additive": (causal_additive, qkv(70)),
        "multi_query": (shared_kv, qkv(37, kv_heads=1)),
        "head_dim_64": (attend, qkv(37, d=64)),
        # Longer output rows than a thread holds: each lane of a row folds
        # every key's maximum and sum and a quarter of the row's sums
        # (one head of one batch: the emulation's time grows with d).
        "head_dim_128_causal": (causal, one_head(40, 128)),
        "head_dim_96_padding": (attend_masked, (*one_head(37, 96), padding[:1])),
        "head_dim_256": (attend, one_head(20, 256, t=40)),
        # q . k over 6 elements, which do not divide among a row's 4 lanes:
        # each lane scores one key of a group of 4 and shares the score.
        "scores_of_6_values_of_8": (attend, (randn(B, H, 37, 6), randn(B, H, t, 6),
                                             randn(B, H, t, 8))),
    }


def one_head(rows, d, t=70):
    return randn(1, 1, rows, d), randn(1, 1, t, d), randn(1, 1, t, d)


@pytest.mark.parametrize("name", sorted(long_cases()))
def test_long_query_attention_is_one_q_tiled_kernel(name):
    # Many query rows: the same online-softmax fold per row, with up to 64
    # rows per program instance (4 threads each) sharing each chunk of keys
    # and values through shared memory. No scores, no probabilities, no
    # contraction kernel: one kernel per (batch, head, query tile).
    fn, inputs, text = one_fold_kernel(name, long_cases())
    assert "tileir.contract" not in text, text
    rows = inputs[0].shape[-2]
    tile = min(64, 1 << (rows - 1).bit_length())
    assert re.search(r"tile \[1, 1, %d\] threads %d " % (tile, 4 * tile),
                     text), text
    check_every_order(fn, inputs)


def eager_halves(q, k, v):
    # transformers' eager attention: an f32 softmax rounded to the inputs'
    # half before P . V.
    w = torch.matmul(q, k.transpose(2, 3)) * q.shape[-1] ** -0.5
    w = F.softmax(w, dim=-1, dtype=torch.float32).to(q.dtype)
    return torch.matmul(w, v)


def softmax_halves(q, k, v):
    return F.softmax(q @ k.transpose(-1, -2) * 0.25, -1) @ v


def grouped_halves(q, k, v):
    # Four query heads per key/value head (transformers' repeat_kv), two
    # queries each: 8 rows share every value.
    def repeat(t):
        b, h, s, d = t.shape
        return t[:, :, None].expand(b, h, 4, s, d).reshape(b, 4 * h, s, d)
    return eager_halves(q, repeat(k), repeat(v))


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("fn,shapes", [
    (eager_halves, [(2, 3, 1, 64), (2, 3, 45, 64), (2, 3, 45, 64)]),
    (eager_halves, [(1, 2, 1, 128), (1, 2, 200, 128), (1, 2, 200, 128)]),
    (softmax_halves, [(2, 3, 1, 32), (2, 3, 45, 32), (2, 3, 45, 32)]),
    (grouped_halves, [(1, 8, 2, 64), (1, 2, 77, 64), (1, 2, 77, 64)]),
], ids=["eager", "eager-128", "softmax", "grouped"])
def test_decode_in_halves_is_one_online_softmax_fold(dtype, fn, shapes):
    # A few query rows whose softmax rounds its weights to a half: the
    # flash fold all the same (a decode step reads K and V once), its
    # weights summed unrounded in f32 as PyTorch's fused kernels sum them,
    # the output rounded once. Before, the scores, the softmax and P . V
    # were three kernels, P . V one block per head.
    torch.manual_seed(14)
    inputs = tuple(randn(*s).to(dtype) for s in shapes)
    text = tile_ir(fn, inputs)
    assert "tileir.contract" not in text, text
    # One fold, or with 200 keys split-KV's slices and their combine.
    folds = 2 if shapes[1][2] == 200 else 1
    assert text.count("tileir.composite_fold") == folds, text
    assert text.count("tileir.kernel") == folds, text
    check_every_order(fn, inputs)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_long_query_attention_in_halves_keeps_its_rounded_weights(dtype):
    # A softmax in halves rounds its weights before P . V, and with an
    # output row of 24 (no multiple of 16) the Q tile's fold would take
    # FMAs: the scores and weights stay tensors and P . V a contraction
    # (tensor cores), rounded as PyTorch rounds them.
    torch.manual_seed(12)
    fn = lambda q, k, v: F.softmax(q @ k.transpose(-1, -2) * 0.25, -1) @ v
    inputs = tuple(t.to(dtype) for t in (randn(3, 70, 16), randn(3, 70, 16),
                                          randn(3, 70, 24)))
    text = tile_ir(fn, inputs)
    assert text.count("tileir.kernel") == 3, text
    assert text.count("tileir.contract") == 2, text
    report = check(fn, inputs, via="kernel")
    assert report.passed, report


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_causal_attention_in_halves_keeps_its_scores_a_contraction(dtype):
    # The mask compares a score's row with its column: index arithmetic
    # that no longer makes Q . K^T one score per thread. The product is a
    # tiled contraction that writes its rounded scores (the rounding is its
    # epilogue), the softmax's row kernel scales and masks them from its
    # indices, and no mask tensor is read. Checked in every thread order:
    # the masked elements of a ragged edge tile compute past the domain.
    torch.manual_seed(13)
    inputs = tuple(t.to(dtype) for t in (randn(2, 70, 16), randn(2, 70, 16),
                                          randn(2, 70, 24)))
    text = tile_ir(causal, inputs)
    kernels = text.split("tileir.kernel ")[1:]
    assert len(kernels) == 3, text
    assert "tileir.contract" in kernels[0], text
    assert "tileir.contract" in kernels[2], text
    assert "tileir.for_each_point" not in text, text
    assert "xi1>" not in text, text
    check_every_order(causal, inputs)


def tensor_core_cases():
    """Prefill in halves: 70 and 100 query rows (a Q tile of 64 and a
    ragged rest), 100 keys (a chunk of 64 and a ragged rest)."""
    t = 100
    def qkv(rows, d=64, e=None, heads=H, kv_heads=None):
        kv_heads = kv_heads or heads
        return (randn(1, heads, rows, d), randn(1, kv_heads, t, d),
                randn(1, kv_heads, t, e or d))
    padding = torch.zeros(1, 1, 1, t)
    padding[..., 90:] = float("-inf")
    return {
        "eager": (eager_halves, qkv(70)),
        "softmax": (softmax_halves, qkv(100)),
        "causal": (causal, qkv(100, heads=2)),
        "padding_mask": (attend_masked, (*qkv(70, heads=2), padding)),
        "masked_fill": (masked_fill, (*qkv(70, heads=2),
                                      torch.rand(1, 1, 70, t) > 0.3)),
        "multi_query": (shared_kv, qkv(70, kv_heads=1)),
        # 32 keys a chunk, 16 for each of a row group's two warps.
        "head_dim_128_causal": (causal, qkv(70, d=128, heads=1)),
        # q . k over 32, an output row of 48.
        "values_of_48": (softmax_halves, qkv(70, d=32, e=48, heads=2)),
        # Q tiles of 32 and 16 rows: 4 and 8 warps per 16 rows, of which 4
        # take the keys of a chunk (16 each) and the others repeat them.
        "rows_20_causal": (causal, qkv(20, heads=2)),
        "rows_40": (eager_halves, qkv(40)),
    }


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("name", sorted(tensor_core_cases()))
def test_long_query_attention_in_halves_is_flash_on_tensor_cores(dtype, name):
    # Many query rows whose softmax rounds its weights to a half: one
    # online-softmax fold per row all the same (the scores and weights exist
    # in no memory), on the Q-tile schedule, whose warps multiply 16 rows'
    # Q . K^T and P . V per chunk of keys with kernelir.mma (ldmatrix from
    # the chunks in shared memory; V's transposed), the weights summed in
    # f32 and rounded to the half for P . V as FlashAttention rounds them.
    torch.manual_seed(sum(map(ord, name)))
    fn, inputs = tensor_core_cases()[name]
    inputs = tuple(x.to(dtype) if x.is_floating_point() else x
                   for x in inputs)
    text = tile_ir(fn, inputs)
    assert text.count("tileir.kernel") == 1, text
    assert text.count("tileir.composite_fold") == 1, text
    assert "tileir.contract" not in text, text
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("kernel"))
    kernel = str(module)
    assert "kernelir.mma" in kernel, kernel
    assert "transpose" in kernel, kernel  # V's B fragments
    check_every_order(fn, inputs)


def test_long_query_attention_stages_keys_and_values_once_per_block():
    # In kernelir: per chunk of keys a barrier, the block's copy of the
    # chunk of K (padded to an odd row) and of the value rows (keys x the
    # output row's elements), a barrier, and every lane of a row folds
    # every key of the chunk from shared memory: the row's 4 lanes add a
    # quarter of its q . k each and exchange the partial sums (xor, offsets
    # 2 and 1), and each folds the maximum, the sum and its quarter of the
    # output row's sums; each of the 8 elements is then shuffled from the
    # lane that holds it (idx). No lane combines partial folds.
    torch.manual_seed(11)
    inputs = (randn(1, 2, 40, 8), randn(1, 2, 45, 8), randn(1, 2, 45, 8))
    module = import_program(capture(attend, inputs))
    module.run(strata.pipeline("kernel"))
    text = str(module)
    assert "kernelir.shared : memref<64x9xf32" in text, text
    assert text.count("kernelir.shared : memref<64x8xf32") == 1, text
    assert "kernelir.shared : memref<64xf32" not in text, text
    assert text.count("kernelir.barrier") == 2, text
    assert text.count("kernelir.shuffle idx") == 8, text
    offsets = re.findall(r"kernelir.shuffle xor %\S+, %c(\d+)_i32", text)
    assert sorted(offsets) == ["1", "2"], text


def test_fully_masked_long_query_rows_are_nan_as_in_pytorch():
    torch.manual_seed(6)
    q, k, v = randn(B, H, 20, 16), randn(B, H, T, 16), randn(B, H, T, 16)
    mask = torch.zeros(B, 1, 20, T)
    mask[1, :, 3] = float("-inf")  # one query row sees no key
    report = check(attend_masked, (q, k, v, mask), via="kernel")
    assert report.passed, report

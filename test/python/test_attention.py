"""Attention with a short query (decoding: one new token, or a few) is one
kernel per (batch, head, query row): the row's scores q.k are folded over
the keys with online softmax's (max, sum, one weighted sum per output
element) monoid (tileir-fuse-folds), so they never exist in memory, and
every spelling that decomposes to matmul-softmax-matmul reaches it. Checked
against PyTorch at ragged sizes, the block's threads in every order."""
import math
import re

import pytest
import torch
import torch.nn.functional as F

import strata
from strata.frontend import capture, import_program
from strata.runner import check

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
    }


def tile_ir(fn, inputs):
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("tile"))
    return str(module)


@pytest.mark.parametrize("name", sorted(cases()))
def test_short_query_attention_is_one_online_softmax_fold(name):
    torch.manual_seed(sum(map(ord, name)))
    fn, inputs = cases()[name]
    text = tile_ir(fn, inputs)
    # One kernel, its folds one composite fold: the max, the normalizer and
    # one sum per element of the output row; nothing else is written.
    assert text.count("tileir.kernel") == 1, text
    assert text.count("tileir.composite_fold") == 1, text
    assert "tileir.fold" not in text, text
    head_dim = inputs[0].shape[-1]
    identity = ", ".join(["0xFF800000 : f32"] +
                         ["0.000000e+00 : f32"] * (head_dim + 1))
    keys = inputs[1].shape[-2]
    assert re.search(r"composite_fold \(%\w+\) in \[" + str(keys) +
                     r"\] identity\(" + re.escape(identity) + r"\)", text), text
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def test_fully_masked_rows_are_nan_as_in_pytorch():
    # softmax over keys that are all -inf is 0 / 0 in PyTorch: the fold's
    # -inf maximum must not turn that into a number.
    torch.manual_seed(5)
    q, k, v = randn(B, H, 1, 16), randn(B, H, T, 16), randn(B, H, T, 16)
    mask = padding_mask()
    mask[1] = float("-inf")
    report = check(attend_masked, (q, k, v, mask), via="kernel")
    assert report.passed, report


def test_long_head_dimension_keeps_separate_kernels():
    # 128 values per thread would spill (kMaxRowVectorLength): the scores
    # are materialized as before, and the numbers are the same.
    torch.manual_seed(7)
    inputs = (randn(1, 2, 1, 128), randn(1, 2, T, 128), randn(1, 2, T, 128))
    text = tile_ir(attend, inputs)
    assert text.count("tileir.kernel") > 1
    report = check(attend, inputs, via="kernel")
    assert report.passed, report


def test_long_queries_keep_the_contraction_schedule():
    # With many query rows, P.V is a tiled contraction (its values staged
    # once per block tile); the flash fold per row would read every key and
    # value once per row instead.
    torch.manual_seed(3)
    inputs = (randn(1, 2, 40, 32), randn(1, 2, 40, 32), randn(1, 2, 40, 32))
    text = tile_ir(attend, inputs)
    assert "tileir.contract" in text
    report = check(attend, inputs, via="kernel")
    assert report.passed, report

"""Split folds (tileir-split-folds): a row program with few program
instances and long folds (a whole tensor's sum, an argmax, a norm's
statistics over a few long rows, decoding attention's fold over the keys)
becomes a kernel of partial folds over slices of the points, storing the
monoids' states, and the original kernel folding those states. Both match
PyTorch at ragged sizes in every thread order; forcing an impossible split
is a clear error."""

import pytest
import torch
import torch.nn.functional as F

from strata.runner import check
from conftest import tile_ir, kernel_domains


def randn(*shape):
    return torch.randn(*shape) * 2 + 0.5  # never zeros




def decode_attention(q, k, v):
    return torch.softmax(q @ k.transpose(-1, -2) * 0.25, -1) @ v


def padded_decode_attention(q, k, v, valid):
    scores = (q @ k.transpose(-1, -2) * 0.25).masked_fill(~valid, float("-inf"))
    return torch.softmax(scores, -1) @ v


def ties(n):
    # Few distinct values: argmax's first-index rule decides across slices.
    return torch.randint(-3, 4, (n,)).float()


SPLITS = {
    # 300007 floats (a prime) in one program instance: 128 slices wanted,
    # 18 of at least 64 KiB; none divides the points, the last slice is
    # ragged.
    "sum": (lambda x: x.sum(), lambda: (randn(300007),), ("18, 1", "1, 1")),
    # 301 x 997 = 7 x 43 x 997 points, the box's point taken apart again.
    "mean_2d": (lambda x: x.mean(), lambda: (randn(301, 997),), ("18, 1", "1, 1")),
    # (value, position) states: the global position survives the split.
    "argmax": (lambda x: x.argmax(), lambda: (randn(100003),), ("6, 1", "1, 1")),
    "argmax_ties": (lambda x: x.argmax(), lambda: (ties(100003),), ("6, 1", "1, 1")),
    "argmin_dim": (lambda x: x.argmin(-1), lambda: (randn(3, 50021),), ("3, 3", "1, 1")),
    # all: an i8 minimum, folded as i32; true, and false from one element.
    "all": (lambda x: (x > -20).all(), lambda: (randn(300007),), ("18, 1", "1, 1")),
    "all_but_one": (lambda x: (x != x[123457]).all(), lambda: (randn(300007),),
                    ("18, 1", "1, 1")),
    "int8_max": (lambda x: x.amax(-1),
                 lambda: (torch.randint(-128, 100, (2, 150001), dtype=torch.int8),),
                 ("2, 2", "1, 1")),
    # logsumexp: its max, recomputed beside the sum, is the same fold;
    # then online softmax's (max, sum), one fold, split.
    "logsumexp": (lambda x: torch.logsumexp(x, -1), lambda: (randn(2, 100003),),
                  ("6, 2", "1, 1")),
    # Welford's (count, mean, M2) and online softmax's rescaled (max, sum);
    # 3 slices divide 50001 and 2 divide 40000.
    "var": (lambda x: x.var(-1), lambda: (randn(3, 70001),), ("4, 3", "1, 1")),
    "softmax": (lambda x: torch.softmax(x, -1), lambda: (randn(2, 50001),), ("3, 2", "1, 1")),
    # A decode step's sampling softmax over GPT-2's 50257 logits.
    "softmax_logits": (lambda x: torch.softmax(x, -1), lambda: (randn(1, 50257),),
                       ("3, 1", "1, 1")),
    "log_softmax": (lambda x: torch.log_softmax(x, -1), lambda: (randn(2, 40001),),
                    ("2, 2", "1, 1")),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (40000,), w, b),
                   lambda: (randn(2, 40000), randn(40000), randn(40000)),
                   ("2, 2", "1, 1")),
    # Split-KV: a decoding query (length 1) per head against 1501 = 19 x 79
    # keys, the (max, sum, output row) fold split across blocks: 192 bytes
    # a key (its key and value rows, the query's), 4 slices of 64 KiB, the
    # last ragged.
    "decode": (decode_attention,
               lambda: (randn(3, 1, 16), randn(3, 1501, 16), randn(3, 1501, 16)),
               ("4, 3, 1", "1, 1, 1")),
    # A prefill's Q tile (64 rows sharing each chunk of keys): 2 program
    # instances, 9 slices of 64 KiB; 8 divide the 3000 keys, so the keys'
    # addresses stay affine and the rows still share their chunks.
    "prefill_q_tile": (decode_attention,
                       lambda: (randn(1, 100, 16), randn(1, 3000, 16), randn(1, 3000, 16)),
                       ("8, 1, 100", "1, 1, 64")),
    "decode_padded": (padded_decode_attention,
                      lambda: (randn(2, 1, 16), randn(2, 1203, 16), randn(2, 1203, 16),
                               torch.arange(1203).expand(2, 1, 1203)
                               < torch.tensor([700, 1100]).view(2, 1, 1)),
                      ("3, 2, 1", "1, 1, 1")),
}


@pytest.mark.parametrize("name", sorted(SPLITS))
def test_split_folds_match_pytorch(name):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs, partial = SPLITS[name]
    inputs = make_inputs()
    domains = kernel_domains(tile_ir(fn, inputs))
    assert partial in domains, domains
    for via in ["kernel", "kernel-reversed", "kernel-shuffled"]:
        report = check(fn, inputs, via=via)
        assert report.passed, (via, report)


def test_enough_rows_or_short_folds_are_not_split():
    # 300 rows fill a GPU; a row of 30000 floats (117 KiB) is too little
    # to slice in two of 64 KiB.
    assert len(kernel_domains(tile_ir(lambda x: x.sum(-1), (randn(300, 5000),)))) == 1
    assert len(kernel_domains(tile_ir(lambda x: x.sum(), (randn(30000),)))) == 1


def test_forced_splits():
    torch.manual_seed(7)
    x = randn(2, 1000)
    fn = lambda x: torch.softmax(x, -1)  # noqa: E731
    assert len(kernel_domains(tile_ir(fn, (x,)))) == 1
    text = tile_ir(fn, (x,), "split-folds=3")
    assert kernel_domains(text)[0] == ("3, 2", "1, 1"), text
    for via in ["kernel", "kernel-shuffled"]:
        report = check(fn, (x,), via=via, options="split-folds=3")
        assert report.passed, (via, report)
    assert len(kernel_domains(tile_ir(lambda x: x.sum(), (randn(300007),), "split-folds=1"))) == 1
    with pytest.raises(Exception, match="the longest fold has 1000 points: it does not split into 1001 slices"):
        tile_ir(fn, (x,), "split-folds=1001")


def test_split_q_tile_keeps_sharing_its_chunks():
    # The partial kernel of a Q tile is still one: 4 threads per row (its
    # rows share each chunk of keys through shared memory), not a warp.
    fn, make_inputs, _ = SPLITS["prefill_q_tile"]
    torch.manual_seed(1)
    text = tile_ir(fn, make_inputs())
    assert "domain [8, 1, 100] tile [1, 1, 64] threads 256 {" in text, text


@pytest.mark.parametrize("name", ["softmax", "softmax_logits", "layer_norm"])
def test_write_back_is_split_with_the_folds(name):
    # A distribute (the row's write-back) is as long as the folds: the
    # combination kernel takes the slices too, each program instance
    # folding its row's states and writing its slice of the row.
    fn, make_inputs, partial = SPLITS[name]
    torch.manual_seed(2)
    domains = kernel_domains(tile_ir(fn, make_inputs()))
    assert [d for d, _ in domains] == [partial[0]] * 2, domains

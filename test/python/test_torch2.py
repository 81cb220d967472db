"""torch 2.x as a host: torch.export capture, torch.compile(backend="strata")
with graph breaks and new shapes, and strata.compile's specializations
(shape guards, recompile limit). Run against the torch of build/venv
(tools/dev.sh test); on Debian's torch 1.13 (tools/dev.sh sanitize) only
the parts that need no torch 2.x run."""
import logging

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import strata
from strata.api import RecompileLimit
from strata.frontend import capture
from conftest import tile_ir

TORCH2 = hasattr(torch, "compile") and hasattr(torch, "export")
needs_torch2 = pytest.mark.skipif(not TORCH2, reason="torch 2.x API")


class Block(nn.Module):
    """A GPT-2-style block: layer norm, causal attention, MLP."""

    def __init__(self, dim=32, heads=4):
        super().__init__()
        self.heads = heads
        self.norm1, self.norm2 = nn.LayerNorm(dim), nn.LayerNorm(dim)
        self.qkv, self.proj = nn.Linear(dim, 3 * dim), nn.Linear(dim, dim)
        self.fc, self.out = nn.Linear(dim, 4 * dim), nn.Linear(4 * dim, dim)

    def forward(self, x):
        b, t, d = x.shape
        q, k, v = self.qkv(self.norm1(x)).split(d, -1)
        q, k, v = (z.view(b, t, self.heads, -1).transpose(1, 2)
                   for z in (q, k, v))
        s = q @ k.transpose(-1, -2) / (d // self.heads) ** 0.5
        mask = torch.ones(t, t, dtype=torch.bool).triu(1)
        a = s.masked_fill(mask, float("-inf")).softmax(-1) @ v
        x = x + self.proj(a.transpose(1, 2).reshape(b, t, d))
        return x + self.out(F.gelu(self.fc(self.norm2(x))))


def fresh(module):
    torch.manual_seed(0)
    with torch.no_grad():
        for p in module.parameters():
            p.copy_(torch.randn_like(p) * 0.2)
    return module.eval()


def test_strata_compile_specializes_per_shape(caplog):
    f = strata.compile(lambda x: F.softmax(x, -1) * 2, recompile_limit=2)
    for shape in [(3, 5), (7, 33)]:
        x = torch.randn(*shape)
        with caplog.at_level(logging.INFO, logger="strata.recompiles"):
            assert torch.allclose(f(x), F.softmax(x, -1) * 2, atol=1e-6)
    assert "recompiling" in caplog.text
    assert "argument 0 is (7, 33) float32, compiled for (3, 5) float32" \
        in caplog.text
    assert len(f.specializations) == 2
    f(torch.randn(3, 5))  # a known shape: no new specialization
    assert len(f.specializations) == 2
    with pytest.raises(RecompileLimit, match=r"argument 0 is \(4, 4\) float32"
                       r".*2 specializations compiled already"):
        f(torch.randn(4, 4))


def test_strata_compile_takes_number_arguments():
    # A Python number is a constant of its specialization.
    f = strata.compile(lambda x, k: x * k + 1)
    x = torch.randn(5, 3)
    assert torch.allclose(f(x, 3), x * 3 + 1)
    assert torch.allclose(f(x, 0.5), x * 0.5 + 1)
    assert len(f.specializations) == 2


@needs_torch2
def test_export_captures_modules():
    block = fresh(Block())
    x = torch.randn(2, 9, 32)
    program = capture(block, (x,))
    assert program.method == "export"
    # Weights are bound by their module names; the input comes after them.
    names = program.argument_names()
    assert "qkv.weight" in names and "input0" in names
    with torch.no_grad():
        expected = block(x)
    got = strata.compile(block, (x,))(x)
    assert torch.allclose(got, expected, atol=1e-4), \
        (got - expected).abs().max()


class LoopOverNonzero(nn.Module):
    """Mixtral's expert loop in small: Python iterates over a tensor's
    nonzero entries, which torch.export cannot trace."""

    def forward(self, x):
        y = x * 2
        for row in (x[:, 0] > 0).nonzero():
            y = y + x[row]
        return y


def test_a_failed_export_writes_nothing(capfd):
    # torch.export prints its partial graph on stderr when it fails (480
    # lines for a tiny Mixtral), though capture goes on with make_fx: the
    # user sees Strata's one error and nothing else.
    with pytest.raises(strata.frontend.FrontendError) as error:
        x = torch.randn(5, 3)
        strata.compile(LoopOverNonzero(), (x,))(x)
    assert "nonzero" in str(error.value) and "test_torch2.py" in str(error.value)
    out, err = capfd.readouterr()
    assert "def forward" not in err and not out, err


def mask_unless_all_ones(x, mask):
    """A library's shortcut as transformers writes one: skipped where the
    program is being compiled, whose values it cannot branch on."""
    if not torch.compiler.is_compiling() and bool(torch.all(mask == 1)):
        return x
    return x * mask


@needs_torch2
def test_traced_functions_are_compiling():
    # A function (not a module) takes make_fx, not torch.export; libraries
    # see the same is_compiling() under both.
    x, mask = torch.randn(2, 5), (torch.rand(2, 5) > 0.5).float()
    program = capture(mask_unless_all_ones, (x, mask))
    assert program.method != "export"
    got = strata.compile(mask_unless_all_ones, (x, mask))(x, mask)
    assert torch.equal(got, x * mask)
    assert not torch.compiler.is_compiling()


@needs_torch2
def test_torch_compile_backend_matches_eager_at_several_lengths():
    torch._dynamo.reset()
    block = fresh(Block())
    compiled = torch.compile(block, backend="strata")
    with torch.no_grad():
        for t in (1, 7, 20):
            x = torch.randn(2, t, 32)
            got, expected = compiled(x), block(x)
            assert torch.allclose(got, expected, atol=1e-4), \
                (t, (got - expected).abs().max())


@needs_torch2
def test_torch_compile_dynamic_shapes():
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: F.gelu(x).sum(-1), backend="strata",
                             dynamic=True)
    for n in (3, 17, 40):
        x = torch.randn(n, 11)
        assert torch.allclose(compiled(x), F.gelu(x).sum(-1), atol=1e-5)


@needs_torch2
def test_torch_compile_runs_shapes_past_the_recompile_limit_eagerly(caplog):
    # A decoding loop calls its graph with a new key length at every token:
    # past the limit the program goes on, as dynamo's does past its own
    # cache limit, the new shapes running eagerly, with one warning.
    torch._dynamo.reset()
    compiled = torch.compile(lambda x: F.softmax(x, -1).cumsum(-1),
                             backend="strata", dynamic=True,
                             options={"recompile_limit": 2})
    with caplog.at_level(logging.INFO, logger="strata.recompiles"):
        for n in range(3, 9):
            x = torch.randn(2, n)
            assert torch.allclose(compiled(x), F.softmax(x, -1).cumsum(-1),
                                  atol=1e-6)
    warnings = [r for r in caplog.records if r.levelno == logging.WARNING]
    assert len(warnings) == 1, caplog.text
    assert "2 specializations compiled already" in warnings[0].getMessage()
    assert "eagerly" in warnings[0].getMessage()


@needs_torch2
def test_torch_compile_graph_breaks():
    torch._dynamo.reset()
    graphs = []

    def counting(gm, inputs):
        graphs.append(gm)
        return strata.backend(gm, inputs)

    def fn(x):
        y = torch.tanh(x) * 3
        print("a graph break")  # dynamo splits the function here
        return F.softmax(y, -1) + 1

    x = torch.randn(6, 13)
    got = torch.compile(fn, backend=counting)(x)
    assert len(graphs) == 2
    assert torch.allclose(got, F.softmax(torch.tanh(x) * 3, -1) + 1,
                          atol=1e-6)


@needs_torch2
def test_torch_compile_names_the_unsupported_operation_and_line():
    torch._dynamo.reset()

    def fn(x):
        return torch.linalg.svdvals(x) + 1  # the unsupported line

    with pytest.raises(Exception) as info:
        torch.compile(fn, backend="strata")(torch.randn(4, 4))
    message = str(info.value)
    assert "svd" in message
    assert "test_torch2.py:%d" % (
        fn.__code__.co_firstlineno + 1) in message


@needs_torch2
def test_torch_compile_options():
    torch._dynamo.reset()
    with pytest.raises(Exception, match="unknown Strata option"):
        torch.compile(torch.sin, backend="strata",
                      options={"tile": 3})(torch.randn(3))
    torch._dynamo.reset()
    x = torch.randn(40, 50)
    w = torch.randn(50, 30)
    # tf32 rounds the matmul's operands (the emulation follows the option).
    exact = torch.compile(lambda a, b: a @ b, backend="strata")(x, w)
    torch._dynamo.reset()
    tf32 = torch.compile(lambda a, b: a @ b, backend="strata",
                         options={"schedule": "tf32=true"})(x, w)
    assert torch.allclose(exact, x @ w, atol=1e-4)
    assert not torch.equal(exact, tf32)
    assert torch.allclose(tf32, x @ w, atol=0.1)



@needs_torch2
@pytest.mark.parametrize("spelling", ["plain", "causal", "bool_mask",
                                      "additive_mask", "gqa", "mha"])
def test_sdpa_matches_pytorch_with_fully_masked_rows(spelling):
    # torch 2.x's SDPA gives 0 (not NaN) for a row whose keys are all
    # masked; the capture's math form applies that select after P . V, so
    # the flash schedule still finds the attention (ragged 9 x 11).
    torch.manual_seed(len(spelling))
    sdpa = F.scaled_dot_product_attention
    q, k, v = (torch.randn(2, 3, n, 16) for n in (9, 11, 11))
    mask = torch.rand(9, 11) > 0.5
    mask[2] = False  # a fully masked row
    additive = torch.zeros(9, 11).masked_fill(~mask, float("-inf"))
    kv = torch.randn(2, 1, 11, 16)
    mha = nn.MultiheadAttention(48, 3, batch_first=True).eval()
    cases = {
        "plain": (lambda q, k, v: sdpa(q, k, v), (q, k, v)),
        "causal": (lambda q, k, v: sdpa(q, k, v, is_causal=True), (q, k, v)),
        "bool_mask": (lambda q, k, v, m: sdpa(q, k, v, attn_mask=m),
                      (q, k, v, mask)),
        "additive_mask": (lambda q, k, v, m: sdpa(q, k, v, attn_mask=m,
                                                  scale=0.3),
                          (q, k, v, additive)),
        "gqa": (lambda q, k, v: sdpa(q, k, v, enable_gqa=True), (q, kv, kv)),
        "mha": (lambda x: mha(x, x, x, need_weights=False)[0],
                (torch.randn(2, 9, 48),)),
    }
    fn, args = cases[spelling]
    with torch.no_grad():
        expected = fn(*args)
        got = strata.compile(fn, args)(*args)
    assert not torch.isnan(expected).any()
    assert torch.allclose(got, expected, atol=1e-5), \
        (got - expected).abs().max()


@needs_torch2
@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
@pytest.mark.parametrize("head_dim", [16, 24])
def test_sdpa_in_halves_with_many_queries(dtype, head_dim):
    # In halves the softmax rounds its weights. With an output row the Q
    # tile multiplies on tensor cores (a multiple of 16) the attention is
    # one online-softmax fold all the same: the scores exist in no memory.
    # Otherwise (24) the scores are a tensor: Q . K^T and P . V are
    # contractions (tensor cores); the mask's `any` (whether a query row
    # sees a key) selects P . V's rows and stays a row kernel of its own
    # instead of making P . V two reductions (a generic kernel), and the
    # softmax's max in halves folds in f32, shared by a row's threads.
    # Ragged 70 queries x 75 keys, checked against PyTorch.
    torch.manual_seed(5)
    sdpa = F.scaled_dot_product_attention
    q, k, v = (torch.randn(1, 2, n, head_dim).to(dtype) for n in (70, 75, 75))
    mask = torch.rand(70, 75) > 0.3
    mask[4] = False  # a fully masked row
    fn = lambda q, k, v, m: sdpa(q, k, v, attn_mask=m)
    text = tile_ir(fn, (q, k, v, mask))
    kernels = text.split("tileir.kernel ")[1:]
    if head_dim == 16:
        assert "tileir.contract" not in text, text
        assert sum("tileir.composite_fold" in kernel
                   for kernel in kernels) == 1, text
    else:
        assert sum("tileir.contract" in kernel for kernel in kernels) == 2, text
        assert not any("tileir.for_each_point" in kernel and
                       ("loopir.reduce" in kernel or "tileir.contract" in kernel)
                       for kernel in kernels), text
    with torch.no_grad():
        expected = fn(q, k, v, mask)
        got = strata.compile(fn, (q, k, v, mask))(q, k, v, mask)
    assert torch.allclose(got.float(), expected.float(), atol=2e-2,
                          equal_nan=True), \
        (got.float() - expected.float()).abs().max()

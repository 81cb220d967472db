"""Capture of PyTorch programs and their import into tensorir."""
import os
import re
import subprocess
import textwrap

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import strata
from conftest import BUILD, REPO
from strata.frontend import UnsupportedOperation, capture, import_program
from strata.frontend.capture import _capture_make_fx as capture_module_with_make_fx
from strata.runner import check

STRATA = os.path.join(BUILD, "bin", "strata")


def tensorir(fn, *inputs):
    """Imports fn traced on inputs; checks that the module verifies, and that
    it still verifies once every composite op is decomposed."""
    module = import_program(capture(fn, inputs))
    text = str(module)
    module.run("tensorir-decompose")
    decomposed = str(module)
    assert not re.search(r"tensorir\.(matmul|linear|einsum|softmax|log_softmax|"
                         r"layer_norm|gelu|silu|relu|clamp|mean|var) ", decomposed)
    return text


def ops(text):
    return re.findall(r"= (tensorir\.\w+)", text)


def signature(text):
    return re.search(r"func.func @forward\((.*)\) -> (.*) \{", text).groups()


def test_relu_matmul_with_broadcast_bias():
    text = tensorir(lambda x, bias, w: torch.relu(torch.matmul(x + bias, w)),
                    torch.randn(16, 64), torch.randn(64), torch.randn(64, 16))
    assert ops(text) == ["tensorir.broadcast", "tensorir.add", "tensorir.matmul",
                         "tensorir.relu"]
    assert "tensorir.broadcast %arg1 dims [1] : tensor<64xf32> -> tensor<16x64xf32>" in text
    assert signature(text)[1] == "tensor<16x16xf32>"


def test_rmsnorm():
    text = tensorir(
        lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
        torch.randn(1, 32, 2048), torch.randn(2048))
    assert "tensorir.pow" in text
    assert "tensorir.mean %1 axes [2] keepdim : tensor<1x32x2048xf32> -> tensor<1x32x1xf32>" in text
    assert "tensorir.rsqrt" in text
    assert "tensorir.broadcast %arg1 dims [2] : tensor<2048xf32> -> tensor<1x32x2048xf32>" in text


def test_softmax_normalizes_the_axis():
    text = tensorir(lambda x: F.softmax(x, -1), torch.randn(32, 2048))
    assert "tensorir.softmax %arg0 axis 1 : tensor<32x2048xf32>" in text


def test_layer_norm_weights_are_inputs():
    ln = nn.LayerNorm(512)
    text = tensorir(ln, torch.randn(8, 512))
    inputs, _ = signature(text)
    assert inputs.count("tensor<512xf32>") == 2  # weight and bias
    assert "normalized_rank 1 eps 1.000000e-05" in text
    assert "dense<" not in text  # never baked in as constants


def test_gelu_and_swiglu():
    assert "tensorir.gelu %arg0 : tensor<8x100xf32>" in tensorir(nn.GELU(), torch.randn(8, 100))
    assert "tensorir.gelu %arg0 tanh" in tensorir(nn.GELU("tanh"), torch.randn(8, 100))
    text = tensorir(lambda g, u: F.silu(g) * u, torch.randn(4, 100), torch.randn(4, 100))
    assert ops(text) == ["tensorir.silu", "tensorir.mul"]


def test_mlp():
    mlp = nn.Sequential(nn.Linear(64, 128), nn.GELU(), nn.Linear(128, 32))
    text = tensorir(mlp, torch.randn(8, 64))
    inputs, result = signature(text)
    assert inputs.count("tensor<") == 5  # x and two (weight, bias) pairs
    # torch 1.13 decomposes linear into matmuls, torch.export keeps it.
    assert ops(text).count("tensorir.matmul") + \
        ops(text).count("tensorir.linear") == 2
    assert result == "tensor<8x32xf32>"


def test_cat_and_strided_slice():
    text = tensorir(lambda a, b: torch.cat([a, b[:, 1::3]], 1),
                    torch.randn(4, 3), torch.randn(4, 10))
    assert "tensorir.slice %arg1 offsets [0, 1] strides [1, 3] : tensor<4x10xf32> -> tensor<4x3xf32>" in text
    assert "axis 1 : (tensor<4x3xf32>, tensor<4x3xf32>) -> tensor<4x6xf32>" in text


def test_embedding():
    text = tensorir(lambda ids, t: F.embedding(ids, t),
                    torch.randint(0, 100, (4, 7)), torch.randn(100, 16))
    assert "tensorir.gather %arg1[%arg0] axis 0 : (tensor<100x16xf32>, tensor<4x7xi64>) -> tensor<4x7x16xf32>" in text


def test_bmm_and_einsum():
    text = tensorir(torch.bmm, torch.randn(2, 16, 64), torch.randn(2, 64, 8))
    assert "tensorir.matmul %arg0, %arg1 : (tensor<2x16x64xf32>, tensor<2x64x8xf32>) -> tensor<2x16x8xf32>" in text
    text = tensorir(lambda a, b: torch.einsum("ij,jk->ik", a, b),
                    torch.randn(16, 64), torch.randn(64, 8))
    assert "tensorir.matmul" in text
    assert signature(text)[1] == "tensor<16x8xf32>"


def test_comparisons_where_and_casts():
    text = tensorir(lambda x: torch.where(x > 0.5, x, torch.zeros_like(x)).to(torch.float16),
                    torch.randn(5, 3))
    assert "tensorir.cmp gt, %arg0, %0 : tensor<5x3xf32>" in text
    assert "tensorir.select" in text
    assert "tensorir.cast %3 : tensor<5x3xf32> to tensor<5x3xf16>" in text


def test_reductions_with_indices():
    text = tensorir(lambda x: torch.max(x, 1), torch.randn(6, 9))
    assert "tensorir.arg_reduce max %arg0 axis 1 : tensor<6x9xf32> -> tensor<6xf32>, tensor<6xi64>" in text
    text = tensorir(lambda x: x.var(0) + x.sum(0) + x.amax(0), torch.randn(6, 9))
    assert "tensorir.var %arg0 axes [0] correction 1" in text
    assert "tensorir.reduce sum %arg0 axes [0]" in text
    assert "tensorir.reduce max %arg0 axes [0]" in text


def test_decoder_block_file():
    from strata.compile_expr import from_file
    model, inputs = from_file(os.path.join(REPO, "examples", "decoder.py"))
    text = tensorir(model, *inputs)
    inputs_sig, result = signature(text)
    assert result == "tensor<2x13x64xf32>"
    assert inputs_sig.count("tensor<") == 8  # x and 7 weights
    names = ops(text)
    # qkv, scores, attn·v, out, gate, up, down (the projections are
    # tensorir.linear where torch.export keeps F.linear whole)
    assert names.count("tensorir.matmul") + names.count("tensorir.linear") == 7
    assert names.count("tensorir.softmax") == 1
    assert "tensorir.iota" in names and "tensorir.cmp" in names  # the triu mask
    assert "0xFF800000" in text  # -inf


def test_unsupported_op_names_op_and_source_line(tmp_path):
    model = tmp_path / "airy.py"
    model.write_text(textwrap.dedent("""\
        import torch

        def model(x):
            y = x + 1
            return torch.special.airy_ai(y)

        inputs = (torch.randn(4, 5),)
        """))
    r = subprocess.run([STRATA, "compile", "--file", str(model)],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert "unsupported PyTorch operation 'aten.special_airy_ai.default'" in r.stderr
    assert "%s:5" % model in r.stderr
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("expr,message", [
    ("torch.relu(", "invalid expression"),
    ("1 + 2", "must be a call"),
    ("torch.nope(torch.randn(3))", "cannot evaluate callable 'torch.nope'"),
    ("torch.relu(undefined_name)", "cannot evaluate argument 'undefined_name'"),
    ("abs(3)", "no tensor arguments"),
])
def test_malformed_expressions_are_one_line_errors(expr, message):
    r = subprocess.run([STRATA, "compile", "-c", expr], capture_output=True, text=True)
    assert r.returncode != 0
    assert message in r.stderr
    assert r.stderr.strip().count("\n") == 0
    assert "Traceback" not in r.stderr


def test_file_without_model_is_an_error(tmp_path):
    bad = tmp_path / "empty.py"
    bad.write_text("x = 1\n")
    r = subprocess.run([STRATA, "compile", "--file", str(bad)], capture_output=True, text=True)
    assert r.returncode != 0
    assert "must define `model` and `inputs`" in r.stderr
    assert "Traceback" not in r.stderr


def test_compile_emits_lower_stages(tmp_path):
    out = tmp_path / "loop.mlir"
    r = subprocess.run([STRATA, "compile", "-c",
                        "(lambda g, u: F.silu(g) * u)(torch.randn(4, 100), torch.randn(4, 100))",
                        "--emit", "loop", "-o", str(out)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "loopir.kernel" in out.read_text()


def test_decoder_block_from_the_command_line():
    r = subprocess.run([STRATA, "compile", "--file",
                        os.path.join(REPO, "examples", "decoder.py"), "--emit", "tensor"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # (torch.export keeps the projections whole: tensorir.linear)
    assert r.stdout.count("tensorir.matmul") + \
        r.stdout.count("tensorir.linear") == 7


def test_tracing_errors_name_the_users_line(tmp_path):
    # What PyTorch raises while tracing is a one-line CaptureError at the
    # user's line, from the library and from the command line alike.
    from strata.frontend import CaptureError
    model = tmp_path / "empty_max.py"
    model.write_text(textwrap.dedent("""\
        import torch

        def model(x):
            y = x * 2
            return y.amax(-1)

        inputs = (torch.randn(3, 0),)
        """))
    r = subprocess.run([STRATA, "compile", "--file", str(model)],
                       capture_output=True, text=True)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().count("\n") == 0, r.stderr
    assert r.stderr.startswith("strata: error: PyTorch cannot trace the program "
                               "at %s:5: IndexError: amax(): Expected reduction "
                               "dim -1 to have non-zero size" % model), r.stderr
    with pytest.raises(CaptureError, match="at .*test_frontend.py"):
        capture(lambda x: x.amax(-1), (torch.randn(3, 0),))


@pytest.mark.parametrize("expr", [
    "(lambda x, s: torch.narrow(x, 0, s, 2))(torch.randn(5, 3), torch.tensor(1))",
    "(lambda x: x[: int(x.sum() > 0) + 1])(torch.randn(4))",
    "(lambda x: x * 2 if x.sum() > 0 else x)(torch.randn(4))",
])
def test_data_dependent_programs_are_one_clean_error(expr):
    r = subprocess.run([STRATA, "compile", "-c", expr], capture_output=True,
                       text=True)
    assert r.returncode == 1, r.stderr
    assert r.stderr.strip().count("\n") == 0, r.stderr
    assert r.stderr.startswith("strata: error: the program is data-dependent "
                               "at <expression>:1: a tensor's value decides"), r.stderr


class _Probe(nn.Module):
    """Records what its forward computes with."""

    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3))
        self.register_buffer("shift", torch.randn(3))
        self.seen = []

    def forward(self, x):
        self.seen.append({type(t).__name__ for t in (x, self.weight, self.shift)})
        return x * self.weight + self.shift


def test_modules_are_captured_with_fake_tensors_for_inputs_and_state():
    # Capture costs what the graph costs, not what running the model at its
    # real size costs: the forward sees fake tensors, its own parameters
    # and buffers included, which stay the program's weights.
    probe = _Probe()
    program = capture(probe, (torch.randn(2, 3),))
    # (torch.export traces more than once.)
    assert probe.seen and all(s == {"FakeTensor"} for s in probe.seen)
    assert program.bindings == [("input", 0), ("weight", "weight"),
                                ("weight", "shift")]
    assert torch.equal(program.weights["weight"], probe.weight.detach())
    report = check(probe, (torch.randn(2, 3),), via="kernel")
    assert report.passed, report


class _SharedEmbedding(nn.Module):
    """Marian's layout: one embedding module registered under three names
    (the model's, the encoder's and the decoder's), plus a tied head."""

    def __init__(self):
        super().__init__()
        self.shared = nn.Embedding(11, 6)
        self.encoder, self.decoder = nn.Module(), nn.Module()
        self.encoder.embed, self.decoder.embed = self.shared, self.shared
        self.head = nn.Linear(6, 11, bias=False)
        self.head.weight = self.shared.weight

    def forward(self, ids):
        return self.head(self.encoder.embed(ids) + 2 * self.decoder.embed(ids))


@pytest.mark.parametrize("how", ["capture", "make_fx"])
def test_capture_leaves_the_users_module_as_it_was(how):
    # The make_fx capture (torch 1.13's, and torch 2.x's where torch.export
    # fails, as it does for transformers' Marian with eager attention)
    # swaps fake tensors into the module's attributes and back. An
    # attribute reachable by several names was swapped once per name, and
    # the second swap saved the first one's fake tensor as the original:
    # the user's model kept a fake embedding after compiling.
    torch.manual_seed(0)
    model = _SharedEmbedding().eval()
    ids = torch.randint(0, 11, (2, 5))
    with torch.no_grad():
        expected = model(ids)
    if how == "make_fx":
        program = capture_module_with_make_fx(model, (ids,))
        assert torch.equal(program.weights["shared.weight"], model.shared.weight)
    report = check(model, (ids,), via="kernel")
    assert report.passed, report
    assert all(type(p) is nn.Parameter and type(p.data) is torch.Tensor
               for p in model.parameters())
    assert model.head.weight is model.shared.weight
    with torch.no_grad():
        assert torch.equal(model(ids), expected)


@pytest.mark.parametrize("affine", ["weight", "bias", "both", "neither"])
def test_layer_norm_operands_survive_the_printed_form(affine):
    # The GPU artifact is built from the printed tensorir (strata.api), so
    # the text must say which optional operand is present: `%x, %b` read
    # back as a weight, and a shift without a scale multiplied instead.
    torch.manual_seed(1)
    x, w, b = torch.randn(3, 40), torch.randn(40), torch.randn(40)
    weight = w if affine in ("weight", "both") else None
    bias = b if affine in ("bias", "both") else None
    fn = lambda x: F.layer_norm(x, (40,), weight, bias)
    module = import_program(capture(fn, (x,)))
    again = strata.parse(str(module))
    assert again.to_string(generic=True) == module.to_string(generic=True)
    assert check(fn, (x,), via="kernel").passed


@pytest.mark.parametrize("fn", [F.silu, F.elu, F.hardswish, F.celu],
                         ids=lambda f: f.__name__)
def test_functions_with_default_parameters_compile(fn):
    # make_fx wants an argument for every positional parameter: F.silu's
    # `inplace` made strata.compile(F.silu, (x,)) a tracing error.
    x = torch.randn(4, 9)
    assert torch.allclose(strata.compile(fn, (x,))(x), fn(x), atol=1e-6)


@pytest.mark.parametrize("dtype", [torch.float16, torch.bfloat16])
def test_python_numbers_with_halves_as_pytorch_kernels_take_them(dtype):
    # PyTorch 2.x multiplies and divides a half tensor by a Python number at
    # float precision and rounds once (its "opmath"); add and sub round
    # the number to the tensor's dtype first. bf16(0.7) is 0.6992: the
    # number rounded first put floor_divide(2.797, 0.7) at 4, not 3.
    torch.manual_seed(0)
    x = (torch.rand(8, 37) * 20 - 10).to(dtype)
    opmath = x.float()  # IEEE f32 arithmetic, then one rounding
    rounded = torch.tensor(0.7, dtype=dtype).float()
    cases = {
        "mul": (lambda t: t * 0.7, opmath * 0.7),
        "div": (lambda t: t / 0.7, opmath / 0.7),
        "floor_divide": (lambda t: torch.floor_divide(t, 0.7),
                         torch.floor_divide(opmath, 0.7)),
        "add": (lambda t: t + 0.7, opmath + rounded),
        "remainder": (lambda t: torch.remainder(t, 0.7),
                      torch.remainder(opmath, rounded)),
    }
    for name, (fn, want) in cases.items():
        got = strata.compile(fn, (x,))(x)
        assert torch.equal(got, want.to(dtype)), (name, (got != want.to(dtype)).sum())

"""Every program of the capture list runs on the CPU and matches PyTorch
eager on fresh random inputs with ragged sizes: through the fused loop
kernels ("loop") and through the final GPU kernels with blocks and threads
emulated ("kernel"); and its PTX assembles for sm_90."""
import os
import re
import subprocess

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

from conftest import BUILD, REPO, uninstrumented_env
from strata.compile_expr import from_file
from strata.runner import check, check_kernels

STRATA = os.path.join(BUILD, "bin", "strata")


def randn(*shape):
    return torch.randn(*shape) * 2 + 0.5  # never zeros


PROGRAMS = {
    "relu_matmul": (lambda x, b, w: torch.relu(torch.matmul(x + b, w)),
                    lambda: (randn(17, 65), randn(65), randn(65, 19))),
    "rmsnorm": (lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
                lambda: (randn(1, 33, 2049), randn(2049))),
    "softmax": (lambda x: F.softmax(x, -1), lambda: (randn(33, 2049),)),
    "log_softmax": (lambda x: F.log_softmax(x, 0), lambda: (randn(37, 21),)),
    "layer_norm": (nn.LayerNorm(513), lambda: (randn(7, 513),)),
    "gelu": (nn.GELU(), lambda: (randn(9, 100),)),
    "gelu_tanh": (nn.GELU("tanh"), lambda: (randn(9, 100),)),
    "swiglu": (lambda g, u: F.silu(g) * u, lambda: (randn(5, 333), randn(5, 333))),
    "mlp": (nn.Sequential(nn.Linear(64, 129), nn.GELU(), nn.Linear(129, 33)),
            lambda: (randn(11, 64),)),
    "cat_strided_slice": (lambda a, b: torch.cat([a, b[:, 1::3]], 1),
                          lambda: (randn(4, 3), randn(4, 10))),
    "embedding": (lambda ids, t: F.embedding(ids, t),
                  lambda: (torch.randint(0, 100, (4, 7)), randn(100, 17))),
    "bmm": (torch.bmm, lambda: (randn(3, 17, 65), randn(3, 65, 9))),
    "einsum": (lambda a, b: torch.einsum("ij,jk->ik", a, b),
               lambda: (randn(16, 65), randn(65, 9))),
    "reductions": (lambda x: (x.var(0), x.sum(1), x.amax(0), x.prod(1), x.mean(),
                              x.max(), x.min()),
                   lambda: (torch.rand(6, 9) + 0.5,)),
    "max_with_indices": (lambda x: torch.max(x, 1), lambda: (randn(6, 9),)),
    "where_mask": (lambda x: torch.where(x > 0.5, x, torch.zeros_like(x)).to(torch.float16),
                   lambda: (randn(5, 3),)),
    "triu_mask": (lambda x: x + torch.triu(torch.full((13, 13), float("-inf")), diagonal=1),
                  lambda: (randn(2, 13, 13),)),
    "arange": (lambda x: x * torch.arange(3, 40, 2), lambda: (randn(4, 19),)),
    # Rows whose length is a multiple of 4: vector accesses, ragged rows.
    "scale_rows": (lambda x, w, t: torch.exp(x) * w + t.t(),
                   lambda: (randn(333, 20), randn(20), randn(20, 333))),
    "half_residual": (lambda x, y: (x + y * 0.5).to(torch.float16),
                      lambda: (randn(65, 36), randn(65, 36).to(torch.float16))),
    # pow by the exponents PyTorch computes without pow (x*x, sqrt, ...),
    # and one it does not; the fractional ones on positive inputs.
    "pow_constants": (lambda x, p: (x ** 2, x ** 3, x ** -1, x ** -2, x ** 0,
                                    p ** 0.5, p ** -0.5, p ** 2.5),
                      lambda: (randn(7, 33), torch.rand(7, 33) + 0.25)),
    # Row programs over rows of a multiple of 4: folds and write-backs in
    # runs of 4, as vectors.
    "softmax_rows": (lambda x: F.softmax(x, -1), lambda: (randn(13, 1028),)),
    "rmsnorm_rows": (lambda x, w: x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + 1e-6) * w,
                     lambda: (randn(3, 5, 516), randn(516))),
    # Bools and integers as inputs, outputs and intermediates: a bool takes
    # a byte in every buffer (vector accesses of them are bytes, not bits).
    "bool_outputs": (lambda x, i: (x > 0.5, i == 0),
                     lambda: (randn(33, 68), torch.randint(-3, 3, (7, 12)))),
    "bool_input": (lambda c, x, y: torch.where(c, x, y),
                   lambda: (randn(10, 12) > 0, randn(10, 12), randn(10, 12))),
    "bool_intermediates": (lambda x: ((x > 0).sum(-1), torch.where(x > 1, x, -x) * 2,
                                      (x > 0).to(torch.float32).mean(0)),
                           lambda: (randn(9, 36),)),
    "integers": (lambda i, j: (i + j * 3, (i - j).sum(0), i.int() * 2 + 1,
                               *torch.max(i, 1)),
                 lambda: (torch.randint(-50, 50, (6, 20)),
                          torch.randint(-50, 50, (6, 20)))),
    # 0-d tensors: reductions of one element, losses of scalars.
    "zero_d": (lambda x, y: (x.sum(), x.amax(), x.amin(), x.mean(), x.prod(),
                             F.l1_loss(x, y), *torch.max(x.reshape(1), 0),
                             # dims 0 and -1 of a 0-d tensor name no axis.
                             x.prod(-1), x.sum(0), *torch.max(y, -1),
                             F.softmax(x, -1), F.log_softmax(y, 0)),
               lambda: (randn(()), randn(()))),
    # Tensors without elements: empty results, sums of nothing (0), a
    # product with k = 0 (zeros), a concatenation with an empty part.
    "empty_tensors": (lambda x, w, b: (x * 2, x.sum(-1), x.prod(-1),
                                       torch.matmul(x, w) + b,
                                       torch.cat([x, b.reshape(1, 5).expand(3, 5)], 1)),
                      lambda: (randn(3, 0), randn(0, 5), randn(5))),
    # Found by tools/fuzz_frontend.py: 1-D empty tensors only (PyTorch
    # skips them in a cat, unless all are such); products with vectors
    # (PyTorch's matmul squeezes in place); relu6 (hardtanh).
    "empty_cat": (lambda e, x: (torch.cat([e, e * 2]), torch.cat([e, x, e])),
                  lambda: (randn(0), randn(4, 3))),
    "vector_products": (lambda v, w, u: (torch.matmul(v, w), w.t() @ v,
                                         torch.dot(v, u), F.relu6(v * 5)),
                        lambda: (randn(7), randn(7, 5), randn(7))),
    # Also found by it: the variance of nothing is NaN (N - correction counts
    # from 0), and a sum over a box of one point reads a constant index.
    # Sums of halves accumulate in f32 (a bf16 sum of 455 terms lost a
    # digit), products and statistics too; bf16 values widened to f32 are
    # checked with bf16's tolerance.
    "half_reductions": (lambda h, g: (h.sum(), h.sum(0), h.prod(-1), h.mean(-1),
                                      F.log_softmax(g, 1).to(torch.float32)),
                        lambda: (randn(7, 65).bfloat16(), randn(3, 33).bfloat16())),
    # Found by the sanitized run of fuzz_frontend's sample: two rows of
    # attention then a norm fuse into a row program with a one-point inner
    # nest (undefined behaviour in its vector runs, unseen without UBSan).
    "tiny_attention_norm": (lambda x: F.layer_norm(
        F.softmax(x @ x.transpose(-1, -2) * 0.125, -1) @ x, (64,)),
                            lambda: (randn(2, 64),)),
    "degenerate_reductions": (lambda e, x, i: (e.var(-1), x.var(0, correction=2),
                                               (i > 0).sum(), i.sum(0)),
                              lambda: (randn(3, 0), randn(2, 5),
                                       torch.randint(-20, 20, (1, 1)))),
}

# Programs whose contiguous fp32 rows must be read and written 128 bits at a
# time on the GPU.
VECTOR_PROGRAMS = {"scale_rows", "softmax_rows", "rmsnorm_rows"}


@pytest.mark.parametrize("via", ["loop", "kernel", "kernel-reversed",
                                 "kernel-shuffled"])
@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_program_matches_pytorch(name, via):
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs = PROGRAMS[name]
    report = check(fn, make_inputs(), via=via)
    assert report.passed, report
    assert report.kernels >= 1


@pytest.mark.parametrize("name", sorted(PROGRAMS) + ["decoder"])
def test_each_kernel_matches_its_loop_kernel(name):
    # Kernel by kernel, the emulated GPU kernels (reversed, bounds checked)
    # against the fused loop kernels on the same inputs.
    torch.manual_seed(sum(map(ord, name)))
    if name == "decoder":
        fn, inputs = from_file(os.path.join(REPO, "examples", "decoder.py"))
    else:
        fn, make_inputs = PROGRAMS[name]
        inputs = make_inputs()
    kernels = check_kernels(fn, inputs, via="kernel-reversed")
    assert kernels and all(k.passed for k in kernels), kernels


@pytest.mark.parametrize("via", ["loop", "kernel"])
def test_decoder_block(via):
    model, inputs = from_file(os.path.join(REPO, "examples", "decoder.py"))
    report = check(model, inputs, via=via)
    assert report.passed, report


PTXAS = os.path.join(os.environ.get("CUDA_ROOT", "/usr/local/cuda"), "bin", "ptxas")


@pytest.mark.skipif(not os.access(PTXAS, os.X_OK),
                    reason="ptxas not found: PTX is not assembled here")
@pytest.mark.parametrize("name", sorted(PROGRAMS) + ["decoder", "half_matmul"])
def test_ptx_assembles_for_sm90(name, tmp_path):
    import strata
    from strata.frontend import capture, import_program
    if name == "decoder":
        fn, inputs = from_file(os.path.join(REPO, "examples", "decoder.py"))
    elif name == "half_matmul":  # Tensor cores (no CPU f16 matmul to run).
        fn, inputs = torch.matmul, (randn(512, 384).half(), randn(384, 256).half())
    else:
        fn, make_inputs = PROGRAMS[name]
        inputs = make_inputs()
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("nvvm", "chip=sm_90 features=+ptx80 format=isa"))
    ptx = "".join(o.data.decode() for o in module.gpu_objects())
    path = tmp_path / "k.ptx"
    path.write_text(ptx)
    r = subprocess.run([PTXAS, "-arch=sm_90", "-v", str(path), "-o",
                        str(tmp_path / "k.cubin")], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    spills = re.findall(r"(\d+) bytes spill stores", r.stderr)
    assert spills and all(n == "0" for n in spills), r.stderr
    if name == "half_matmul":
        assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in ptx, ptx
    if name in VECTOR_PROGRAMS:
        assert re.search(r"ld\.global\.nc\.v4\.(b|f)32", ptx), ptx
        assert re.search(r"st\.global\.v4\.(b|f)32", ptx), ptx


def test_reference_computes_each_op_in_f64_rounded_to_its_dtype():
    # `check` compares with the captured program's ops computed in f64, each
    # result rounded to the op's dtype: independent of the host PyTorch's
    # kernels (its CPU bf16 matmul, say, sums with several roundings on
    # some builds and one on others).
    from strata.runner import reference
    from strata.frontend import capture
    torch.manual_seed(3)
    a, b = randn(2, 3, 40, 72).bfloat16(), randn(72, 56).bfloat16()
    [want] = reference(capture(torch.matmul, (a, b)), (a, b))
    assert want.dtype == torch.bfloat16
    # bf16 products and their sums over k = 72 are exact in f64: the
    # reference is the exact product, rounded once.
    assert torch.equal(want, (a.double() @ b.double()).bfloat16())
    # Each op rounds to its own dtype: in f32, 1 + 1e-8 is 1.
    x = torch.ones(5)
    [got] = reference(capture(lambda x: (x + 1e-8) - x, (x,)), (x,))
    assert got.dtype == torch.float32 and torch.equal(got, torch.zeros(5))
    [got] = reference(capture(lambda x: (x.double() + 1e-8) - x, (x,)), (x,))
    assert got.dtype == torch.float64 and float(got.min()) > 0
    # Integers and bools stay what they are.
    i = torch.tensor([7, -7, 2 ** 40])
    q, m = reference(capture(lambda i: (i // 2, i > 0), (i,)), (i,))
    assert torch.equal(q, i // 2) and torch.equal(m, i > 0)
    # Strata's kernels sum bf16 products in f32 and round once: within one
    # bf16 rounding of the exact product plus f32 summation error.
    report = check(torch.matmul, (a, b), via="kernel")
    assert report.passed, report
    ulp = want.double().abs().max() * 2.0 ** -8
    assert report.max_abs_error <= ulp, report
    linear = nn.Linear(72, 40).bfloat16()
    report = check(linear, (randn(5, 72).bfloat16(),), via="kernel")
    assert report.passed, report


def test_max_propagates_nan_and_its_index():
    x = randn(3, 8)
    x[1, 5] = float("nan")
    report = check(lambda x: torch.max(x, 1), (x,))
    assert report.passed, report  # NaN in row 1, and its index 5
    assert report.outputs[1].max_abs_error == 0


def test_run_command_prints_a_verdict():
    r = subprocess.run([STRATA, "run", "-c", "F.softmax(torch.randn(33, 2049), -1)",
                        "--via", "loop"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[0].startswith("kernels: ")
    assert lines[-2].startswith("max abs error: ")
    assert lines[-1] == "PASS"
    r = subprocess.run([STRATA, "run", "-c", "F.softmax(torch.randn(33, 2049), -1)"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    assert lines[1].startswith("kernel result 0 33x2049 float32: max abs error")
    assert lines[-1] == "PASS"
    # Schedule options reach the emulated kernels; a bad one is one line.
    matmul = "torch.matmul(torch.randn(100, 333).half(), torch.randn(333, 70).half())"
    r = subprocess.run([STRATA, "run", "-c", matmul, "--options", "wgmma=true",
                        "--via", "kernel-shuffled"], capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "PASS", r.stdout + r.stderr
    r = subprocess.run([STRATA, "run", "-c", matmul, "--options", "stages=-1"],
                       capture_output=True, text=True)
    assert r.returncode == 1
    assert len(r.stderr.strip().splitlines()) == 1, r.stderr
    assert r.stderr.startswith("strata: error: ") and r.stderr.strip().endswith(
        "tileir-pipeline: stages must be positive (or 0: chosen per contraction), "
        "got -1"), r.stderr


NVCC = os.path.join(os.environ.get("CUDA_ROOT", "/usr/local/cuda"), "bin", "nvcc")


@pytest.mark.skipif(not os.access(NVCC, os.X_OK),
                    reason="nvcc not found: the CUDA rendering is not compiled here")
@pytest.mark.parametrize("name", ["softmax", "where_mask", "embedding",
                                  "max_with_indices", "scale_rows", "half_matmul",
                                  "bf16_matmul", "tf32_matmul", "wgmma_matmul",
                                  "tma_wgmma_matmul", "tma_wgmma_heads_in_k",
                                  "tma_store_wgmma_linear",
                                  "large_half_matmul", "decoder", "flash_attention",
                                  "split_row"])
def test_cuda_rendering_compiles_with_nvcc(name, tmp_path):
    if name == "decoder":
        args = ["--file", os.path.join(REPO, "examples", "decoder.py")]
    else:
        args = {"softmax": ["-c", "F.softmax(torch.randn(33, 2049), -1)"],
                "where_mask": ["-c", "(lambda x: torch.where(x > 0.5, x, "
                               "torch.zeros_like(x)).to(torch.float16))"
                               "(torch.randn(5, 3))"],
                "embedding": ["-c", "(lambda ids, t: F.embedding(ids, t))"
                              "(torch.randint(0, 100, (4, 7)), torch.randn(100, 17))"],
                "max_with_indices": ["-c", "torch.max(torch.randn(6, 9), 1)"],
                "scale_rows": ["-c", "(lambda x, w: torch.exp(x) * w)"
                               "(torch.randn(333, 20), torch.randn(20))"],
                "half_matmul": ["-c", "torch.matmul(torch.randn(512, 384).half(), "
                                "torch.randn(384, 256).half())"],
                "large_half_matmul": ["-c", "torch.matmul(torch.randn(2048, 1024)"
                                      ".half(), torch.randn(1024, 2048).half())"],
                "bf16_matmul": ["-c", "torch.matmul(torch.randn(100, 333).bfloat16(), "
                                "torch.randn(333, 70).bfloat16())"],
                # The Q-tile schedule (shared chunks of keys; unsigned
                # clamps of indices, once unrenderable) and a row split
                # across blocks (split-folds).
                "flash_attention": ["-c", "(lambda q, k, v: torch.softmax(q @ "
                                    "k.transpose(-1, -2) * 0.2, -1) @ v)("
                                    "torch.randn(1, 2, 100, 32), torch.randn(1, "
                                    "2, 70, 32), torch.randn(1, 2, 70, 32))"],
                "split_row": ["-c", "F.softmax(torch.randn(1, 50257), -1)"],
                "tf32_matmul": ["-c", "torch.matmul(torch.randn(100, 64), "
                                "torch.randn(64, 72))", "--options",
                                "tf32=true stages=3"],
                "wgmma_matmul": ["-c", "torch.matmul(torch.randn(300, 200).half(), "
                                 "torch.randn(200, 260).half())", "--options",
                                 "wgmma=true schedule=contraction "
                                 "tile-sizes=128,128 threads=256 k-tile=32"],
                # Both operands by TMA, B row-major (MN-major, transposed).
                "tma_wgmma_matmul": ["-c", "torch.matmul(torch.randn(300, 328)"
                                     ".half(), torch.randn(328, 264).half())",
                                     "--options", "wgmma=true tma=true "
                                     "schedule=contraction tile-sizes=128,128 "
                                     "threads=256 k-tile=64"],
                # Attention's output [b][h][s][d] read as [b s][h d]: 4-d
                # boxes through the map's view, 32 rows each (96 a
                # sequence, 128 a tile).
                "tma_wgmma_heads_in_k": [
                    "-c", "(lambda o, w: o.transpose(1, 2).reshape(2, 96, 256) "
                    "@ w.t())(torch.randn(2, 4, 96, 64).half(), "
                    "torch.randn(72, 256).half())", "--options",
                    "wgmma=true tma=true schedule=contraction "
                    "tile-sizes=128,128 threads=256 k-tile=64"],
                # The result tile (bias and GELU applied) out through a
                # swizzled staging buffer by TMA (tma-store).
                "tma_store_wgmma_linear": [
                    "-c", "(lambda x, w, b: F.gelu(x @ w.t() + b))("
                    "torch.randn(300, 328).half(), torch.randn(264, 328)"
                    ".half(), torch.randn(264).half())", "--options",
                    "wgmma=true tma=true tma-store=true schedule=contraction "
                    "tile-sizes=128,128 threads=256 k-tile=64"]}[name]
    source = tmp_path / "kernels.cu"
    r = subprocess.run([STRATA, "compile"] + args + ["--emit", "cuda", "-o",
                                                     str(source)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    text = source.read_text()
    assert text.count("__global__") >= 1
    if name == "softmax":  # The row schedule: 2049 columns, 8 warps.
        for construct in ["__shfl_xor_sync", "__shared__", "__syncthreads"]:
            assert construct in text, construct
    if name == "scale_rows":  # 4 x f32 per access.
        assert "strata_vec<float, 4>" in text, text
        # Every argument is kernelir.noalias: each a __restrict__ pointer.
        assert re.search(r"forward_kernel\(float \*__restrict__ a0, "
                         r"float \*__restrict__ a1, float \*__restrict__ a2\)",
                         text), text
    if name == "half_matmul":  # Tensor cores, as inline PTX.
        assert "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32" in text, text
        # The row-major B: k x n chunks, fragments by ldmatrix .trans with
        # lane l at row l mod 16, one column.
        assert "ldmatrix.sync.aligned.m8n8.x2.trans.shared.b16" in text, text
        assert "(lane % 16) * 72LL + (lane / 16 % 1) * 8]" in text, text
        # Lanes and warps from the linear thread index.
        linear = "(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z))"
        assert linear + " % 32" in text and linear + " / 32" in text, text
    if name == "large_half_matmul":  # Two blocks per SM (min_blocks_per_sm).
        assert "__launch_bounds__(256, 2)" in text, text
    if name == "half_matmul":  # 64 x 64 tiles: the occupancy is ptxas's.
        assert "__launch_bounds__(256)" in text, text
    if name == "bf16_matmul":
        assert "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32" in text, text
    if name == "tf32_matmul":  # Rounded operands, pipelined async copies.
        for construct in ["mma.sync.aligned.m16n8k8.row.col.f32.tf32.tf32.f32",
                          "cvt.rna.tf32.f32", "cp.async.cg.shared.global",
                          "cp.async.wait_group %0;\" :: \"n\"(1)",
                          "ldmatrix.sync.aligned.m8n8.x4.shared.b16",
                          "(lane / 16 % 2) * 4]"]:
            assert construct in text, construct
    if name == "wgmma_matmul":  # Descriptors and 64 accumulator registers.
        for construct in ["wgmma.mma_async.sync.aligned.m64n128k16.f32.f16.f16",
                          "strata_wgmma_descriptor(&", ", 2048, 128)",
                          "fence.proxy.async.shared::cta",
                          "wgmma.wait_group.sync.aligned 0", "\"+f\"(v"]:
            assert construct in text, construct
    if name == "tma_wgmma_matmul":  # Maps by value, boxes, imm-trans-b 1.
        for construct in ["const __grid_constant__ strata_tensor_map",
                          "cp.async.bulk.tensor.2d", "mbarrier.try_wait.parity",
                          "p, 1, 1, 0, 1; }",
                          # A step's group left in flight, its registers
                          # fenced ("+f") by the wait.
                          "\"wgmma.wait_group.sync.aligned 1;\" : \"+f\"(v"]:
            assert construct in text, construct
        assert "cp.async.cg" not in text and "cp.async.ca" not in text, text
    if name == "tma_store_wgmma_linear":  # Two 64-column boxes a tile.
        for construct in ["fence.proxy.async.shared::cta",
                          "cp.async.bulk.tensor.2d.global.shared::cta",
                          "cp.async.bulk.wait_group.read %0;"]:
            assert construct in text, construct
        assert text.count("cp.async.bulk.tensor.2d.global.shared::cta") == 2
    if name == "tma_wgmma_heads_in_k":  # 4 boxes of 32 rows per lhs step.
        assert text.count("cp.async.bulk.tensor.4d") == 12, text
        assert "cp.async.cg" not in text and "cp.async.ca" not in text, text
    # wgmma exists only for sm_90a (compute_90a PTX).
    # ptxas's advisories (-v) say whether it kept the wgmma pipeline.
    arch = (["-gencode", "arch=compute_90a,code=sm_90a", "-Xptxas", "-v"]
            if "wgmma" in name else ["-arch=sm_90"])
    r = subprocess.run([NVCC, "-c"] + arch + [str(source), "-o",
                        str(tmp_path / "kernels.o")], capture_output=True, text=True,
                       env=uninstrumented_env())
    assert r.returncode == 0, r.stderr + text
    assert "Performance Loss" not in r.stderr, r.stderr
    assert "is injected" not in r.stderr, r.stderr


@pytest.mark.parametrize("shape", [(1000, 37), (513,), (333, 1), (1, 2049), (1, 1)])
def test_ragged_sizes_through_both_schedules(shape):
    """Elementwise (tile masks) and reduction (generic) kernels on sizes
    that are no multiple of any tile, down to one row and one element."""
    x = randn(*shape)
    elementwise = check(lambda x: torch.tanh(x) * 2 + 1, (x,), via="kernel")
    assert elementwise.passed, elementwise
    reduction = check(lambda x: F.softmax(x, -1), (x,), via="kernel")
    assert reduction.passed, reduction

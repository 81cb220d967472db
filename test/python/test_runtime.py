"""Artifacts and the CUDA runtime, on machines with and without a GPU."""
import os
import re
import subprocess

import pytest
import torch
import torch.nn as nn
import torch.nn.functional as F

import _strata_runtime as rt
import strata
from conftest import BUILD, REPO, excess_over_one_rounding

STRATA = os.path.join(BUILD, "bin", "strata")


def has_cuda_device():
    try:
        rt.describe_device()
        return True
    except rt.RuntimeError:
        return False


@pytest.fixture(scope="module")
def decoder_artifact(tmp_path_factory):
    path = tmp_path_factory.mktemp("a") / "decoder.strata"
    r = subprocess.run([STRATA, "compile", "--file",
                        os.path.join(REPO, "examples", "decoder.py"), "-o", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return path.read_bytes()


def test_artifact_holds_the_launch_plan(decoder_artifact):
    a = rt.Artifact.parse(decoder_artifact)
    assert a.target == "sm_90"
    arguments = [b for b in a.buffers if b.kind == "argument"]
    assert [b.name for b in arguments] == [
        "input0", "attn_norm.weight", "qkv.weight", "out.weight",
        "mlp_norm.weight", "gate.weight", "up.weight", "down.weight"]
    assert arguments[0].shape == [2, 13, 64] and arguments[0].dtype == "f32"
    assert len(a.launches) == 7
    assert all(a.ptx.count(".entry " + l.kernel + "(") == 1 for l in a.launches)
    assert len(a.outputs) == 1 and a.buffers[a.outputs[0]].shape == [2, 13, 64]
    for l in a.launches:
        assert all(0 <= i < len(a.buffers) for i in l.args)
        assert l.block[0] >= 1 and l.grid[0] >= 1


def test_artifact_round_trips(decoder_artifact):
    a = rt.Artifact.parse(decoder_artifact)
    assert a.serialize() == decoder_artifact


@pytest.mark.parametrize("text, message", [
    (b"", "expected header"),
    (b"strata-artifact 5\nend\n",
     "artifact version 5 is not supported \\(this runtime reads versions 1 to 4\\)"),
    # A tensor map's view (version 4): the buffer's elements, one extent
    # per dimension of the box.
    (b"strata-artifact 4\nbuffer argument 0 a f16 3 48 100 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 128 4 1 1 64 64 4 10 100 64\n"
     b"end\n", "tensor map of parameter 0 of 'k': a view of 256000 elements "
     "of a buffer of 307200"),
    (b"strata-artifact 4\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 128 2 64 64\nend\n",
     "expected tensor map dimension"),
    (b"strata-artifact 4\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 128 2 64 64 0 64\nend\n",
     "a view of -1 elements of a buffer of 4096"),
    # Waves (version 3): of a launch, over at least its grid's x, its y
    # and z 1.
    (b"strata-artifact 2\nlaunch k 4 1 1 32 1 1 0 0\nwave 10\nend\n",
     "unknown record 'wave'"),
    (b"strata-artifact 3\nwave 10\nend\n", "a wave before any launch"),
    (b"strata-artifact 3\nlaunch k 4 1 1 32 1 1 0 0\nwave 3\nend\n",
     "launch of 'k' is a wave over 3 tiles with a grid of 4 x 1 x 1"),
    (b"strata-artifact 3\nlaunch k 4 2 1 32 1 1 0 0\nwave 10\nend\n",
     "is a wave over 10 tiles with a grid of 4 x 2 x 1"),
    (b"strata-artifact 3\nlaunch k 4 1 1 32 1 1 0 0\nwave x\nend\n",
     "expected wave tiles"),
    # Tensor maps (version 2): of a launch's parameter, of at most its
    # buffer's rank (a lower one sees the leading dimensions as one),
    # within TMA's boxes and swizzles.
    (b"strata-artifact 1\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 128 2 64 64\nend\n",
     "unknown record 'tensor_map'"),
    (b"strata-artifact 2\ntensor_map 0 128 2 64 64\nend\n",
     "a tensor map before any launch"),
    (b"strata-artifact 2\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 1 128 2 64 64\nend\n",
     "tensor map of parameter 1 of 'k': the launch has 1 arguments"),
    (b"strata-artifact 2\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 128 3 1 64 64\nend\n",
     "a box of rank 3 for a buffer of rank 2"),
    (b"strata-artifact 2\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 128 2 512 64\nend\n",
     "box extent 512 \\(1 to 256\\)"),
    (b"strata-artifact 2\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 96 2 64 64\nend\n",
     "swizzle 96 \\(0, 32, 64 or 128 bytes\\)"),
    (b"strata-artifact 2\nbuffer argument 0 a f16 2 64 64\n"
     b"launch k 1 1 1 32 1 1 0 1 0\ntensor_map 0 128 9\nend\n",
     "a tensor map of rank 9"),
    (b"strata-artefact 1\nend\n", "not a Strata artifact"),
    (b"strata-artifact 1\nbuffer argument x0 a f32 0\nend\n",
     "expected argument position"),
    (b"strata-artifact 1\nbuffer argument 0 a f32 1 -3\nend\n", "negative dimension"),
    (b"strata-artifact 1\nbuffer argument 0 a f33 0\nend\n", "unknown dtype 'f33'"),
    (b"strata-artifact 1\nlaunch k 1 1 1 32 1 1 0 1 5\nend\n", "uses unknown buffer 5"),
    (b"strata-artifact 1\nlaunch k 1 1 -1 32 1 1 0 0\nend\n", "expected grid size"),
    (b"strata-artifact 1\nptx 10\nabc", "truncated ptx"),
    (b"strata-artifact 1\nptx 3 abc\nend\n", "truncated ptx"),
    (b"strata-artifact 1\nfoo\nend\n", "unknown record 'foo'"),
    (b"strata-artifact 1\ntarget sm_90\n", "expected a record"),
    # Absurd sizes: 2^60 bytes, or a product that overflows.
    (b"strata-artifact 1\nbuffer intermediate -1 - f32 1 288230376151711744\nend\n",
     "buffer 0 claims more than 1099511627776 bytes"),
    (b"strata-artifact 1\nbuffer intermediate -1 - i8 3 4294967296 4294967296 16\nend\n",
     "buffer 0 claims more than"),
    (b"strata-artifact 1\nbuffer constant -1 - f32 1 2 4\nabcd\nend\n",
     "constant buffer 0 holds 4 bytes for 8"),
    # Arguments bind in order: a plan must list them so.
    (b"strata-artifact 1\nbuffer argument 1 a f32 0\nend\n",
     "buffer 0 is argument 1, expected 0"),
    (b"strata-artifact 1\noutputs 1 3\nend\n", "output names unknown buffer 3"),
    (b"strata-artifact 1\nlaunch k 0 1 1 32 1 1 0 0\nend\n", "has an empty grid"),
    (b"strata-artifact 1\nlaunch k 1 1 1 64 32 1 0 0\nend\n",
     "has 2048 threads per block"),
    (b"strata-artifact 1\nlaunch k 1 1 1 32 1 1 300000 0\nend\n",
     "asks for 300000 bytes of shared memory"),
    (b"strata-artifact 1\nend\ngarbage", "data after 'end'"),
    (b"strata-artifact 1\ncubin 99999999999999999999\n", "expected cubin"),
])
def test_malformed_artifacts_are_artifact_errors(text, message):
    with pytest.raises(rt.ArtifactError, match=message):
        rt.Artifact.parse(text)


# A kernel that copies a 16 x 32 box of its input by TMA (128-byte
# swizzle) into shared memory and writes the box out as it lies.
TMA_PROGRAM = """
!box = memref<16x32xf32, #gpu.address_space<workgroup>>
!bars = memref<1xi64, #gpu.address_space<workgroup>>
kernelir.func @box(%in: memref<37x20xf32> {kernelir.tensor_map}, %out: memref<3x16x32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 3, 1, 1>} {
  %s = kernelir.shared : !box
  %full = kernelir.shared : !bars
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c16 = arith.constant 16 : index
  %false = arith.constant false
  %t = kernelir.thread_id x
  %b = kernelir.block_id x
  %leader = arith.cmpi eq, %t, %c0 : index
  scf.if %leader {
    kernelir.mbarrier_init %full[%c0] arrivals 1 : !bars
  }
  kernelir.proxy_fence
  kernelir.barrier
  scf.if %leader {
    %row = arith.muli %b, %c16 : index
    kernelir.mbarrier_arrive %full[%c0] expect_tx 2048 : !bars
    kernelir.tma_load %in[%row, %c0], %s[%c0, %c0] swizzle 128 arrives %full[%c0] : memref<37x20xf32>, !box, !bars
  }
  kernelir.mbarrier_wait %full[%c0] parity %false : !bars
  scf.for %r = %c0 to %c16 step %c1 {
    %x = kernelir.load %s[%r, %t] : !box -> f32
    kernelir.store %x, %out[%b, %r, %t] : memref<3x16x32xf32>
  }
  kernelir.return
}
func.func @forward(%in: memref<37x20xf32>) -> memref<3x16x32xf32> {
  %out = memref.alloc() : memref<3x16x32xf32>
  kernelir.launch @box(%in, %out) : memref<37x20xf32>, memref<3x16x32xf32>
  return %out : memref<3x16x32xf32>
}
"""


def test_artifact_carries_tensor_maps():
    # The launch plan says which parameter is a tensor map, of which box
    # and swizzle, for the runtime to encode per run; the PTX reads it as a
    # grid-constant parameter; the plan round-trips.
    module = strata.parse(TMA_PROGRAM)
    module.run(strata.pipeline("nvvm", "chip=sm_90 features=+ptx80 format=isa"))
    a = rt.Artifact.parse(module.artifact("forward", ["x"], None))
    [launch] = a.launches
    [m] = launch.tensor_maps
    assert (m.param, m.box, m.swizzle, m.shape) == (0, [16, 32], 128, [37, 20])
    assert a.buffers[launch.args[m.param]].shape == [37, 20]
    assert ".param .align 64 .b8 box_param_0[128]" in a.ptx
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in a.ptx
    again = rt.Artifact.parse(a.serialize())
    assert [(t.param, t.box, t.swizzle) for t in again.launches[0].tensor_maps] \
        == [(0, [16, 32], 128)]
    assert again.serialize() == a.serialize()


def test_artifact_carries_batched_tensor_maps():
    # A batched operand's map is of the whole tensor, its box one batch's
    # rows: of the buffer's rank, its leading extent 1 (q @ k.T per head,
    # both operands K-major).
    from strata.frontend import capture, import_program
    q, k = torch.randn(6, 100, 64).half(), torch.randn(6, 72, 64).half()
    module = import_program(capture(lambda q, k: q @ k.transpose(1, 2),
                                    (q, k)))
    module.run(strata.pipeline(
        "nvvm", "chip=sm_90a wgmma=true tma=true format=isa"))
    a = rt.Artifact.parse(module.artifact("forward", ["q", "k"], None))
    [launch] = a.launches
    maps = {a.buffers[launch.args[m.param]].shape[1]: m
            for m in launch.tensor_maps}
    assert sorted(maps) == [72, 100], launch.tensor_maps
    for rows, m in maps.items():
        assert a.buffers[launch.args[m.param]].shape == [6, rows, 64]
        assert m.box[0] == 1 and len(m.box) == 3 and m.swizzle, m.box
    assert "cp.async.bulk.tensor.3d.shared::cluster.global" in a.ptx


def test_artifact_carries_tensor_maps_of_folded_batches():
    # nn.Linear on a batch of sequences: x's map sees its two leading
    # dimensions as one (a box of rank 2 for a 3-d buffer), PTX copies
    # 2-d boxes.
    from strata.frontend import capture, import_program
    x = torch.randn(3, 100, 64).half()
    linear = nn.Linear(64, 72).half()
    module = import_program(capture(linear, (x,)))
    module.run(strata.pipeline(
        "nvvm", "chip=sm_90a wgmma=true tma=true format=isa"))
    a = rt.Artifact.parse(module.artifact("forward", ["x"], None))
    [launch] = a.launches
    shapes = sorted((a.buffers[launch.args[m.param]].shape, len(m.box))
                    for m in launch.tensor_maps)
    assert shapes == [([3, 100, 64], 2), ([72, 64], 2)], shapes
    assert sorted(m.shape for m in launch.tensor_maps) == [[72, 64], [300, 64]]
    assert "cp.async.bulk.tensor.2d.shared::cluster.global" in a.ptx
    assert rt.Artifact.parse(a.serialize()).serialize() == a.serialize()


def test_artifact_carries_viewed_tensor_maps():
    # Attention's output projection: the attention kernel writes [b h][s]
    # [d], the projection reads it as rows (b, s) and k (h, d) through a
    # 4-d view of the buffer ([b][h][s][d]), boxes [1, 1, 8 rows, 16 k]
    # (the default tile: 64 rows, 40 a sequence, 16 k a step); the
    # runtime encodes the view, not the buffer's shape.
    from strata.frontend import capture, import_program

    def attention(q, k, v, w):
        y = torch.softmax(q @ k.transpose(-2, -1), dim=-1) @ v
        return y.transpose(1, 2).reshape(2, 40, 256) @ w.t()
    inputs = tuple(torch.randn(2, 4, 40, 64).half() for _ in range(3)) + (
        torch.randn(72, 256).half(),)
    module = import_program(capture(attention, inputs))
    module.run(strata.pipeline(
        "nvvm", "chip=sm_90a wgmma=true tma=true format=isa"))
    a = rt.Artifact.parse(module.artifact("forward", ["q", "k", "v", "w"],
                                          None))
    viewed = [(a.buffers[launch.args[m.param]].shape, m.shape, m.box)
              for launch in a.launches for m in launch.tensor_maps
              if len(m.shape) == 4]
    assert viewed == [([8, 40, 64], [2, 4, 40, 64], [1, 1, 8, 16])], viewed
    assert "cp.async.bulk.tensor.4d.shared::cluster.global" in a.ptx
    assert rt.Artifact.parse(a.serialize()).serialize() == a.serialize()


def test_version_1_artifacts_still_load():
    a = rt.Artifact.parse(b"strata-artifact 1\nbuffer argument 0 a f32 1 4\n"
                          b"launch k 1 1 1 32 1 1 0 1 0\noutputs 0\nend\n")
    assert a.launches[0].args == [0] and a.launches[0].tensor_maps == []
    assert a.launches[0].wave_tiles == 0
    assert a.serialize().startswith(b"strata-artifact 4\n")


def test_artifact_carries_waves():
    # A persistent kernel whose instances are an estimate of a wave
    # (persistent-sms) strides over its tiles by the blocks launched
    # (%nctaid.x); the plan records the tiles, for the runtime to launch
    # the exact wave (the SMs times the blocks one holds, at most the
    # tiles), its grid the estimate; forced instances are no wave.
    from strata.frontend import capture, import_program
    a_, b_ = torch.randn(300, 328).half(), torch.randn(328, 260).half()
    plans = {}
    for options in ("persistent-sms=1", "persistent-instances=3"):
        module = import_program(capture(torch.matmul, (a_, b_)))
        module.run(strata.pipeline("nvvm", "chip=sm_90 format=isa " + options))
        plans[options] = rt.Artifact.parse(
            module.artifact("forward", ["a", "b"], None))
    [wave] = plans["persistent-sms=1"].launches
    assert wave.wave_tiles == 25 and wave.grid == [8, 1, 1], wave.grid
    assert "%nctaid.x" in plans["persistent-sms=1"].ptx
    text = plans["persistent-sms=1"].serialize()
    assert b"\nwave 25\n" in text
    assert rt.Artifact.parse(text).serialize() == text
    [forced] = plans["persistent-instances=3"].launches
    assert forced.wave_tiles == 0 and forced.grid == [3, 1, 1]
    assert b"\nwave " not in plans["persistent-instances=3"].serialize()


def test_python_modules_keep_a_private_pybind11_registry():
    # Shared pybind11 state with another extension (PyTorch's) is a known
    # source of crashes across pybind11 versions; see cmake/StrataPython.cmake.
    for name in ("_strata", "_strata_runtime"):
        module = __import__(name)
        with open(module.__file__, "rb") as f:
            ids = set(re.findall(rb"__pybind11_internals_v\w+?__", f.read()))
        assert ids and all(b"_strata" in i for i in ids), (name, ids)


@pytest.mark.skipif(not os.access("/usr/local/cuda/bin/ptxas", os.X_OK),
                    reason="ptxas not found: artifacts carry PTX only")
def test_artifact_carries_a_cubin(decoder_artifact):
    assert rt.Artifact.parse(decoder_artifact).cubin.startswith(b"\x7fELF")


def test_artifact_asks_for_dynamic_shared_memory(tmp_path):
    # A contraction pipelined beyond 48 KiB of shared memory (3 stages of
    # 128 x 32 and 32 x 128 f32 chunks: 96 KiB) launches with dynamic
    # shared memory: the plan carries its size, which the runtime requests
    # (and opts the kernel in to) at launch; other kernels ask for none.
    path = tmp_path / "big.strata"
    r = subprocess.run([STRATA, "compile", "-c",
                        "torch.matmul(torch.randn(300, 200), torch.randn(200, 260))",
                        "--options", "tile-sizes=128,128 threads=256 k-tile=32 "
                        "stages=3 shared-memory=200000", "-o", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a = rt.Artifact.parse(path.read_bytes())
    assert [l.shared_bytes for l in a.launches] == [3 * (128 + 128) * 32 * 4]
    assert ".extern .shared .align 16 .b8 __dynamic_shmem__0[]" in a.ptx
    assert rt.Artifact.parse(a.serialize()).launches[0].shared_bytes == 98304


def test_artifact_of_overlaid_shared_buffers_asks_for_dynamic_memory(
        tmp_path):
    # A TMA epilogue's staging over the operand chunks (64 x 64 tiles,
    # three stages of 32 k: 12 KiB chunks hold the 8 KiB tile) aliases
    # them, which static declarations cannot: the kernel takes its 24 KiB
    # and the mbarriers from the dynamic window, which the plan records
    # though it is under 48 KiB.
    path = tmp_path / "overlay.strata"
    r = subprocess.run([STRATA, "compile", "-c",
                        "torch.matmul(torch.randn(300, 328).half(), "
                        "torch.randn(328, 264).half())", "--chip", "sm_90a",
                        "--options", "wgmma=true tma=true tma-store=true "
                        "k-tile=32 stages=3", "--emit", "kernel"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert re.search(r"kernelir\.shared : memref<1x64x64xf16, .*> overlays",
                     r.stdout), r.stdout
    r = subprocess.run([STRATA, "compile", "-c",
                        "torch.matmul(torch.randn(300, 328).half(), "
                        "torch.randn(328, 264).half())", "--chip", "sm_90a",
                        "--options", "wgmma=true tma=true tma-store=true "
                        "k-tile=32 stages=3", "-o", str(path)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a = rt.Artifact.parse(path.read_bytes())
    [launch] = a.launches
    assert 2 * 12288 <= launch.shared_bytes < 49152, launch.shared_bytes
    assert ".extern .shared .align 16 .b8 __dynamic_shmem__0[]" in a.ptx


def test_artifact_of_a_program_without_kernels(tmp_path):
    # A program on empty tensors launches nothing and has no chip: its
    # artifact says `target -`, which parses (and round-trips) as none
    # (an empty target used to make the parser read the next record as
    # the chip).
    path = tmp_path / "empty.strata"
    r = subprocess.run([STRATA, "compile", "-c",
                        "(lambda x: x * 2)(torch.randn(3, 0))", "-o",
                        str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert b"\ntarget -\n" in path.read_bytes()
    a = rt.Artifact.parse(path.read_bytes())
    assert a.target == "" and not a.launches and len(a.buffers) == 2
    assert rt.Artifact.parse(a.serialize()).target == ""


def test_decoder_asks_for_no_dynamic_shared_memory(decoder_artifact):
    a = rt.Artifact.parse(decoder_artifact)
    assert all(l.shared_bytes == 0 for l in a.launches)


def test_tensor_constants_of_a_model_are_inputs(tmp_path):
    path = tmp_path / "c.strata"
    r = subprocess.run([STRATA, "compile", "-c",
                        "(lambda x: x * torch.tensor([1.0, 2.0, 3.0]))(torch.randn(4, 3))",
                        "-o", str(path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    a = rt.Artifact.parse(path.read_bytes())
    weights = [b for b in a.buffers if b.kind == "argument"]
    assert len(weights) == 2  # the tensor constant is an input, like a weight


def test_dense_constants_travel_in_the_artifact():
    import struct
    m = strata.parse("""
    func.func @forward(%x: tensor<4x3xf32>) -> tensor<4x3xf32> {
      %w = tensorir.constant dense<[1.5, -2.0, 3.25]> : tensor<3xf32>
      %b = tensorir.broadcast %w dims [1] : tensor<3xf32> -> tensor<4x3xf32>
      %r = tensorir.mul %x, %b : tensor<4x3xf32>
      return %r : tensor<4x3xf32>
    }""")
    m.run(strata.pipeline("nvvm", "format=isa"))
    a = rt.Artifact.parse(m.artifact("forward", ["x"]))
    constants = [b for b in a.buffers if b.kind == "constant"]
    assert len(constants) == 1 and constants[0].shape == [3]
    constant_id = [b.kind for b in a.buffers].index("constant")
    assert any(constant_id in l.args for l in a.launches)
    data = a.serialize().split(b"buffer constant")[1]
    assert struct.pack("<3f", 1.5, -2.0, 3.25) in data


@pytest.mark.parametrize("text,message", [
    (b"hello", "not a Strata artifact"),
    (b"strata-artifact 1\ntarget sm_90\nlaunch k 1 1 1 1 1 1 0 1 7\nend\n",
     "uses unknown buffer 7"),
    (b"strata-artifact 1\nptx 100\nshort", "truncated ptx"),
])
def test_malformed_artifacts_are_errors(text, message):
    with pytest.raises(rt.ArtifactError, match=message):
        rt.Artifact.parse(text)


@pytest.mark.skipif(has_cuda_device(), reason="this machine has a CUDA device")
def test_no_device_is_reported_clearly(decoder_artifact):
    with pytest.raises(rt.RuntimeError, match="no CUDA (driver|device)"):
        rt.Program(decoder_artifact)


def test_compiled_callable_on_cpu_tensors():
    x = torch.randn(33, 2049) * 2
    f = strata.compile(lambda x: F.softmax(x, -1), (x,))
    assert torch.allclose(f(x), F.softmax(x, -1), atol=1e-6)
    y = torch.randn(33, 2049)  # fresh inputs of the same shape
    assert torch.allclose(f(y), F.softmax(y, -1), atol=1e-6)
    mlp = nn.Sequential(nn.Linear(64, 129), nn.GELU(), nn.Linear(129, 33))
    g = strata.compile(mlp, (torch.randn(11, 64),))
    z = torch.randn(11, 64)
    with torch.no_grad():
        assert torch.allclose(g(z), mlp(z), atol=1e-4)
    values, indices = strata.compile(lambda x: torch.max(x, 1), (x,))(x)
    assert torch.equal(indices, torch.max(x, 1).indices)
    # A new shape compiles a new specialization (strata.api.Function).
    y = torch.randn(3, 4)
    assert torch.allclose(f(y), F.softmax(y, -1), atol=1e-6)
    assert len(f.specializations) == 2


def test_compiled_callable_takes_schedule_options():
    # The pipelines' options reach the kernels (here emulated): tf32 rounds
    # the f32 matmul's operands (its error is tf32's, not f32's), warpgroup
    # mma multiplies the halves; an invalid option is a CompilerError that
    # names it, and wgmma for a target other than sm_90a is refused by the
    # pipeline (kernelir-check-target), before LLVM.
    from strata.api import build_artifact
    torch.manual_seed(4)
    a, b = torch.randn(100, 64) * 2 + 0.5, torch.randn(64, 72) * 2 + 0.5
    exact = a.double() @ b.double()
    full = (strata.compile(torch.matmul, (a, b))(a, b).double() - exact).abs().max()
    tf32 = strata.compile(torch.matmul, (a, b), options="tf32=true")
    rounded = (tf32(a, b).double() - exact).abs().max()
    assert full < 1e-4 < rounded < 0.5, (full, rounded)
    h, w = a.half(), b.half()
    warpgroups = strata.compile(torch.matmul, (h, w), target="sm_90a",
                                options="wgmma=true")
    assert excess_over_one_rounding(warpgroups(h, w), h, w) <= 0
    with pytest.raises(strata.CompilerError, match="stages must be positive"):
        strata.compile(torch.matmul, (a, b), options="stages=-1")(a, b)
    with pytest.raises(strata.CompilerError,
                       match="'kernelir.wgmma' op exists on sm_90a alone"):
        build_artifact(warpgroups.text, warpgroups.names, "sm_90", schedule="wgmma=true")


@pytest.mark.skipif(not torch.cuda.is_available() or not has_cuda_device(),
                    reason="no CUDA device: GPU execution is checked by "
                           "tools/gpu-check.sh on a GPU host")
def test_compiled_callable_on_cuda_tensors():
    x = torch.randn(33, 2049, device="cuda")
    f = strata.compile(lambda x: F.softmax(x, -1), (x.cpu(),))
    assert torch.allclose(f(x), F.softmax(x, -1), atol=1e-5)
    # Kernel arguments are noalias: no output in place over an input.
    program = f._loaded._program
    with pytest.raises(rt.RuntimeError, match="output 0 overlaps argument 0"):
        program.run([x.data_ptr()], [x.data_ptr()])


def test_runtime_builds_without_llvm(tmp_path):
    build = tmp_path / "runtime"
    configure = subprocess.run(
        ["cmake", "-G", "Ninja", "-S", REPO, "-B", str(build),
         "-DSTRATA_RUNTIME_ONLY=ON", "-DCMAKE_CXX_COMPILER_LAUNCHER=ccache"],
        capture_output=True, text=True)
    assert configure.returncode == 0, configure.stdout + configure.stderr
    assert "MLIR" not in configure.stdout
    built = subprocess.run(["cmake", "--build", str(build)],
                           capture_output=True, text=True)
    assert built.returncode == 0, built.stdout + built.stderr
    probe = subprocess.run(
        ["/usr/bin/python3", "-c",
         "import _strata_runtime as rt\n"
         "try:\n    print(rt.describe_device())\n"
         "except rt.RuntimeError as e:\n    print('no device:', e)"],
        capture_output=True, text=True,
        env=dict(os.environ, PYTHONPATH=str(build / "python")))
    assert probe.returncode == 0, probe.stderr
    assert probe.stdout.strip()


def test_gpu_check_artifacts_bind_on_a_build_machine(tmp_path):
    """The GPU check's programs compile to artifacts here, and each binds to
    its program's inputs and weights (the GPU host's job minus the GPU)."""
    out = tmp_path / "artifacts"
    r = subprocess.run([os.path.join(REPO, "tools", "gpu-artifacts.sh"), str(out)],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    r = subprocess.run(["/usr/bin/python3", os.path.join(REPO, "tools", "gpu_check.py"),
                        str(out), "--dry-run"], capture_output=True, text=True,
                       env=dict(os.environ, PYTHONPATH=os.pathsep.join(
                           [os.path.join(BUILD, "python"), os.path.join(REPO, "python"),
                            os.path.join(REPO, "tools")])))
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(r.stdout.splitlines()) == 34
    assert "decoder_block        binds 8 arguments, 7 kernels" in r.stdout
    # Attention: the prefill one flash-fold kernel; the decode step's keys
    # split across blocks (split-KV), the partial folds and their
    # combination.
    assert "attention_decode_gpt2 binds 3 arguments, 2 kernels" in r.stdout
    assert "attention_prefill_gpt2 binds 3 arguments, 1 kernels" in r.stdout
    # In halves too (the Q tile on tensor cores).
    for name in ["attention_prefill_gpt2_f16_causal",
                 "attention_prefill_llama_bf16_causal",
                 "attention_prefill_f16_causal_ragged"]:
        assert re.search(name + r" +binds 3 arguments, 1 kernels", r.stdout), \
            r.stdout
    # k = 3001: partial slices, the remainder's partials, their sum.
    assert "matmul_split_k_prime binds 2 arguments, 3 kernels" in r.stdout


PTXAS = os.path.join(os.environ.get("CUDA_ROOT", "/usr/local/cuda"), "bin", "ptxas")


@pytest.mark.skipif(not os.access(PTXAS, os.X_OK), reason="ptxas not found")
def test_llvm_o2_artifacts_take_fewer_registers(tmp_path):
    # The llvm_o2 set (opt-level=2, to time against O3 on a GPU) carries its
    # option into the artifacts: the decoder block's PTX takes fewer
    # registers than the same program's default (O3) artifact.
    from strata.cli import _ptxas, resource_report
    r = subprocess.run([os.path.join(REPO, "tools", "gpu-artifacts.sh"),
                        str(tmp_path), "llvm_o2"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert len(r.stdout.splitlines()) == 7
    o3_path = tmp_path / "decoder_O3.strata"
    r = subprocess.run([os.path.join(BUILD, "bin", "strata"), "compile",
                        "--file", os.path.join(REPO, "examples", "decoder.py"),
                        "-o", str(o3_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    registers = {}
    for level, path in (("O2", tmp_path / "decoder_block_O2.strata"),
                        ("O3", o3_path)):
        artifact = rt.Artifact.parse(path.read_bytes())
        assert len(artifact.launches) == 7
        report = resource_report(_ptxas(artifact.ptx, "sm_90", verbose=True)[1])
        assert len(report) == 7
        registers[level] = sum(k["registers"] for k in report)
    assert registers["O2"] < registers["O3"], registers


@pytest.mark.skipif(has_cuda_device(), reason="this machine has a CUDA device")
def test_run_on_cuda_without_a_device_is_one_line():
    r = subprocess.run([STRATA, "run", "-c", "F.softmax(torch.randn(33, 2049), -1)",
                        "--device", "cuda"], capture_output=True, text=True)
    assert r.returncode == 1
    assert r.stderr.startswith("strata: error: no CUDA")
    assert r.stderr.strip().count("\n") == 0


def test_truncated_or_corrupted_artifacts_never_crash(decoder_artifact):
    # Every cut of a real artifact, and single corrupted bytes across it,
    # either parse or raise ArtifactError: the reader never reads past its
    # text, never trusts a size it has not checked.
    import random
    n = len(decoder_artifact)
    for cut in range(0, n, max(1, n // 300)):
        with pytest.raises(rt.ArtifactError):
            rt.Artifact.parse(decoder_artifact[:cut])
    rng = random.Random(7)
    for _ in range(300):
        data = bytearray(decoder_artifact)
        at = rng.randrange(n)
        data[at] = rng.choice(b"0123456789- \n\x00\xffz")
        try:
            rt.Artifact.parse(bytes(data))
        except rt.ArtifactError:
            pass


def test_tensors_are_checked_against_the_plan_before_the_gpu():
    # strata.device binds tensors to an artifact's buffers: a mismatch is a
    # BindingError naming the argument and what is wrong, found without a
    # GPU (and so before any pointer reaches the runtime).
    from strata.api import build_artifact
    from strata.device import BindingError, Loaded
    from strata.frontend import capture, import_program
    mlp = nn.Linear(8, 4)
    program = capture(mlp, (torch.randn(3, 8),))
    loaded = Loaded(build_artifact(str(import_program(program)),
                                   program.argument_names()))
    assert loaded.argument_names == ["input0", "weight", "bias"]
    x, w, b = torch.randn(3, 8), torch.randn(4, 8), torch.randn(4)
    cases = [
        ((x, w), r"takes 3 arguments \(input0, weight, bias\), got 2"),
        ((x, w, [1.0] * 4), r"argument 'bias' is a list, not a tensor"),
        ((torch.randn(3, 9), w, b), r"argument 'input0' has shape \(3, 9\), "
                                    r"the program takes \(3, 8\)"),
        ((x, w.double(), b), r"argument 'weight' is torch.float64, the "
                             r"program takes torch.float32"),
        ((x, torch.randn(8, 4).t(), b), r"argument 'weight' is not contiguous"),
        ((x, w, torch.randn(5)[1:]), r"argument 'bias' starts at an address "
                                     r"that is not 16-byte aligned"),
        ((x, w, b), r"argument 'input0' is on cpu; the program runs on cuda:0"),
    ]
    for arguments, message in cases:
        with pytest.raises(BindingError, match=message):
            loaded.bind(arguments)
    # Outputs given as `out` are checked the same way.
    f = strata.compile(mlp, (x,))
    with pytest.raises(BindingError, match=r"output 0 has shape \(4, 3\)"):
        f(x, out=torch.empty(4, 3))
    with pytest.raises(BindingError, match=r"output 0 is torch.float16"):
        f(x, out=torch.empty(3, 4, dtype=torch.float16))
    with pytest.raises(BindingError, match=r"output 0 is not contiguous"):
        f(x, out=torch.empty(4, 3).t())
    # A compiled specialization checks its inputs' shapes and dtypes.
    with pytest.raises(BindingError, match=r"input 0: compiled for \(3, 8\)"):
        list(f.specializations.values())[0](torch.randn(3, 7))
    out = torch.empty(3, 4)
    assert f(x, out=out) is out
    with torch.no_grad():
        assert torch.allclose(out, mlp(x), atol=1e-5)


def test_cpu_runs_check_element_types():
    # A buffer of another element than the signature's would be read as
    # the wrong type: run_on_cpu refuses it, naming the buffer.
    m = strata.parse("""
    func.func @forward(%x: tensor<4xf32>) -> tensor<4xf32> {
      %r = tensorir.exp %x : tensor<4xf32>
      return %r : tensor<4xf32>
    }""")
    import numpy as np
    out = np.zeros(4, np.float32)
    for bad, message in [(np.zeros(4, np.float64), "element type of input 0"),
                         (np.zeros(4, np.int32), "element type of input 0"),
                         (np.zeros(5, np.float32), "shape of input 0")]:
        with pytest.raises(strata.CompilerError, match=message):
            m.run_on_cpu("forward", "strata-lower-to-cpu", [bad], [out])
    with pytest.raises(strata.CompilerError, match="element type of result 0"):
        m.run_on_cpu("forward", "strata-lower-to-cpu", [out.copy()],
                     [np.zeros(4, np.int32)])

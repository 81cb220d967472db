"""The traffic model behind `strata compile --report`: each access counted
once per tile that makes it (tile bytes) and each touched element once
(global-memory bytes), FLOPs, the roofline time; checked against what the
schedule implies, by hand."""
import os
import re
import subprocess

import pytest
import torch
import torch.nn.functional as F

import _strata
from conftest import BUILD
from strata.frontend import capture
from strata.report import traffic_report

STRATA = os.path.join(BUILD, "bin", "strata")
F32 = 4


def report(fn, *inputs, options=""):
    return traffic_report(capture(fn, inputs), options)


def test_matmul_reads_each_operand_once_per_row_or_column_of_tiles():
    # 100 x 333 by 333 x 70 in 64 x 64 tiles (forced: the default takes
    # 32 x 32 for so small a grid): 2 x 2 programs; A is read once per
    # column of tiles, B once per row of them.
    a, b = torch.randn(100, 333), torch.randn(333, 70)
    (k,) = report(torch.matmul, a, b, options="tile-sizes=64,64").kernels
    assert k["kind"] == "contraction" and k["programs"] == 4
    assert k["schedule"] == "64x64 t256", k
    assert k["tile_bytes_read"] == (100 * 333 * 2 + 333 * 70 * 2) * F32
    assert k["bytes_read"] == (100 * 333 + 333 * 70) * F32
    assert k["bytes_written"] == k["tile_bytes_written"] == 100 * 70 * F32
    assert k["flops"] == 2 * 100 * 70 * 333
    assert k["unit"] == "f32"
    # The roofline's time, on the 4 of 132 multiprocessors the 4 blocks
    # occupy.
    roofline = _strata.roofline()
    assert k["seconds"] == pytest.approx(max(
        (k["bytes_read"] + k["bytes_written"]) / roofline["bandwidth"],
        k["flops"] / roofline["f32"]) * roofline["multiprocessors"] / 4)


def test_half_contractions_run_on_tensor_cores_unless_told_otherwise():
    a, b = torch.randn(64, 128).half(), torch.randn(128, 64).half()
    assert report(torch.matmul, a, b).kernels[0]["unit"] == "f16"
    off = report(torch.matmul, a, b, options="tensor-cores=false")
    assert off.kernels[0]["unit"] == "f32"
    x, y = torch.randn(64, 128), torch.randn(128, 64)
    assert report(torch.matmul, x, y, options="tf32=true").kernels[0]["unit"] == "tf32"


def test_broadcast_operands_are_read_once_per_tile():
    # A bias of 37 read by every program of a 1000 x 37 elementwise kernel.
    x, bias = torch.randn(1000, 37), torch.randn(37)
    (k,) = report(lambda x, b: torch.tanh(x) + b, x, bias).kernels
    programs = k["programs"]
    assert programs > 1
    assert k["tile_bytes_read"] == (1000 * 37 + 37 * programs) * F32
    assert k["bytes_read"] == (1000 * 37 + 37) * F32
    assert k["flops"] == 2 * 1000 * 37  # tanh and the add, per element


def test_a_row_read_twice_by_one_program_counts_once():
    # Softmax reads each row for its max, its sum and its output: one
    # program per row reads it from global memory once.
    x = torch.randn(33, 2049)
    (k,) = report(lambda x: F.softmax(x, -1), x).kernels
    assert k["kind"] == "row"
    assert k["tile_bytes_read"] == k["bytes_read"] == 33 * 2049 * F32
    assert k["bytes_written"] == 33 * 2049 * F32


def test_sibling_contractions_each_read_their_shared_input():
    x, g, u = torch.randn(70, 96), torch.randn(77, 96), torch.randn(77, 96)
    (k,) = report(lambda x, g, u: F.silu(x @ g.t()) * (x @ u.t()), x, g, u,
                  options="tile-sizes=64,64").kernels
    assert k["programs"] == 4
    assert k["tile_bytes_read"] == 2 * (70 * 96 * 2 + 77 * 96 * 2) * F32
    assert k["bytes_read"] == (70 * 96 + 2 * 77 * 96) * F32


def test_program_total_against_its_ideal():
    # Ideal: inputs and outputs once; the intermediate between the two
    # products (gelu of the first, its epilogue) written and read again is
    # what the modeled total has beyond it.
    q = torch.randn(2, 100, 64)
    r = report(lambda q: F.gelu(q @ q.transpose(-1, -2)) @ q, q)
    assert r.ideal_bytes == 2 * q.numel() * F32
    assert r.bytes > r.ideal_bytes + 2 * 2 * 100 * 100 * F32
    assert r.bytes == sum(k["bytes_read"] + k["bytes_written"] for k in r.kernels)
    assert r.ideal_seconds <= r.seconds
    assert "modeled, not measured" in r.text()
    # With softmax in between, attention is one flash kernel: no
    # intermediate, the ideal.
    r = report(lambda q: F.softmax(q @ q.transpose(-1, -2), -1) @ q, q)
    assert len(r.kernels) == 1 and r.bytes == r.ideal_bytes, r.text()


def test_compile_report_names_the_kernels_ptxas_assembles(tmp_path):
    out = subprocess.run(
        [STRATA, "compile", "-c", "(lambda a, w, v: F.softmax(F.gelu(a @ w), -1) @ v)"
         "(torch.randn(70, 96), torch.randn(96, 150), torch.randn(150, 40))", "--emit", "ptx", "-o", str(tmp_path / "p.ptx"),
         "--report", "--report-html", str(tmp_path / "r.html")],
        capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    rows = re.findall(r"^(\w+kernel\w*) +(elementwise|row|contraction|generic) ",
                      out.stderr, re.M)
    ptx = open(tmp_path / "p.ptx").read()
    assert sorted(n for n, _ in rows) == sorted(re.findall(r"\.entry (\w+)\(", ptx))
    assert "ideal" in out.stderr and "registers" in out.stderr
    page = open(tmp_path / "r.html").read()
    assert page.count("<circle") == len(rows)
    assert all(name in page for name, _ in rows)
    assert "modeled, not measured" in page


def test_schedule_names_tile_threads_band_and_instances():
    # 4096 x 4096 halves: 128 x 128 tiles of 256 threads, in bands of 8
    # rows of tiles (1024 of them, more than a wave); the table shows it,
    # and the 264 instances of a persistent kernel.
    a = torch.randn(4096, 4096).half()
    r = report(torch.matmul, a, a)
    assert [k["schedule"] for k in r.kernels] == ["128x128 t256 r8"]
    assert "128x128 t256 r8" in r.text()
    r = report(torch.matmul, a, a, options="raster-group=1")
    assert [k["schedule"] for k in r.kernels] == ["128x128 t256"]
    r = report(torch.matmul, a, a, options="persistent-sms=132")
    assert [k["schedule"] for k in r.kernels] == ["128x128 t256 r8 p264"]
    assert [k["programs"] for k in r.kernels] == [264]  # Blocks launched.

"""The `strata` command line, run as a user would run it."""
import os
import re
import subprocess

import pytest

from conftest import BUILD, REPO

STRATA = os.path.join(BUILD, "bin", "strata")
EXAMPLE = os.path.join(REPO, "examples", "elementwise.mlir")


def run(*args, **kwargs):
    return subprocess.run([STRATA] + list(args), capture_output=True,
                          text=True, **kwargs)


def test_help():
    r = run("--help")
    assert r.returncode == 0
    for command in ("lower", "stages", "ptx"):
        assert command in r.stdout


def test_lower_writes_the_requested_stage(tmp_path):
    out = tmp_path / "loop.mlir"
    r = run("lower", EXAMPLE, "--to", "loop", "-o", str(out))
    assert r.returncode == 0, r.stderr
    # exp, broadcast, mul and add fuse into one kernel.
    assert out.read_text().count("loopir.kernel") == 1


def test_stages_run_checks_the_example_on_the_cpu():
    r = run("stages", EXAMPLE, "--run")
    assert r.returncode == 0, r.stderr
    order = ["tensorir (input)", "strata-lower-to-loop",
             "strata-lower-to-tile", "strata-lower-to-kernel",
             "strata-lower-to-gpu", "PTX for sm_90",
             "then mlir-runner"]
    positions = [r.stdout.index(stage) for stage in order]
    assert positions == sorted(positions)
    assert "max abs error over 1000x37 elements: 0\n" in r.stdout
    assert r.stdout.rstrip().endswith("PASS")


def test_stages_run_fails_when_the_harness_fails(tmp_path):
    # Break the reference so that the harness prints FAIL.
    text = open(EXAMPLE).read().replace("%want = arith.addf %p, %one",
                                        "%want = arith.subf %p, %one")
    bad = tmp_path / "wrong.mlir"
    bad.write_text(text)
    r = run("stages", str(bad), "--run")
    assert r.returncode == 1
    assert r.stdout.rstrip().endswith("FAIL")


def test_missing_file_is_one_line():
    r = run("lower", "/no/such/file.mlir", "--to", "loop")
    assert r.returncode != 0
    assert r.stderr.strip().count("\n") == 0
    assert "cannot read /no/such/file.mlir" in r.stderr
    assert "Traceback" not in r.stderr


def test_malformed_ir_is_a_diagnostic_not_a_traceback(tmp_path):
    bad = tmp_path / "bad.mlir"
    bad.write_text("func.func @f() {\n  %0 = tensorir.exp\n}\n")
    r = run("lower", str(bad), "--to", "loop")
    assert r.returncode == 1
    assert r.stderr.startswith("strata: error: ")
    assert "bad.mlir:2:" in r.stderr
    assert "Traceback" not in r.stderr


def test_impossible_schedule_option_is_a_diagnostic():
    r = run("lower", EXAMPLE, "--to", "tile", "--options", "threads=3")
    assert r.returncode == 1
    assert "cannot be split evenly among 3 threads" in r.stderr
    assert "see current operation" not in r.stderr  # no IR dump
    assert "Traceback" not in r.stderr


@pytest.mark.parametrize("options, message", [
    ("k-tile=-3", "tileir-k-tile: k-tile must be positive (or 0: chosen per contraction), got -3"),
    ("stages=-2", "tileir-pipeline: stages must be positive (or 0: chosen per contraction), got -2"),
])
def test_invalid_option_is_one_line(options, message):
    # A pass's option error is reported on the module: its file where it
    # has one, else the message alone.
    r = run("lower", EXAMPLE, "--to", "tile", "--options", options)
    assert r.returncode == 1
    assert r.stderr.strip() == "strata: error: %s:0:0: error: %s" % (EXAMPLE, message)
    r = run("compile", "-c", "torch.matmul(torch.randn(20, 20), torch.randn(20, 20))",
            "--emit", "tile", "--options", options)
    assert r.returncode == 1
    assert r.stderr.strip() == "strata: error: " + message


def test_ptx_of_the_example(tmp_path):
    out = tmp_path / "k.ptx"
    r = run("ptx", EXAMPLE, "-o", str(out))
    assert r.returncode == 0, r.stderr
    ptx = out.read_text()
    assert ".target sm_90" in ptx
    assert ptx.count(".visible .entry") == 1


PTXAS = "/usr/local/cuda/bin/ptxas"


def test_compile_emits_every_stage_down_to_gpu_and_ptx(tmp_path):
    # kernel (kernelir), gpu (upstream gpu ops in a gpu.module, launches as
    # gpu.launch_func) and ptx for the chip asked for (--target or --chip).
    expr = "F.softmax(torch.randn(33, 70), -1)"
    r = run("compile", "-c", expr, "--emit", "kernel")
    assert r.returncode == 0, r.stderr
    assert "kernelir.func" in r.stdout and "kernelir.launch" in r.stdout
    r = run("compile", "-c", expr, "--emit", "gpu")
    assert r.returncode == 0, r.stderr
    for construct in ("gpu.module @strata_kernels", "gpu.func @forward_kernel",
                      "gpu.launch_func", "gpu.shuffle  xor"):
        assert construct in r.stdout, construct
    assert "kernelir." not in r.stdout
    for flag in ("--target", "--chip"):
        r = run("compile", "-c", expr, "--emit", "ptx", flag, "sm_80")
        assert r.returncode == 0, r.stderr
        assert ".target sm_80" in r.stdout


def test_compile_verify_each_gives_the_same_ptx():
    expr = "F.softmax(torch.randn(33, 2049), -1)"
    once = run("compile", "-c", expr, "--emit", "ptx")
    each = run("compile", "-c", expr, "--emit", "ptx", "--verify-each")
    assert once.returncode == 0 and each.returncode == 0, each.stderr
    assert ".entry" in once.stdout and once.stdout == each.stdout
    assert once.stdout.endswith("}\n")  # The last line ends.


def test_compile_timing_lists_passes_and_stages():
    r = run("compile", "-c", "F.softmax(torch.randn(33, 2049), -1)", "--emit",
            "loop", "--timing")
    assert r.returncode == 0, r.stderr
    for what in ("Execution time report", "LoopIRFusePass",
                 "capture (PyTorch tracing)", "tensorir to loop"):
        assert what in r.stderr


@pytest.mark.skipif(not os.access(PTXAS, os.X_OK), reason="ptxas not found")
def ptxas_rows(stderr):
    """The rows of --report's ptxas table (kernel, registers, spill stores,
    spill loads, static and dynamic shared memory), split."""
    lines = stderr.splitlines()
    header = [i for i, l in enumerate(lines) if l.split()[1:2] == ["registers"]]
    assert len(header) == 1, stderr
    return [l.split() for l in lines[header[0] + 1:]
            if l.startswith("forward_kernel") and len(l.split()) == 6]


def test_compile_report_lists_every_kernel_without_spills(tmp_path):
    r = run("compile", "--file", os.path.join(REPO, "examples", "decoder.py"),
            "--emit", "ptx", "-o", str(tmp_path / "d.ptx"), "--report",
            "--timing")
    assert r.returncode == 0, r.stderr
    rows = ptxas_rows(r.stderr)
    assert len(rows) == 7
    assert all(row[2] == "0" and row[3] == "0" for row in rows)  # no spills
    assert all(row[5] == "0" for row in rows)  # static shared memory only
    assert "ptxas -arch=sm_90" in r.stderr


@pytest.mark.skipif(not os.access(PTXAS, os.X_OK), reason="ptxas not found")
def test_compile_report_counts_dynamic_shared_memory(tmp_path):
    # ptxas counts static shared memory alone; the report adds what the
    # launch plan requests: a TMA epilogue's staging over the operand
    # chunks takes the dynamic window (static declarations cannot alias).
    r = run("compile", "-c", "torch.matmul(torch.randn(300, 328).half(), "
            "torch.randn(328, 264).half())", "--emit", "ptx", "--chip",
            "sm_90a", "--options", "wgmma=true tma=true tma-store=true "
            "k-tile=32 stages=3", "-o", str(tmp_path / "o.ptx"), "--report")
    assert r.returncode == 0, r.stderr
    [row] = ptxas_rows(r.stderr)
    assert row[4] == "0" and 2 * 12288 <= int(row[5]) < 49152, row


@pytest.mark.skipif(not os.access(PTXAS, os.X_OK), reason="ptxas not found")
@pytest.mark.parametrize("dtype, size", [("half", 4096), ("bfloat16", 4096),
                                         ("half", 1000)])
def test_wgmma_kernels_assemble_for_sm90a_without_spills(tmp_path, dtype, size):
    # wgmma=true --chip sm_90a: the PTX multiplies by warpgroups (a 4096^3
    # matmul takes 128 x 128 tiles: two warpgroups of m64n128k16, two per
    # step of 32 k; 1000 x 333 by 333 x 517 the default tiles, m64n32k16),
    # fenced for the async proxy; ptxas accepts it without spills.
    expr = ("torch.matmul(torch.randn({m}, {k}).{t}(), torch.randn({k}, {n}).{t}())"
            .format(m=size, k=size if size == 4096 else 333,
                    n=size if size == 4096 else 517, t=dtype))
    out = tmp_path / "w.ptx"
    r = run("compile", "-c", expr, "--emit", "ptx", "--report", "--options",
            "wgmma=true", "--chip", "sm_90a", "-o", str(out))
    assert r.returncode == 0, r.stderr
    ptx = out.read_text()
    operands = "f16" if dtype == "half" else "bf16"
    n = 128 if size == 4096 else 32
    assert ".target sm_90a" in ptx
    assert ("wgmma.mma_async.sync.aligned.m64n%dk16.f32.%s.%s"
            % (n, operands, operands)) in ptx
    for construct in ("wgmma.fence.sync.aligned", "fence.proxy.async.shared::cta",
                      "wgmma.commit_group.sync.aligned"):
        assert construct in ptx, construct
    # A's aligned rows (k = 4096) are copied asynchronously; k = 333 is not.
    assert ("cp.async" in ptx) == (size == 4096)
    assert re.search(r"wgmma\.wait_group\.sync\.aligned\s+0;", ptx)
    assert "mma.sync" not in ptx
    rows = ptxas_rows(r.stderr)
    assert len(rows) == 1 and rows[0][2] == "0" and rows[0][3] == "0", r.stderr


@pytest.mark.skipif(not os.access(PTXAS, os.X_OK), reason="ptxas not found")
def test_persistent_tma_fed_wgmma_assembles_without_spills(tmp_path):
    # persistent-sms=132: the 4096^3 product of the test below as one wave
    # of 264 blocks looping over the tiles (the loop's structure, the
    # mbarriers initialized before it: nvvm-persistent.mlir), three
    # stages' mbarriers as before, and ptxas keeps to the budget of two
    # blocks per SM without spills.
    x = "torch.randn(4096, 4096).half()"
    out = tmp_path / "p.ptx"
    r = run("compile", "-c", "torch.matmul({x}, {x})".format(x=x), "--emit",
            "ptx", "--report", "--options",
            "wgmma=true tma=true persistent-sms=132", "--chip", "sm_90a",
            "-o", str(out))
    assert r.returncode == 0, r.stderr
    ptx = out.read_text()
    assert ptx.count("mbarrier.init.shared") == 3, ptx
    assert "128x128 t256 r8 p264" in r.stderr, r.stderr
    rows = ptxas_rows(r.stderr)
    assert len(rows) == 1 and rows[0][2] == "0" and rows[0][3] == "0", r.stderr


@pytest.mark.skipif(not os.access(PTXAS, os.X_OK), reason="ptxas not found")
@pytest.mark.parametrize("form", ["linear", "matmul"])
@pytest.mark.parametrize("dtype", ["half", "bfloat16"])
def test_tma_fed_wgmma_assembles_for_sm90a_without_spills(tmp_path, dtype,
                                                           form):
    # wgmma=true tma=true at 4096^3: x @ w.T copies a 128 x 64 box of each
    # operand a step, a @ b one of A and two 64 x 64 boxes of its row-major
    # B (MN-major, read transposed: imm-trans-b 1), into 128-byte-swizzled
    # chunks in three stages (two steps issued before the loop, one in it);
    # the tensor maps are 128-byte grid-constant parameters, every thread
    # waits on the stage's mbarrier: no cp.async, no thread staging an
    # element; ptxas accepts it without spills.
    x = "torch.randn(4096, 4096).{t}()".format(t=dtype)
    expr = ("(lambda x, w: x @ w.t())({x}, {x})" if form == "linear"
            else "torch.matmul({x}, {x})").format(x=x)
    out = tmp_path / "t.ptx"
    r = run("compile", "-c", expr, "--emit", "ptx", "--report", "--options",
            "wgmma=true tma=true", "--chip", "sm_90a", "-o", str(out))
    assert r.returncode == 0, r.stderr
    ptx = out.read_text()
    assert ptx.count(".param .align 64 .b8 forward_kernel_param_") == 2, ptx
    boxes = 3 * (2 if form == "linear" else 3)
    assert ptx.count("cp.async.bulk.tensor.2d.shared::cluster.global") == boxes
    assert "mbarrier.try_wait.parity" in ptx
    assert not re.search(r"cp\.async\.c[ag]", ptx), "cp.async left"
    operands = "f16" if dtype == "half" else "bf16"
    transposed = 1 if form == "matmul" else 0
    assert re.search(r"wgmma\.mma_async\.sync\.aligned\.m64n128k16\.f32\.%s\.%s "
                     r"\{[^}]*\}, %%rd\d+, %%rd\d+, p, 1,\s*1, 0,\s*%d;"
                     % (operands, operands, transposed), ptx), ptx
    # The descriptors' bits besides the address: 128-byte swizzle (mode 1),
    # a stride of 8 rows of 128 bytes; K-major the leading offset 1, an
    # MN-major B's the distance between its blocks of 64 columns (64 k
    # rows of 128 bytes: 512 units).
    assert str((1 << 62) | (64 << 32) | (1 << 16)) in ptx
    assert (str((1 << 62) | (64 << 32) | (512 << 16)) in ptx) == transposed
    rows = ptxas_rows(r.stderr)
    assert len(rows) == 1 and rows[0][2] == "0" and rows[0][3] == "0", r.stderr
    # Each step's wgmmas stay in flight while the next step's boxes are
    # awaited: the loop's wait leaves one group (the warpgroup's one slab)
    # pending, and ptxas keeps the pipeline (no wgmma serialized, no wait
    # injected for the accumulators' registers).
    assert re.search(r"wgmma\.wait_group\.sync\.aligned 1;", ptx), ptx
    assert "ptxas:" not in r.stderr, r.stderr


def test_report_names_ptxas_performance_advisories():
    from strata.cli import performance_advisories
    out = ("ptxas info    : (C7517) warpgroup.wait is injected in around line "
           "246 by compiler to allow use of registers defined by GMMA in "
           "function 'forward_kernel'\n"
           "ptxas info    : Used 90 registers, used 1 barriers\n")
    assert performance_advisories(out) == [
        "(C7517) warpgroup.wait is injected in around line 246 by compiler "
        "to allow use of registers defined by GMMA in function "
        "'forward_kernel'"]


@pytest.mark.parametrize("chip, options, message", [
    # wgmma exists on sm_90a alone; LLVM cannot select it elsewhere (it
    # stopped the process with "Cannot select" before kernelir-check-target).
    ("sm_90", "wgmma=true", "'kernelir.wgmma' op exists on sm_90a alone; "
                            "the target is sm_90"),
    # cp.async (pipelined operand chunks) needs sm_80.
    ("sm_75", "", "'kernelir.async_copy' op needs sm_80 or newer; the "
                  "target is sm_75"),
    ("sm_70", "", "chip sm_70 is older than sm_75, the oldest target of "
                  "CUDA 13's ptxas"),
    ("volta", "", "chip 'volta' is not a target of the form sm_<N>"),
])
def test_what_the_chip_lacks_is_one_line(chip, options, message):
    r = run("compile", "-c", "torch.matmul(torch.randn(64, 64).half(), "
            "torch.randn(64, 64).half())", "--emit", "ptx", "--options",
            options, "--chip", chip)
    assert r.returncode == 1, r.stderr
    assert r.stderr.startswith("strata: error: ") and message in r.stderr, r.stderr
    assert r.stderr.strip().count("\n") == 0, r.stderr


def test_programs_on_empty_tensors_compute_what_pytorch_does(tmp_path):
    # A program whose tensors have no elements needs no kernel: its PTX is
    # empty (not an error), it runs, and its artifact has no launch.
    empty = "(lambda x: x * 2)(torch.randn(3, 0))"
    r = run("compile", "-c", empty, "--emit", "ptx", "--report")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "" and ".entry" not in r.stdout
    assert ptxas_rows(r.stderr) == [] and "forward_kernel" not in r.stderr
    assert "total: 0.00 MB" in r.stderr, r.stderr
    r = run("run", "-c", empty)
    assert r.returncode == 0 and r.stdout.splitlines()[-1] == "PASS", r.stdout
    # A sum over an empty axis is 0 everywhere: one fill kernel.
    path = tmp_path / "sum.strata"
    r = run("compile", "-c", "(lambda x: x.sum(-1))(torch.randn(3, 0))",
            "-o", str(path))
    assert r.returncode == 0, r.stderr
    import _strata_runtime as rt
    artifact = rt.Artifact.parse(path.read_bytes())
    assert len(artifact.launches) == 1
    assert artifact.buffers[artifact.outputs[0]].shape == [3]

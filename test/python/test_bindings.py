"""The Python API of the compiler core: parse, run pipelines, print, errors."""
import os

import pytest

import strata
from conftest import REPO

EXAMPLE = os.path.join(REPO, "examples", "elementwise.mlir")

PROGRAM = """
func.func @f(%a: tensor<513xf32>, %b: tensor<513xf32>) -> tensor<513xf32> {
  %e = tensorir.exp %a : tensor<513xf32>
  %r = tensorir.mul %e, %b : tensor<513xf32>
  return %r : tensor<513xf32>
}
"""


def test_parse_and_print_round_trip():
    m = strata.parse(PROGRAM)
    text = str(m)
    assert "tensorir.exp" in text and "tensorir.mul" in text
    assert str(strata.parse(text)) == text


def test_clones_lower_apart_and_count_ops():
    m = strata.parse(PROGRAM)
    copy = m.clone()
    copy.run(strata.pipeline("loop"))
    assert copy.count("loopir.kernel") == 1  # exp and mul fuse
    assert copy.count("tensorir.exp") == 0
    # The original is untouched, and outlives its clone.
    del copy
    assert m.count("tensorir.exp") == 1 and m.count("loopir.kernel") == 0
    assert str(m) == str(strata.parse(PROGRAM))


# What each stage's output must hold (for the program function {fn}), and
# the previous dialect it must not.
STAGE_MARKS = [
    ("loop", "loopir.parallel", "tensorir."),
    ("tile", "tileir.map", "loopir."),
    ("kernel", "kernelir.launch", "tileir."),
    ("gpu", "gpu.module @strata_kernels", "kernelir."),
    ("nvvm", "gpu.binary @strata_kernels", "kernelir."),
    ("cpu", "llvm.func @{fn}", "kernelir."),
    ("loop-cpu", "llvm.func @{fn}", "loopir."),
]


def test_stages_are_the_compilers():
    # One list of stages, the C++ pipelines' (Pipelines.cpp): the API's
    # stages, the CLI's --emit choices and the runner's ways to run on the
    # CPU all name them.
    from strata.cli import EMITS
    from strata.runner import VIA
    stages = strata.lowering_stages()
    assert [s[0] for s in stages] == list(strata.PIPELINES)
    assert strata.IR_STAGES == ("loop", "tile", "kernel", "gpu")
    assert EMITS == ["tensor", "loop", "tile", "kernel", "gpu", "cuda", "ptx"]
    assert {stage for stage, _ in VIA.values()} <= set(strata.PIPELINES)
    assert strata.pipeline("loop-cpu") == "strata-lower-loop-to-cpu"
    # The CPU's orders and bounds checks are the CPU pipeline's options
    # alone: a pipeline to GPU kernels does not take them.
    with pytest.raises(strata.CompilerError, match="reverse-order"):
        strata.lower(PROGRAM, "kernel", "reverse-order=true")
    assert "llvm.func @f" in str(strata.lower(PROGRAM, "cpu",
                                              "reverse-order=true"))


@pytest.mark.parametrize("stage,expected,absent", STAGE_MARKS)
def test_lower_to_each_stage(stage, expected, absent):
    text = str(strata.lower(PROGRAM, stage))
    assert expected.format(fn="f") in text
    assert absent not in text


def test_elementwise_chain_fuses_into_one_kernel():
    text = str(strata.lower(PROGRAM, "kernel"))
    assert text.count("kernelir.launch") == 1


def test_pipeline_options_reach_the_scheduler():
    text = str(strata.lower(PROGRAM, "tile", "tile-sizes=64 threads=32"))
    assert "domain [513] tile [64] threads 32" in text


def test_gpu_objects_hold_ptx_for_the_requested_chip():
    m = strata.lower(PROGRAM, "nvvm", "chip=sm_80 features=+ptx75")
    objects = m.gpu_objects()
    assert [(o.module, o.chip, o.format) for o in objects] == [
        ("strata_kernels", "sm_80", "isa")]
    ptx = objects[0].data.decode()
    assert ".target sm_80" in ptx
    assert ptx.count(".entry") == 1


def test_textual_pipelines_mix_strata_and_upstream_passes():
    m = strata.parse(PROGRAM)
    m.run("builtin.module(convert-tensorir-to-loopir, canonicalize)")
    assert "loopir.kernel" in str(m)


def test_malformed_ir_is_a_compiler_error_with_location():
    with pytest.raises(strata.CompilerError) as e:
        strata.parse("func.func @f(%a: tensor<4xf32>) {\n  %0 = tensorir.exp %a\n}",
                     "bad.mlir")
    assert "bad.mlir:" in str(e.value)
    assert "error:" in str(e.value)


def test_verifier_errors_are_reported():
    bad = """
    func.func @f(%a: tensor<15xf32>) -> tensor<8x16xf32> {
      %0 = tensorir.broadcast %a dims [1] : tensor<15xf32> -> tensor<8x16xf32>
      return %0 : tensor<8x16xf32>
    }"""
    with pytest.raises(strata.CompilerError, match="cannot broadcast"):
        strata.parse(bad)


@pytest.mark.parametrize("verify_each", [False, True])
def test_impossible_schedule_is_a_compiler_error(verify_each):
    with pytest.raises(strata.CompilerError,
                       match="cannot be split evenly among 3 threads"):
        strata.lower(PROGRAM, "tile", "tile-sizes=64 threads=3",
                     verify_each=verify_each)


@pytest.mark.parametrize("stage", ["loop", "kernel", "gpu", "nvvm"])
def test_verifying_only_the_result_lowers_to_the_same_ir(stage):
    # strata.lower verifies the result only (a fifth less time to PTX);
    # verify_each=True verifies after every pass, as strata-opt does.
    once = strata.lower(PROGRAM, stage)
    each = strata.lower(PROGRAM, stage, verify_each=True)
    if stage == "nvvm":  # The binary's properties include LLVM's time.
        assert [o.data for o in once.gpu_objects()] == [
            o.data for o in each.gpu_objects()]
    else:
        assert str(once) == str(each)


def test_unknown_pipeline_is_a_compiler_error():
    m = strata.parse(PROGRAM)
    with pytest.raises(strata.CompilerError, match="invalid pass pipeline"):
        m.run("no-such-pass")


def test_unknown_stage_is_rejected():
    with pytest.raises(ValueError, match="unknown stage"):
        strata.pipeline("ptx")


def test_bundled_example_lowers_through_every_stage():
    text = open(EXAMPLE).read()
    assert {m[0] for m in STAGE_MARKS} == set(strata.PIPELINES)
    for stage, expected, absent in STAGE_MARKS:
        lowered = str(strata.lower(text, stage, filename=EXAMPLE))
        assert expected.format(fn="program") in lowered, stage
        assert absent not in lowered, stage
        # The example's checking driver survives every stage.
        assert "@main" in lowered, stage


def test_cuda_rendering_restricts_only_noalias_buffers():
    m = strata.parse("""
    kernelir.func @copy(%in: memref<8xf32> {kernelir.noalias}, %out: memref<8xf32>)
        attributes {block = array<i64: 8, 1, 1>, grid = array<i64: 1, 1, 1>} {
      %t = kernelir.thread_id x
      %v = kernelir.load %in[%t] : memref<8xf32>
      kernelir.store %v, %out[%t] : memref<8xf32>
      kernelir.return
    }""")
    assert "copy(float *__restrict__ a0, float *a1)" in m.to_cuda()


def test_parse_rejects_what_upstream_mlir_crashes_on():
    # MLIR 22's parser segfaults on a dense array of index: strata.parse
    # raises a CompilerError at its place instead (and never looks inside
    # comments or strings).
    with pytest.raises(strata.CompilerError,
                       match=r"<string>:2:26: error: a dense array of index"):
        strata.parse('// array<index: 0>\nmodule attributes {t.x = array<index: 1>} {}')
    strata.parse('module attributes {t.s = "array<index: 1>"} {} // array<index>')


def test_program_builder_types_each_op_as_the_op_infers():
    import _strata
    b = _strata.ProgramBuilder("f")
    x = b.input([3, 5], "f32")
    w = b.input([5, 7], "f32")
    y = b.matmul(x, w)
    assert (b.shape(y), b.dtype(y)) == ([3, 7], "f32")
    total = b.reduce(_strata.ReduceKind.sum, b.exp(y), [1], keepdim=True)
    assert b.shape(total) == [3, 1]
    values, indices = b.arg_reduce(_strata.ReduceKind.max, y, 0)
    assert (b.shape(values), b.dtype(indices)) == ([7], "i64")
    norm = b.layer_norm(y, None, b.input([7], "f32"), normalized_rank=1,
                        eps=1e-5)
    flat = b.reshape(b.cast(norm, "bf16"), [21])
    assert (b.shape(flat), b.dtype(flat)) == ([21], "bf16")
    module = b.finish([flat])
    text = str(module)
    assert "tensorir.layer_norm" in text and "tensorir.arg_reduce" in text
    # The generic constructor by op name is gone.
    assert not hasattr(b, "op")


def test_program_builder_rejects_what_an_op_cannot_type():
    import _strata
    b = _strata.ProgramBuilder("f")
    x = b.input([3, 5], "f32")
    with pytest.raises(strata.CompilerError, match="matmul"):
        b.matmul(x, b.input([4, 7], "f32"))
    with pytest.raises(strata.CompilerError, match="transpose"):
        b.transpose(x, [0, 0])
    with pytest.raises(strata.CompilerError, match="negative"):
        b.reshape(x, [-1, 15])

"""Runs captured programs on the CPU and checks them against PyTorch eager."""

from dataclasses import dataclass
from typing import List

import numpy as np
import torch

import strata
from strata.frontend import capture, import_program
from strata.frontend.importer import DTYPES

# Tolerance relative to max(1, max|ref|), per dtype.
TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-8, torch.float16: 1e-2,
             torch.bfloat16: 2e-2}

# How each stage runs on the CPU: "loop" runs the fused loop kernels
# directly, "kernel" runs the final GPU kernels (their blocks and threads
# emulated as loops).
# Each way to run on the CPU: its pipeline and the options it always takes.
VIA = {"loop": ("strata-lower-loop-to-cpu", ""),
       "kernel": ("strata-lower-to-cpu", ""),
       # The race check: threads and blocks run last to first; and every
       # access is checked to stay inside its buffer.
       "kernel-reversed": ("strata-lower-to-cpu",
                           "reverse-order=true check-bounds=true"),
       # The same in a scrambled order.
       "kernel-shuffled": ("strata-lower-to-cpu", "shuffled-order=true")}


# Element types as MLIR spells them, for the results of a program.
DTYPE_OF = {name: dtype for dtype, name in DTYPES.items()}


def via_pipeline(via, options=""):
    """The pipeline string of `via`, with schedule `options` (for example
    'schedule=row threads=64') added to its own."""
    name, fixed = VIA[via]
    joined = " ".join(o for o in (fixed, options) if o)
    return "%s{%s}" % (name, joined) if joined else name


@dataclass
class OutputCheck:
    shape: tuple
    dtype: torch.dtype
    max_abs_error: float
    tolerance: float

    @property
    def passed(self):
        return self.max_abs_error <= self.tolerance


@dataclass
class Report:
    kernels: int
    outputs: List[OutputCheck]

    @property
    def passed(self):
        return all(o.passed for o in self.outputs)

    @property
    def max_abs_error(self):
        return max((o.max_abs_error for o in self.outputs), default=0.0)


def host_view(t: torch.Tensor):
    """A C-contiguous numpy view with the tensor's bytes (bf16 as int16)."""
    t = t.detach().contiguous()
    if t.dtype == torch.bfloat16:
        return t.view(torch.int16).numpy()
    return t.numpy()


def empty_like(t: torch.Tensor):
    """A fresh C-contiguous CPU tensor of t's shape and dtype (unlike
    torch.empty_like, which keeps t's strides and device)."""
    return torch.empty(t.shape, dtype=t.dtype)


def count_kernels(module):
    """Kernels of the program after strata-lower-to-loop."""
    copy = strata.parse(str(module))
    copy.run(strata.pipeline("loop"))
    return str(copy).count("loopir.kernel")


def compare(got: torch.Tensor, want: torch.Tensor) -> OutputCheck:
    """How far `got` is from `want`: for floats the largest absolute error
    against a tolerance scaled by `want`'s magnitude, for integers the
    number of elements that differ."""
    if want.is_floating_point():
        g, w = got.double(), want.double()
        # Equal values (infinities included) and NaN where the reference has
        # NaN count as exact; an unwritten (NaN-poisoned) element does not.
        same = (g == w) | (g.isnan() & w.isnan())
        diff = torch.where(same, torch.zeros_like(g), (g - w).abs())
        error = float(diff.max()) if diff.numel() else 0.0
        if diff.isnan().any():
            error = float("nan")
        finite = w[w.isfinite()]
        scale = max(1.0, float(finite.abs().max())) if finite.numel() else 1.0
        tolerance = TOLERANCE.get(want.dtype, 1e-4) * scale
    else:
        error = float((got != want).sum())
        tolerance = 0.0
    return OutputCheck(tuple(want.shape), want.dtype, error, tolerance)


def poisoned(shape, dtype):
    """A fresh tensor to write results into, NaN where it can be: an
    element the program never writes fails the comparison."""
    t = torch.empty(shape, dtype=dtype)
    if t.is_floating_point():
        t.fill_(float("nan"))
    return t


def as_list(result):
    """A program's or callable's result as a list of its outputs."""
    return list(result) if isinstance(result, (list, tuple)) else [result]


def output_specs(program, fn, inputs):
    """Whether the program returns a tuple, and a tensor of each output's
    shape and dtype (on the meta device): from the capture's graph, so that
    compiling needs no run of `fn` (PyTorch 1.13 has no CPU half matmul);
    from a run where the graph lacks them."""
    output = next(n for n in program.graph.graph.nodes if n.op == "output")
    results = output.args[0]
    is_tuple = isinstance(results, (list, tuple))
    specs = []
    for node in results if is_tuple else [results]:
        meta = getattr(node, "meta", {})
        value = meta.get("val", meta.get("tensor_meta"))
        if value is None:
            break
        specs.append(torch.empty(tuple(value.shape), dtype=value.dtype,
                                 device="meta"))
    else:
        return is_tuple, specs
    with torch.no_grad():
        expected = fn(*inputs)
    return isinstance(expected, (list, tuple)), as_list(expected)


HALVES = (torch.float16, torch.bfloat16)

# ATen contractions: on a GPU PyTorch sums their half-precision products in
# f32 (cuBLAS), on the CPU 1.13 has none for f16 and a bf16 one whose sums
# lose about ten times one rounding (k = 72: 0.7 against 0.06).
CONTRACTIONS = {"mm", "bmm", "addmm", "baddbmm", "addbmm", "matmul", "mv",
                "dot", "addmv", "convolution"}


def contracts_halves(program):
    """Whether the captured program has a contraction of f16 or bf16."""
    for node in program.graph.graph.nodes:
        packet = getattr(node.target, "overloadpacket", None)
        if node.op != "call_function" or packet is None or \
                packet.__name__ not in CONTRACTIONS:
            continue
        for arg in node.all_input_nodes:
            value = arg.meta.get("val")
            if getattr(value, "dtype", None) in HALVES:
                return True
    return False


def widened_reference(program, fn, inputs):
    """The captured program run in PyTorch eager with its f16 and bf16
    inputs and weights widened to f32, its results rounded back to the
    dtypes the capture gives them: what PyTorch computes on a GPU, whose
    contractions sum halves in f32, up to the rounding of intermediates."""
    args = program.arguments(inputs)
    with torch.no_grad():
        results = program.graph(*[x.float() if x.dtype in HALVES else x
                                  for x in args])
    _, specs = output_specs(program, fn, inputs)
    return [r.to(spec.dtype) for r, spec in zip(as_list(results), specs)]


def eager_reference(fn, inputs, program):
    """fn's outputs on `inputs` in PyTorch eager, as a list; for a program
    that contracts halves, or where this PyTorch lacks a CPU kernel for
    half-precision operands (1.13 has no half matmul), the
    widened_reference instead."""
    if contracts_halves(program):
        return widened_reference(program, fn, inputs)
    with torch.no_grad():
        try:
            result = fn(*inputs)
        except RuntimeError as e:
            if "not implemented for" not in str(e) or not any(
                    x.dtype in HALVES for x in program.arguments(inputs)):
                raise
            try:
                return widened_reference(program, fn, inputs)
            except RuntimeError:
                raise e from None
    return as_list(result)


def check(fn, inputs, via="loop", options="") -> Report:
    """Compiles fn for its inputs, runs it on the CPU through `via` (with
    schedule `options`), and compares every output with PyTorch eager on
    the same inputs (eager_reference)."""
    inputs = tuple(inputs)
    program = capture(fn, inputs)
    module = import_program(program)
    expected = eager_reference(fn, inputs, program)
    args = program.arguments(inputs)
    results = [poisoned(e.shape, e.dtype) for e in expected]
    module.run_on_cpu("forward", via_pipeline(via, options),
                      [host_view(a) for a in args],
                      [host_view(r) for r in results])
    checks = [compare(got, want) for got, want in zip(results, expected)]
    return Report(count_kernels(module), checks)


def check_kernels(fn, inputs, via="kernel", options="") -> List[OutputCheck]:
    """Runs every kernel of fn's program through `via` and compares its
    results with the same kernel's through the fused loop kernels (which
    check() compares with PyTorch), on the same inputs: one check per kernel
    result, in program order, so a wrong program names its first wrong
    kernel."""
    inputs = tuple(inputs)
    program = capture(fn, inputs)
    module = import_program(program)
    module.run(strata.pipeline("loop"))
    outputs = len(module.result_types("forward"))
    module.run("loopir-expose-kernel-results")
    args = program.arguments(inputs)
    returned = module.result_types("forward")

    def run(how, how_options):
        results = [poisoned(shape, DTYPE_OF[element])
                   for shape, element in returned]
        module.run_on_cpu("forward", via_pipeline(how, how_options),
                          [host_view(a) for a in args],
                          [host_view(r) for r in results])
        return results[outputs:]

    reference, got = run("loop", ""), run(via, options)
    return [compare(g, r) for g, r in zip(got, reference)]

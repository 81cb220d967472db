"""Runs captured programs on the CPU and checks them against a reference
that is independent of the host: PyTorch's ops in f64, each rounded to its
own dtype."""

from dataclasses import dataclass
from typing import List

import torch

import strata
from strata.frontend import capture, import_program
from strata.frontend.importer import DTYPES

# Tolerance relative to max(1, max|ref|), per dtype.
TOLERANCE = {torch.float32: 1e-4, torch.float64: 1e-8, torch.float16: 1e-2,
             torch.bfloat16: 2e-2}

# Each way to run on the CPU, the stage it lowers to (strata.PIPELINES) and
# the options it always takes:
# "loop" runs the fused loop kernels directly, "kernel" the final GPU
# kernels (their blocks and threads emulated as loops).
VIA = {"loop": ("loop-cpu", ""),
       "kernel": ("cpu", ""),
       # The race check: threads and blocks run last to first; and every
       # access is checked to stay inside its buffer.
       "kernel-reversed": ("cpu", "reverse-order=true check-bounds=true"),
       # The same in a scrambled order.
       "kernel-shuffled": ("cpu", "shuffled-order=true")}


# Element types as MLIR spells them, for the results of a program.
DTYPE_OF = {name: dtype for dtype, name in DTYPES.items()}


def via_pipeline(via, options=""):
    """The pipeline string of `via`, with schedule `options` (for example
    'schedule=row threads=64') added to its own."""
    stage, fixed = VIA[via]
    return strata.pipeline(stage, " ".join(o for o in (fixed, options) if o))


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


def count_kernels(module):
    """Kernels of the program after strata-lower-to-loop."""
    copy = module.clone()
    copy.run(strata.pipeline("loop"))
    return copy.count("loopir.kernel")


def compare(got: torch.Tensor, want: torch.Tensor,
            computed_in=None) -> OutputCheck:
    """How far `got` is from `want`: for floats the largest absolute error
    against a tolerance scaled by `want`'s magnitude (the tolerance of
    `computed_in`, the least precise dtype the value passed through, if
    given; else of its own dtype), for integers the number of elements
    that differ."""
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
        tolerance = max(TOLERANCE.get(want.dtype, 1e-4),
                        TOLERANCE.get(computed_in, 0.0)) * scale
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
    """A program's or callable's result as a list of its outputs (nested
    tuples and lists flattened, in order)."""
    if not isinstance(result, (list, tuple)):
        return [result]
    return [leaf for r in result for leaf in as_list(r)]


def output_specs(program, fn, inputs):
    """Whether the program returns a tuple, and a tensor of each output's
    shape and dtype (on the meta device): from the capture's graph, so that
    compiling needs no run of `fn` (PyTorch 1.13 has no CPU half matmul);
    from a run where the graph lacks them."""
    output = next(n for n in program.graph.graph.nodes if n.op == "output")
    results = output.args[0]
    is_tuple = isinstance(results, (list, tuple))
    if program.returns_tuple is not None:
        is_tuple = program.returns_tuple
    specs = []
    for node in as_list(results):
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


def _recorded_dtypes(node):
    """The dtype of each tensor a graph node gives, as the capture recorded
    it (a list for multi-output nodes, None where nothing is recorded)."""
    value = node.meta.get("val", node.meta.get("tensor_meta"))
    # (shape propagation's TensorMetadata is a tuple with a dtype.)
    if isinstance(value, (list, tuple)) and not hasattr(value, "dtype"):
        return [getattr(v, "dtype", None) for v in value]
    return getattr(value, "dtype", None)


def _rounded(value, dtype):
    """`value` (an op's result, from f64 operands) rounded to the op's own
    `dtype`, as f64. An f64 result is rounded in place: the graph's later
    ops may depend on its strides and aliasing (_reshape_alias,
    as_strided); a view is its base's values, which were rounded already.
    A result in another dtype (a cast, a factory with a dtype) is rounded
    by construction, and widened."""
    if isinstance(value, (list, tuple)):
        dtypes = dtype if isinstance(dtype, list) else [None] * len(value)
        return type(value)(_rounded(v, d) for v, d in zip(value, dtypes))
    if not isinstance(value, torch.Tensor) or not value.is_floating_point():
        return value
    if value.dtype != torch.float64:
        return value.double()
    if isinstance(dtype, torch.dtype) and dtype.is_floating_point and \
            dtype != torch.float64 and value._base is None:
        value.copy_(value.to(dtype))
    return value


class _RoundedInterpreter(torch.fx.Interpreter):
    """Runs a captured graph on f64 values, rounding each op's result to the
    dtype the op has in the program."""

    def run_node(self, node):
        if node.target is torch.ops.aten.nan_to_num.default:
            result = self._nan_to_num(node)
        else:
            result = super().run_node(node)
        if node.op == "call_function":
            return _rounded(result, _recorded_dtypes(node))
        return result

    def _nan_to_num(self, node):
        """nan_to_num, whose default replacements of infinities are the
        largest values of the program's dtype (not of f64)."""
        args, kwargs = self.fetch_args_kwargs_from_env(node)
        x, nan, posinf, neginf = (list(args) + [None] * 3)[:4]
        nan = kwargs.get("nan", nan)
        posinf, neginf = kwargs.get("posinf", posinf), kwargs.get("neginf", neginf)
        dtype = _recorded_dtypes(node)
        if isinstance(dtype, torch.dtype) and dtype.is_floating_point:
            limits = torch.finfo(dtype)
            posinf = limits.max if posinf is None else posinf
            neginf = limits.min if neginf is None else neginf
        return torch.nan_to_num(x, nan, posinf, neginf)


def least_precise_dtypes(program):
    """Per output of the captured program, the least precise float dtype
    among the values it is computed from (itself included): a bf16 result
    widened to f32 is only as exact as bf16."""
    def less_precise(a, b):
        return b if a is None or TOLERANCE.get(b, 0) > TOLERANCE.get(a, 0) else a

    worst = {}
    for node in program.graph.graph.nodes:  # In topological order.
        least = None
        dtypes = _recorded_dtypes(node)
        for d in dtypes if isinstance(dtypes, list) else [dtypes]:
            if isinstance(d, torch.dtype) and d.is_floating_point:
                least = less_precise(least, d)
        for parent in node.all_input_nodes:
            if worst.get(parent) is not None:
                least = less_precise(least, worst[parent])
        worst[node] = least
    output = next(n for n in program.graph.graph.nodes if n.op == "output")
    return [worst.get(n) if isinstance(n, torch.fx.Node) else None
            for n in as_list(output.args[0])]


def reference(program, inputs):
    """The captured program's outputs on `inputs`: each of its PyTorch ops
    computed in f64 and its result rounded to the op's own dtype (f32, f16,
    bf16), so every op is as exact as its dtype allows: what a GPU kernel
    that computes in f32 and rounds once approximates. Independent of the
    host's PyTorch kernels (whose f32 reductions, vectorized math and bf16
    matmul differ between builds and CPUs)."""
    args = [x.double() if x.is_floating_point() else x
            for x in program.arguments(inputs)]
    with torch.no_grad():
        results = _RoundedInterpreter(program.graph).run(*args)
    output = next(n for n in program.graph.graph.nodes if n.op == "output")
    dtypes = [_recorded_dtypes(n) if isinstance(n, torch.fx.Node) else None
              for n in as_list(output.args[0])]
    return [r.to(d) if d is not None else r
            for r, d in zip(as_list(results), dtypes)]


def _compile_and_run(fn, inputs, via, options):
    """(program, module, expected, results): fn captured and compiled for
    its inputs, its reference outputs, and its outputs run on the CPU
    through `via`."""
    inputs = tuple(inputs)
    program = capture(fn, inputs)
    module = import_program(program)
    expected = reference(program, inputs)
    args = program.arguments(inputs)
    results = [poisoned(e.shape, e.dtype) for e in expected]
    module.run_on_cpu("forward", via_pipeline(via, options),
                      [host_view(a) for a in args],
                      [host_view(r) for r in results])
    return program, module, expected, results


def run(fn, inputs, via="loop", options="") -> List[torch.Tensor]:
    """fn's outputs as Strata computes them on the CPU through `via`."""
    return _compile_and_run(fn, inputs, via, options)[3]


def check(fn, inputs, via="loop", options="") -> Report:
    """Compiles fn for its inputs, runs it on the CPU through `via` (with
    schedule `options`), and compares every output with the program's
    reference on the same inputs (PyTorch's ops in f64, see reference)."""
    program, module, expected, results = _compile_and_run(fn, inputs, via, options)
    checks = [compare(got, want, computed_in) for got, want, computed_in
              in zip(results, expected, least_precise_dtypes(program))]
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

"""Conformance on PyTorch's own test data: the sample inputs of PyTorch's
OpInfo database (`torch.testing._internal.common_methods_invocations.op_db`),
each traced, compiled by Strata, run on the CPU through the emulated GPU
kernels and compared with the captured program's reference (runner.check).

    from strata.conformance import run_op
    results = run_op(op, dtype=torch.float32, samples=2)

A sample's tensors (in its input, positional and keyword arguments) are the
program's inputs; everything else is a constant of the program. The
outcome of a sample is one of:

- "pass": Strata's results match;
- "unsupported": the front end names an operation or a use it does not
  take (a clean error, as a user would see it);
- "mismatch": Strata computed something else;
- "error": any other failure (a compiler diagnostic, an exception);
- "skip": nothing to compile (a result that is no tensor, a sample
  PyTorch itself cannot run).

`torch.testing._internal` needs `expecttest` (tools/dev.sh installs it into
build/python-deps).
"""
import traceback

import torch
from torch.utils._pytree import tree_flatten, tree_unflatten

from strata.frontend import FrontendError
from strata.runner import check

OUTCOMES = ("pass", "unsupported", "mismatch", "error", "skip")


def op_database():
    """PyTorch's OpInfo database (imports torch.testing._internal)."""
    from torch.testing._internal.common_methods_invocations import op_db
    return op_db


def variant_name(op):
    """An OpInfo's name with its variant (`max.reduction_with_dim`)."""
    return op.name + ("." + op.variant_test_name if op.variant_test_name else "")


def sample_dtype(op):
    """The dtype the suite samples `op` in: float32 where PyTorch's CPU
    kernels take it, else int64, else bool; none for neither."""
    supported = op.supported_dtypes("cpu")
    for dtype in (torch.float32, torch.int64, torch.bool):
        if dtype in supported:
            return dtype
    return None


def _program(callee, args, kwargs):
    """(fn, tensors): a function of the tensors in `args` and `kwargs` that
    calls `callee` with them, and those tensors (none: a factory's program
    has no input)."""
    leaves, spec = tree_flatten((list(args), dict(kwargs)))
    positions = [i for i, leaf in enumerate(leaves)
                 if isinstance(leaf, torch.Tensor)]
    tensors = tuple(leaves[i].detach().clone() for i in positions)

    def fn(*values):
        filled = list(leaves)
        for i, v in zip(positions, values):
            filled[i] = v
        args, kwargs = tree_unflatten(filled, spec)
        return callee(*args, **kwargs)
    return fn, tensors


def _tensor_results(value):
    leaves, _ = tree_flatten(value)
    return leaves and all(isinstance(v, torch.Tensor) for v in leaves)


def run_sample(op, sample, via="kernel"):
    """(outcome, detail) of one sample."""
    return _run_program(*_program(op.op, (sample.input,) + tuple(sample.args),
                                  sample.kwargs), via)


def _run_program(fn, tensors, via):
    """(outcome, detail) of fn on `tensors`: PyTorch's eager result against
    Strata's."""
    try:
        expected = fn(*[t.clone() for t in tensors])
    except Exception as e:  # PyTorch itself rejects the sample.
        return "skip", "PyTorch: %s" % type(e).__name__
    if not _tensor_results(expected):
        return "skip", "a result that is no tensor"
    try:
        report = check(fn, tensors, via=via)
    except FrontendError as e:
        return "unsupported", str(e).splitlines()[0]
    except Exception as e:
        lines = [l for l in traceback.format_exception_only(type(e), e) if l.strip()]
        return "error", lines[-1].strip()[:300]
    if report.passed:
        return "pass", ""
    return "mismatch", str(report).splitlines()[-1][:300]


def _seed(name, dtype):
    """Random samples, the same for a name and dtype whatever ran before
    (so a run of one op reproduces the suite's)."""
    torch.manual_seed(sum(map(ord, name + str(dtype))))


def run_op(op, dtype=None, samples=1, via="kernel"):
    """[(outcome, detail)] of the op's first `samples` sample inputs in
    `dtype` (sample_dtype's where none) on the CPU."""
    dtype = dtype or sample_dtype(op)
    if dtype is None:
        return [("skip", "no float32, int64 or bool kernels")]
    _seed(variant_name(op), dtype)
    results = []
    try:
        inputs = op.sample_inputs("cpu", dtype, requires_grad=False)
        for i, sample in enumerate(inputs):
            if i >= samples:
                break
            results.append(run_sample(op, sample, via))
    except Exception as e:  # The database has no samples for this dtype.
        results.append(("skip", "samples: %s" % type(e).__name__))
    return results


def module_database():
    """PyTorch's ModuleInfo database (imports torch.testing._internal)."""
    from torch.testing._internal.common_modules import module_db
    return module_db


def _build_module(info, sample, dtype):
    """The sample's module in eval mode, its parameters in `dtype`, the
    same for every call (seeded)."""
    torch.manual_seed(0)
    constructor = sample.constructor_input
    module = info.module_cls(*constructor.args, **constructor.kwargs)
    return module.to(dtype).eval()


def run_module_sample(info, sample, dtype=torch.float32, via="kernel"):
    """(outcome, detail) of one ModuleInput: the module in eval mode, its
    forward's tensors the program's inputs, its parameters constants."""
    try:
        module = _build_module(info, sample, dtype)
        forward = sample.forward_input
        # A lazy module takes its shapes from its first call.
        with torch.no_grad():
            module(*forward.args, **forward.kwargs)
    except Exception as e:  # PyTorch itself rejects the sample.
        return "skip", "PyTorch: %s" % type(e).__name__
    return _run_program(*_program(module, forward.args, forward.kwargs), via)


def run_module(info, dtype=torch.float32, samples=1, via="kernel"):
    """[(outcome, detail)] of the module's first `samples` inputs in eval
    mode on the CPU."""
    _seed(info.name, dtype)
    results = []
    try:
        inputs = info.module_inputs_func(info, device="cpu", dtype=dtype,
                                         requires_grad=False, training=False)
    except Exception as e:
        return [("skip", "samples: %s" % type(e).__name__)]
    for sample in inputs[:samples]:
        results.append(run_module_sample(info, sample, dtype, via))
    return results

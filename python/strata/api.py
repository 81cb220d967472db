"""`strata.compile`: a PyTorch callable compiled once for its example
inputs' shapes, callable on CUDA tensors (through the CUDA runtime) and on
CPU tensors (through the final kernels, emulated on the CPU)."""

import logging
import os

import torch

import strata
from strata import cache, debug
from strata.frontend import capture, import_program
from strata.device import BUFFER_ALIGNMENT, BindingError, Loaded, check_tensor
from strata.runner import host_view, output_specs


def _ptxas_available():
    import _strata_config as config
    return os.access(os.path.join(config.CUDA_ROOT, "bin", "ptxas"), os.X_OK)


def nvvm_options(target, ptx_version, schedule=""):
    """The options of the nvvm pipeline for `target` (sm_80, sm_90, ...),
    PTX ISA `ptx_version` (80 for 8.0) and `schedule` options. What the
    target lacks (wgmma outside sm_90a, ...) the pipeline reports
    (kernelir-check-target)."""
    return " ".join(filter(None, ["chip=%s features=+ptx%s"
                                  % (target, ptx_version), schedule]))


def build_artifact(module_text, names, target="sm_90", ptx_version="80",
                   schedule="", verify_each=False):
    """The artifact bytes of a tensorir program: its launch plan, PTX and,
    where ptxas is available, a cubin for `target` (`schedule`: pipeline
    options such as 'stages=3 tf32=true'; `verify_each`: verify after every
    pass, not only the result)."""
    # The compile cache (strata.cache) holds artifacts by their inputs;
    # verify_each asks for the compiler's checks, so it compiles anew.
    key = cache.key(module_text, "\0".join(names), target, ptx_version,
                    schedule, "cubin" if _ptxas_available() else "ptx")
    artifact = None if verify_each else cache.load(key)
    if artifact is None:
        artifact = _build_artifact(module_text, names, target, ptx_version,
                                   schedule, verify_each)
        cache.store(key, artifact)
    return artifact


def _build_artifact(module_text, names, target, ptx_version, schedule,
                    verify_each):
    options = nvvm_options(target, ptx_version, schedule)
    isa = strata.parse(module_text)
    isa.run(strata.pipeline("nvvm", options + " format=isa"),
            verify_each=verify_each)
    cubin = None
    if _ptxas_available():
        cubin = strata.parse(module_text)
        cubin.run(strata.pipeline("nvvm", options + " format=bin"),
                  verify_each=verify_each)
    return isa.artifact("forward", names, cubin)


class Compiled:
    def __init__(self, fn, example_inputs, target="sm_90", options=""):
        self.inputs = tuple(example_inputs)
        self.target = target
        self.options = options
        self.program = capture(fn, self.inputs)
        self.module = import_program(self.program)
        self.text = str(self.module)
        debug.dump_stages(self.text, getattr(fn, "__name__",
                                             type(fn).__name__), options)
        self.tuple_output, self.outputs = output_specs(self.program, fn,
                                                       self.inputs)
        self.names = self.program.argument_names()
        self._loaded = None
        self._device_weights = None

    def _arguments(self, args):
        if len(args) != len(self.inputs):
            raise BindingError("expected %d inputs, got %d"
                               % (len(self.inputs), len(args)))
        for i, (a, e) in enumerate(zip(args, self.inputs)):
            if not isinstance(a, torch.Tensor):
                raise BindingError("input %d is a %s, not a tensor"
                                   % (i, type(a).__name__))
            if tuple(a.shape) != tuple(e.shape) or a.dtype != e.dtype:
                raise BindingError("input %d: compiled for %s %s, got %s %s"
                                   % (i, tuple(e.shape), e.dtype,
                                      tuple(a.shape), a.dtype))
        return self.program.arguments(args)

    def _results(self, out, device):
        """`out` checked against the outputs (on `device`), or new tensors."""
        if out is None:
            return [torch.empty(o.shape, dtype=o.dtype, device=device)
                    for o in self.outputs]
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(out) != len(self.outputs):
            raise BindingError("the program gives %d outputs, out has %d"
                               % (len(self.outputs), len(out)))
        for i, (t, o) in enumerate(zip(out, self.outputs)):
            check_tensor(t, o.shape, o.dtype, "output %d" % i,
                         device="cuda" if device.type == "cuda" else "cpu")
        return out

    def __call__(self, *args, out=None):
        """Runs the program on `args` (all CUDA or all CPU tensors); returns
        its outputs, or writes them into `out` (contiguous tensors of the
        outputs' shapes and dtypes, on the inputs' device)."""
        full = self._arguments(args)
        if args and all(a.is_cuda for a in args):
            results = self._run_cuda(full, self._results(out, args[0].device))
        elif not any(a.is_cuda for a in args):
            results = self._results(out, torch.device("cpu"))
            self.module.run_on_cpu("forward", strata.pipeline("cpu", self.options),
                                   [host_view(a) for a in full],
                                   [host_view(r) for r in results])
        else:
            raise BindingError("inputs must all be CUDA tensors or all CPU "
                               "tensors")
        return tuple(results) if self.tuple_output else results[0]

    def _run_cuda(self, full, results):
        if self._loaded is None:
            self._loaded = Loaded(build_artifact(
                self.text, self.names, self.target, schedule=self.options))
            self._device_weights = {}
        device = results[0].device if results else full[0].device
        arguments = []
        for b, a in zip(self.program.bindings, full):
            if b[0] == "weight":  # Weights move to the device once.
                a = self._device_weights.setdefault(b[1], a.to(device).contiguous())
            a = a.contiguous()
            # Kernels access 16 bytes at a time at 16-byte boundaries; a view
            # at an odd offset into its storage gets an aligned copy.
            if a.data_ptr() % BUFFER_ALIGNMENT:
                a = a.clone()
            arguments.append(a)
        self._loaded(*arguments, out=results)
        self._keepalive = arguments  # Until the stream has used them.
        return results


def signature(args):
    """What a specialization is compiled for: each tensor argument's shape
    and dtype (other arguments: their value, which tracing bakes in)."""
    return tuple((tuple(a.shape), a.dtype) if isinstance(a, torch.Tensor)
                 else ("value", a) for a in args)


def _describe(sig):
    return ", ".join("%s %s" % (shape, str(dtype).replace("torch.", ""))
                     if shape != "value" else repr(dtype)
                     for shape, dtype in sig)


def _difference(old, new):
    """Why a call does not fit an earlier specialization: its first
    argument that differs."""
    if len(old) != len(new):
        return "%d arguments, compiled for %d" % (len(new), len(old))
    for i, (a, b) in enumerate(zip(old, new)):
        if a != b:
            return "argument %d is %s, compiled for %s" % (
                i, _describe([b]), _describe([a]))
    return "the same arguments"


class RecompileLimit(ValueError):
    """A call needs a specialization beyond the function's limit."""


class Function:
    """A compiled PyTorch callable: one specialization (a Compiled program)
    per distinct argument signature (shapes and dtypes), each compiled the
    first time a call needs it, at most `recompile_limit` in all. The
    signature is the guard: a call whose shapes or dtypes no
    specialization has compiles a new one (logged on the logger
    'strata.recompiles', as TORCH_LOGS=recompiles logs dynamo's), or
    raises RecompileLimit past the limit. `strata.compile` and the
    torch.compile backend (strata.backend) are both this."""

    def __init__(self, fn, target="sm_90", options="", recompile_limit=8,
                 name=None):
        self.fn = fn
        self.target = target
        self.options = options
        self.recompile_limit = recompile_limit
        self.name = name or getattr(fn, "__name__", type(fn).__name__)
        self.specializations = {}

    def specialize(self, args):
        """The specialization for `args`, compiled if it is new. Arguments
        that are not tensors (Python numbers, the sizes dynamo passes for
        dynamic dimensions) are constants of their specialization."""
        sig = signature(args)
        compiled = self.specializations.get(sig)
        if compiled is not None:
            return compiled
        if self.specializations:
            last = list(self.specializations)[-1]
            why = _difference(last, sig)
            if len(self.specializations) >= self.recompile_limit:
                raise RecompileLimit(
                    "%s: %s; %d specializations compiled already (the "
                    "recompile limit): %s" % (
                        self.name, why, len(self.specializations),
                        "; ".join("(%s)" % _describe(s)
                                  for s in self.specializations)))
            _RECOMPILES.info("recompiling %s: %s", self.name, why)
        tensors = [i for i, a in enumerate(args) if isinstance(a, torch.Tensor)]
        fn = self.fn
        if len(tensors) < len(args):
            fn = _with_constants(self.fn, args, tensors)
        compiled = Compiled(fn, [args[i] for i in tensors], self.target,
                            self.options)
        self.specializations[sig] = compiled
        return compiled

    @property
    def latest(self):
        """The specialization compiled last (a Compiled): its program,
        tensorir text and argument names."""
        if not self.specializations:
            raise ValueError("%s is not compiled for any inputs yet"
                             % self.name)
        return list(self.specializations.values())[-1]

    @property
    def text(self):
        return self.latest.text

    @property
    def names(self):
        return self.latest.names

    @property
    def program(self):
        return self.latest.program

    def __call__(self, *args, out=None):
        compiled = self.specialize(args)
        return compiled(*[a for a in args if isinstance(a, torch.Tensor)],
                        out=out)


def _with_constants(fn, args, tensors):
    """`fn` as a function of the tensors of `args` alone (at positions
    `tensors`), the other arguments fixed to their values."""
    def bound(*given):
        full = list(args)
        for i, t in zip(tensors, given):
            full[i] = t
        return fn(*full)
    bound.__name__ = getattr(fn, "__name__", "bound")
    return bound


_RECOMPILES = logging.getLogger("strata.recompiles")


def compile(fn, example_inputs=None, target="sm_90", options="",
            recompile_limit=8):
    """Compiles `fn` (a callable or nn.Module); returns a callable taking
    and returning tensors, compiled for each new signature (shapes and
    dtypes) of its arguments as a call needs it, up to `recompile_limit`
    signatures. With `example_inputs` it is compiled for theirs at once
    (so errors show here). `options` are the pipelines' schedule options
    ('tf32=true stages=3', 'wgmma=true' or 'wgmma=true tma=true' with
    target 'sm_90a'; docs/tile-schedules.md), for the GPU kernels and
    their CPU emulation alike."""
    function = Function(fn, target, options, recompile_limit)
    if example_inputs is not None:
        function.specialize(tuple(example_inputs))
    return function

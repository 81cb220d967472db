"""`strata.compile`: a PyTorch callable compiled once for its example
inputs' shapes, callable on CUDA tensors (through the CUDA runtime) and on
CPU tensors (through the final kernels, emulated on the CPU)."""

import os

import torch

import strata
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


def compile(fn, example_inputs, target="sm_90", options=""):
    """Compiles `fn` (a callable or nn.Module) for the shapes and dtypes of
    `example_inputs`; returns a callable taking and returning tensors.
    `options` are the pipelines' schedule options ('tf32=true stages=3',
    'wgmma=true' with target 'sm_90a'; docs/tile-schedules.md), for the GPU
    kernels and their CPU emulation alike."""
    return Compiled(fn, example_inputs, target, options)

"""`strata.compile`: a PyTorch callable compiled once for its example
inputs' shapes, callable on CUDA tensors (through the CUDA runtime) and on
CPU tensors (through the final kernels, emulated on the CPU)."""

import os
import re

import torch

import strata
from strata.frontend import capture, import_program
from strata.runner import empty_like, host_view, output_specs


def _ptxas_available():
    import _strata_config as config
    return os.access(os.path.join(config.CUDA_ROOT, "bin", "ptxas"), os.X_OK)


def nvvm_options(target, ptx_version, schedule=""):
    """The options of the nvvm pipeline for `target` (sm_80, sm_90, ...),
    PTX ISA `ptx_version` (80 for 8.0) and `schedule` options. wgmma is an
    sm_90a instruction: wgmma=true with another target is a CompilerError
    that says so, before any lowering."""
    if re.search(r"(^|\s)wgmma=(true|1)(\s|$)", schedule or "") and \
            target != "sm_90a":
        raise strata.CompilerError(
            "wgmma=true needs the target sm_90a (wgmma exists only there), "
            "got %s" % target)
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
        self._device_program = None
        self._device_weights = None

    def _arguments(self, args):
        if len(args) != len(self.inputs):
            raise TypeError("expected %d inputs, got %d" % (len(self.inputs), len(args)))
        for a, e in zip(args, self.inputs):
            if tuple(a.shape) != tuple(e.shape) or a.dtype != e.dtype:
                raise ValueError("compiled for %s %s, got %s %s"
                                 % (tuple(e.shape), e.dtype, tuple(a.shape), a.dtype))
        return self.program.arguments(args)

    def __call__(self, *args):
        full = self._arguments(args)
        if all(a.is_cuda for a in args):
            results = self._run_cuda(full, args[0].device)
        elif not any(a.is_cuda for a in args):
            results = [empty_like(o) for o in self.outputs]
            self.module.run_on_cpu("forward", strata.pipeline("cpu", self.options),
                                   [host_view(a) for a in full],
                                   [host_view(r) for r in results])
        else:
            raise ValueError("inputs must all be CUDA tensors or all CPU tensors")
        return tuple(results) if self.tuple_output else results[0]

    def _run_cuda(self, full, device):
        import _strata_runtime
        if self._device_program is None:
            artifact = build_artifact(self.text, self.names, self.target,
                                      schedule=self.options)
            self._device_program = _strata_runtime.Program(artifact)
            self._device_weights = {}
        arguments = []
        for b, a in zip(self.program.bindings, full):
            if b[0] == "weight":  # Weights move to the device once.
                a = self._device_weights.setdefault(b[1], a.to(device).contiguous())
            a = a.contiguous()
            # Kernels access 16 bytes at a time at 16-byte boundaries; a view
            # at an odd offset into its storage gets an aligned copy.
            if a.data_ptr() % VECTOR_ALIGNMENT:
                a = a.clone()
            arguments.append(a)
        results = [torch.empty(o.shape, dtype=o.dtype, device=device)
                   for o in self.outputs]
        stream = torch.cuda.current_stream(device).cuda_stream
        self._device_program.run([a.data_ptr() for a in arguments],
                                 [r.data_ptr() for r in results], stream)
        self._keepalive = arguments  # Until the stream has used them.
        return results


# The alignment vector accesses claim (kernelir vectors of up to 128 bits).
VECTOR_ALIGNMENT = 16


def compile(fn, example_inputs, target="sm_90", options=""):
    """Compiles `fn` (a callable or nn.Module) for the shapes and dtypes of
    `example_inputs`; returns a callable taking and returning tensors.
    `options` are the pipelines' schedule options ('tf32=true stages=3',
    'wgmma=true' with target 'sm_90a'; docs/tile-schedules.md), for the GPU
    kernels and their CPU emulation alike."""
    return Compiled(fn, example_inputs, target, options)

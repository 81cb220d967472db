"""Runs compiled artifacts on CUDA tensors through Strata's runtime.

Every tensor is checked against the launch plan before anything reaches
the GPU, and a mismatch is a BindingError naming the argument (its input
or weight name) and what is wrong: its type, shape, dtype, layout,
alignment or device. The runtime itself takes raw device pointers and can
check none of that. The checks need no GPU, so they are tested anywhere.
"""

import torch

from strata.frontend.importer import DTYPES

# The runtime's buffer alignment (kernelir vector accesses of up to 16
# bytes; strata::runtime::kBufferAlignment).
BUFFER_ALIGNMENT = 16

# Artifact dtypes as torch dtypes.
TORCH_DTYPE = {name: dtype for dtype, name in DTYPES.items()}


class BindingError(ValueError):
    """A tensor that does not fit the buffer it is bound to."""


def check_tensor(tensor, shape, dtype, what, device="cuda"):
    """Raises BindingError unless `tensor` can be bound as it is to a
    buffer of `shape` and `dtype` (a torch dtype): contiguous, aligned, and
    on `device` ("cuda": the first GPU, which the runtime uses; "cpu"; or
    None: anywhere)."""
    if not isinstance(tensor, torch.Tensor):
        raise BindingError("%s is a %s, not a tensor"
                           % (what, type(tensor).__name__))
    if tuple(tensor.shape) != tuple(shape):
        raise BindingError("%s has shape %s, the program takes %s"
                           % (what, tuple(tensor.shape), tuple(shape)))
    if tensor.dtype != dtype:
        raise BindingError("%s is %s, the program takes %s"
                           % (what, tensor.dtype, dtype))
    if not tensor.is_contiguous():
        raise BindingError("%s is not contiguous (strides %s): the program "
                           "takes row-major tensors" % (what, tensor.stride()))
    if tensor.numel() and tensor.data_ptr() % BUFFER_ALIGNMENT:
        raise BindingError("%s starts at an address that is not %d-byte "
                           "aligned (a view into its storage?)"
                           % (what, BUFFER_ALIGNMENT))
    if device == "cuda" and (tensor.device.type != "cuda" or
                             tensor.device.index not in (None, 0)):
        raise BindingError("%s is on %s; the program runs on cuda:0"
                           % (what, tensor.device))
    if device == "cpu" and tensor.device.type != "cpu":
        raise BindingError("%s is on %s; the program runs on the CPU here"
                           % (what, tensor.device))


def _name(buffer, position):
    return buffer.name or "argument %d" % position


class Loaded:
    """An artifact (its bytes) and, once first called, its program on the
    GPU. Called with one tensor per argument buffer (inputs, then weights,
    in the plan's order); returns new output tensors, or writes `out`."""

    def __init__(self, data):
        import _strata_runtime
        self.data = bytes(data)
        self.artifact = _strata_runtime.Artifact.parse(self.data)
        self.arguments = [b for b in self.artifact.buffers if b.kind == "argument"]
        self.outputs = [self.artifact.buffers[i] for i in self.artifact.outputs]
        self._program = None

    @property
    def argument_names(self):
        return [_name(b, i) for i, b in enumerate(self.arguments)]

    def bind(self, arguments, out=None):
        """Checks `arguments` (and `out`) against the plan; returns the
        output tensors (`out`, or new ones on the first argument's
        device)."""
        if len(arguments) != len(self.arguments):
            raise BindingError("the program takes %d arguments (%s), got %d"
                               % (len(self.arguments),
                                  ", ".join(self.argument_names),
                                  len(arguments)))
        # What each tensor is first, then where (all on the GPU).
        for device in (None, "cuda"):
            for i, (t, b) in enumerate(zip(arguments, self.arguments)):
                check_tensor(t, b.shape, TORCH_DTYPE[b.dtype],
                             "argument '%s'" % _name(b, i), device)
        if out is None:
            device = arguments[0].device if arguments else torch.device("cuda")
            return [torch.empty(tuple(b.shape), dtype=TORCH_DTYPE[b.dtype],
                                device=device) for b in self.outputs]
        out = list(out) if isinstance(out, (list, tuple)) else [out]
        if len(out) != len(self.outputs):
            raise BindingError("the program gives %d outputs, out has %d"
                               % (len(self.outputs), len(out)))
        for device in (None, "cuda"):
            for i, (t, b) in enumerate(zip(out, self.outputs)):
                check_tensor(t, b.shape, TORCH_DTYPE[b.dtype], "output %d" % i,
                             device)
        return out

    def __call__(self, *arguments, out=None, stream=None):
        outputs = self.bind(arguments, out)
        if self._program is None:
            import _strata_runtime
            self._program = _strata_runtime.Program(self.data)
        if stream is None:
            stream = torch.cuda.current_stream(outputs[0].device if outputs
                                               else None).cuda_stream
        self._program.run([t.data_ptr() for t in arguments],
                          [t.data_ptr() for t in outputs], stream)
        return outputs


def load(source):
    """An artifact from a path or its bytes, ready to call on CUDA tensors."""
    if isinstance(source, (bytes, bytearray)):
        return Loaded(source)
    with open(source, "rb") as f:
        return Loaded(f.read())

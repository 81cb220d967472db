"""Strata as a torch.compile backend (torch 2.x):

    import strata
    compiled = torch.compile(model, backend="strata")   # or strata.backend

Dynamo hands each graph it captures (an FX graph of torch-level calls,
between graph breaks) to `backend`, which returns what runs it: a
strata.api.Function over the graph, so torch.compile and strata.compile
share one implementation. Each specialization traces the graph to aten ops
with make_fx (through PyTorch's decompositions, as strata.compile does),
keeping the user's source lines that dynamo recorded, and compiles it; CPU
tensors run the emulated kernels, CUDA tensors the runtime.

Shapes: dynamo guards on the shapes it specialized; a graph it marks
dynamic (after a recompile, or with dynamic=True / mark_dynamic) passes its
sizes as integer arguments, and Strata compiles a specialization per
distinct shape, up to the recompile limit (strata.api.Function); past it,
as dynamo past its own cache limit, new shapes run eagerly, with one
warning on the logger 'strata.recompiles'.

Options: torch.compile(model, backend="strata",
options={"target": "sm_90", "schedule": "tf32=true", "recompile_limit": 8}).

Strata compiles inference: the results carry no autograd history.
"""

import logging
import warnings

import torch

from strata.api import Function, RecompileLimit

_LOG = logging.getLogger("strata.recompiles")

_OPTIONS = ("target", "schedule", "recompile_limit")


class _Graph:
    """Calls dynamo's graph through an FX interpreter, which makes each node
    the current one while make_fx traces it, so the traced aten nodes keep
    the stack trace (the user's line) dynamo recorded for it."""

    def __init__(self, gm):
        self.gm = gm
        self.__name__ = "torch.compile graph"

    def __call__(self, *args):
        with torch.fx.traceback.preserve_node_meta():
            return torch.fx.Interpreter(self.gm).run(*args)


def backend(gm, example_inputs, options=None, **unused):
    """Compiles dynamo's graph `gm` for `example_inputs`; returns the
    callable dynamo runs in its place."""
    options = dict(options or {})
    unknown = sorted(set(options) - set(_OPTIONS))
    if unknown:
        raise ValueError("unknown Strata option(s) %s (expected %s)"
                         % (", ".join(unknown), ", ".join(_OPTIONS)))
    function = Function(_Graph(gm), options.get("target", "sm_90"),
                        options.get("schedule", ""),
                        options.get("recompile_limit", 8),
                        name="torch.compile graph")
    # Compile now for the example inputs, so that an unsupported operation
    # fails at compile time, as dynamo reports backend errors.
    # Outside dynamo's tracing context, whose fake mode (with symbolic
    # sizes) make_fx would take.
    with torch._guards.tracing(None):
        function.specialize(tuple(_real(x) for x in example_inputs))

    def run(*args):
        if torch.is_grad_enabled() and any(
                isinstance(a, torch.Tensor) and a.requires_grad for a in args):
            warnings.warn("Strata compiles inference: the results of a "
                          "torch.compile(backend='strata') graph carry no "
                          "autograd history (call it under torch.no_grad())",
                          stacklevel=2)
        try:
            result = function(*args)
        except RecompileLimit as limit:
            # As dynamo does at its own cache limit: the program goes on,
            # the shapes past the limit run eagerly (a decoding loop gives
            # the graph a new key length at every token).
            if not eager:
                _LOG.warning("%s; running the graph's new shapes eagerly "
                             "(Strata compiles a specialization per shape: "
                             "raise the limit with options={'recompile_limit"
                             "': N})", limit)
            eager.append(limit)
            return gm(*args)
        return result if isinstance(result, tuple) else (result,)

    eager = []  # The calls past the recompile limit.
    return run


def _real(x):
    """An example input as a real value: dynamo passes tensors (possibly
    fake) and Python or symbolic integers."""
    if isinstance(x, torch.SymInt):
        return int(x.node.hint) if x.node.hint is not None else int(x)
    if isinstance(x, torch.Tensor) and _is_fake(x):
        return torch.empty_strided(tuple(int(s) for s in x.shape),
                                   tuple(int(s) for s in x.stride()),
                                   dtype=x.dtype).normal_()
    return x


def _is_fake(x):
    from torch._subclasses.fake_tensor import FakeTensor
    return isinstance(x, FakeTensor)


def register():
    """Registers the backend with dynamo under the name "strata" (torch 2.x;
    nothing on a torch without dynamo)."""
    try:
        from torch._dynamo import list_backends, register_backend
    except ImportError:
        return
    if "strata" not in list_backends(exclude_tags=()):
        register_backend(backend, name="strata")

"""Captures a PyTorch callable as an aten-level FX graph with concrete shapes.

torch >= 2.1 uses torch.export; older versions (Debian's 1.13) use make_fx.
Parameters and buffers become graph inputs of the program ("weights are
inputs"); the user's inputs come first.
"""

import contextlib
import inspect
import io
import logging
import os
import traceback
from dataclasses import dataclass, field
from typing import List, Optional, Tuple

import torch
from torch.fx.passes.shape_prop import ShapeProp

from .decompositions import WithoutFastPaths, decomposition_table
from .meta_kernels import register_missing_meta_kernels

TORCH_DIR = os.path.dirname(torch.__file__)
_LOG = logging.getLogger("strata.capture")
# The file names of code Python or PyTorch generate (exec'd strings, FX's
# graph modules): never the user's line.
_GENERATED_CODE = ("<string>", "<eval_with_key", "<frozen ")
STRATA_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class FrontendError(Exception):
    """A program the front end cannot take: one line that says what and
    where (the user's source line)."""


class CaptureError(FrontendError):
    """PyTorch could not trace the program."""


# What PyTorch's tracers say when a tensor's value decides something
# tracing needs to know (a shape, a Python number, a branch).
_DATA_DEPENDENT = ("get value out of a tracing tensor", "data-dependent",
                   "DataDependentOutputException", "_local_scalar_dense",
                   "data dependent")


@dataclass
class Program:
    """An aten graph plus what its placeholders are bound to."""
    graph: torch.fx.GraphModule
    # Per placeholder, in order: ("input", index) or ("weight", name).
    bindings: List[Tuple[str, object]]
    # The tensors of the weights, by name.
    weights: dict = field(default_factory=dict)
    # True when node stack traces list the innermost frame first (make_fx in
    # torch 1.x), False for the usual outermost-first order.
    innermost_first: bool = True
    # How it was captured: "export" (torch.export, torch 2.x modules) or
    # "make_fx".
    method: str = "make_fx"
    # Whether the callable returns a tuple (or list) of results rather than
    # one tensor; None: as the graph's output node says (make_fx keeps the
    # callable's structure, torch.export always returns a tuple).
    returns_tuple: Optional[bool] = None

    def arguments(self, inputs):
        """The tensors the placeholders take, in order: `inputs` and the
        weights."""
        return [inputs[b[1]] if b[0] == "input" else self.weights[b[1]]
                for b in self.bindings]

    def argument_names(self):
        """The placeholders' names in a build artifact: inputN, or the
        weight's name."""
        return [("input%d" % b[1]) if b[0] == "input" else b[1]
                for b in self.bindings]


def _torch_major():
    return int(torch.__version__.split(".")[0])


def _has_export():
    version = tuple(int(p) for p in torch.__version__.split("+")[0].split(".")[:2])
    return version >= (2, 1) and hasattr(torch, "export")


def capture(fn, inputs) -> Program:
    inputs = tuple(inputs)
    for i, x in enumerate(inputs):
        if not isinstance(x, torch.Tensor):
            raise TypeError("input %d is a %s, not a tensor" % (i, type(x).__name__))
    if _has_export() and isinstance(fn, torch.nn.Module):
        said = io.StringIO()
        try:
            with _quiet_export(said):
                return _capture_export(fn, inputs)
        except Exception as e:  # make_fx takes more code (data-dependent
            # Python, say); what it cannot take is the user's error.
            _LOG.debug("torch.export failed (%s: %s); capturing with make_fx",
                       type(e).__name__, str(e).splitlines()[:1])
            _LOG.debug("torch.export said: %s", said.getvalue())
    return _capture_make_fx(fn, inputs)


@contextlib.contextmanager
def _quiet_export(said):
    """torch.export without what it writes when it fails: a failed export
    prints its partial graph (hundreds of lines for a model) on stderr and
    logs an error, though make_fx then captures the program or Strata
    raises one clear error of its own. Both go to `said` instead."""
    loggers = [logging.getLogger(name) for name in
               ("torch.export", "torch._export", "torch._dynamo")]
    handler = logging.StreamHandler(said)
    saved = [(log.propagate, list(log.handlers)) for log in loggers]
    for log in loggers:
        log.propagate = False
        log.handlers = [handler]
    try:
        with contextlib.redirect_stderr(said):
            yield
    finally:
        for log, (propagate, handlers) in zip(loggers, saved):
            log.propagate = propagate
            log.handlers = handlers


def _returns_view(target):
    """Whether an op's result is a view of an argument (an in-place op's
    result, `self` itself, is not)."""
    schema = getattr(target, "_schema", None)
    alias = schema.returns[0].alias_info if schema and schema.returns else None
    return alias is not None and not alias.is_write


def functional_variant(op):
    """The name of the functional op of an in-place op overload
    (`aten.masked_fill_.Scalar` -> `aten.masked_fill.Scalar`), none for
    others."""
    schema = getattr(op, "_schema", None)
    if schema is None or not schema.arguments:
        return None
    written = schema.arguments[0].alias_info
    namespace, _, rest = str(op).partition(".")
    name, _, overload = rest.partition(".")
    if not (written and written.is_write and name.endswith("_")):
        return None
    return "%s.%s.%s" % (namespace, name[:-1], overload)


def in_place_target_problem(node):
    """Why the tensor an in-place call writes cannot be rebound to the
    functional result (none: it can). Rebinding is exact when nothing else
    sees the write: the tensor is computed by the program (not an input),
    is no view of another, and no view of it is taken."""
    target = node.args[0] if node.args else None
    if not isinstance(target, torch.fx.Node):
        return "it writes no tensor of the program"
    if target.op == "placeholder":
        return "it writes an input of the program (or a parameter)"
    if _returns_view(target.target):
        return "it writes a view of another tensor"
    if any(user is not node and _returns_view(user.target)
           for user in target.users):
        return "a view of the tensor it writes is taken"
    return None


def _writes_a_view(gm):
    """Whether `gm` writes in place where the importer cannot rebind the
    written tensor to a functional result, but functionalization can: a
    view's write (slice assignment, `x[0] += 1`) or a write of a tensor a
    view is taken of. A write of an input stays one either way."""
    for node in gm.graph.nodes:
        if node.op != "call_function" or functional_variant(node.target) is None:
            continue
        target = node.args[0]
        if (isinstance(target, torch.fx.Node) and target.op != "placeholder"
                and in_place_target_problem(node)):
            return True
    return False


def _functionalize(fn):
    """`fn` with its mutations and views replaced by functional ops (a
    slice assignment becomes `slice_scatter`), as torch.export's graphs
    are."""
    try:
        from torch.func import functionalize
    except ImportError:  # torch 1.13
        from functorch.experimental import functionalize
    return functionalize(fn, remove="mutations_and_views")


def _trace(fn, inputs, mode):
    from torch.fx.experimental import proxy_tensor
    tracer_class = proxy_tensor.PythonKeyTracer
    saved = getattr(tracer_class, "record_stack_traces", False)
    tracer_class.record_stack_traces = True
    # torch 2.x takes the flag as an argument (its tracer's own attribute
    # overrides the class's), and then keeps only the frames from the first
    # `forward` on: none for a plain function. Every frame is kept instead
    # (user_source_line picks the user's).
    extra = ({"record_stack_traces": True} if "record_stack_traces" in
             inspect.signature(proxy_tensor.make_fx).parameters else {})
    saved_filter = tracer_class.__dict__.get("_filter_traceback_frames")
    if hasattr(tracer_class, "_filter_traceback_frames"):
        tracer_class._filter_traceback_frames = lambda self, frames: frames
    register_missing_meta_kernels()

    def trace(f):
        with torch.no_grad(), WithoutFastPaths(), _tracing_context():
            return proxy_tensor.make_fx(
                f, decomposition_table=decomposition_table(),
                tracing_mode=mode, **extra)(*inputs)
    if not isinstance(fn, torch.nn.Module):
        # make_fx makes a placeholder of every positional parameter, so a
        # function with defaults (F.silu's `inplace`) would want them too.
        fn = _called_with_inputs(fn)
    try:
        gm = trace(fn)
        # A traced program that writes views is traced again functionalized
        # (only then: every other program keeps the graph it always had).
        if _writes_a_view(gm):
            gm = trace(_functionalize(fn))
        return gm
    finally:
        tracer_class.record_stack_traces = saved
        if saved_filter is not None:
            tracer_class._filter_traceback_frames = saved_filter
        elif "_filter_traceback_frames" in tracer_class.__dict__:
            del tracer_class._filter_traceback_frames


def _called_with_inputs(fn):
    """`fn` called with the inputs alone, its other parameters defaulted."""
    def call(*inputs):
        return fn(*inputs)
    call.__name__ = getattr(fn, "__name__", "program")
    return call


@contextlib.contextmanager
def _tracing_context():
    """What every trace runs under. Torch's own logging of a failed trace
    (torch 2.x's fake tensors log the exception they raise) stays off the
    user's terminal: the capture reports the failure itself, in one line.
    And oneDNN is off: torch 2.x's recurrent layers (and their
    decompositions) pick its CPU kernels (aten.mkldnn_rnn_layer) when it
    is on, not the matrix products a GPU compiler takes. And
    `torch.compiler.is_compiling()` is true, as under torch.compile and
    torch.export: libraries ask it before shortcuts that branch on values
    (transformers skips an all-ones attention mask that way)."""
    logging.disable(logging.ERROR)
    # (torch.backends.mkldnn.flags warns about TF32 on torch 2.x.)
    mkldnn = torch._C._get_mkldnn_enabled()
    torch._C._set_mkldnn_enabled(False)
    compiler = getattr(torch, "compiler", None)
    compiling = getattr(compiler, "_is_compiling_flag", None)
    if compiling is not None:
        compiler._is_compiling_flag = True
    try:
        yield
    finally:
        if compiling is not None:
            compiler._is_compiling_flag = compiling
        torch._C._set_mkldnn_enabled(mkldnn)
        logging.disable(logging.NOTSET)


def _user_frame(tb):
    """The innermost (file, line) of a traceback outside torch and Strata."""
    frames = [(f.filename, f.lineno) for f in traceback.extract_tb(tb)]
    user = [f for f in frames
            if not os.path.abspath(f[0]).startswith((TORCH_DIR, STRATA_DIR))]
    return user[-1] if user else None


def _capture_error(error):
    """A CaptureError for an exception PyTorch raised while tracing: its
    first line, what kind of problem it is, and the user's line."""
    message = str(error).strip().splitlines()
    first = message[0] if message else type(error).__name__
    where = _user_frame(error.__traceback__)
    at = " at %s:%d" % where if where else ""
    text = str(error)
    if any(marker in text for marker in _DATA_DEPENDENT):
        return CaptureError(
            "the program is data-dependent%s: a tensor's value decides a "
            "shape, a Python number or a branch (torch.narrow with a tensor "
            "start, .item(), `if` on a tensor, ...); Strata compiles "
            "programs that the input shapes alone decide" % at)
    return CaptureError("PyTorch cannot trace the program%s: %s: %s"
                        % (at, type(error).__name__, first))


def _functional_call():
    func = getattr(torch, "func", None)
    if func is not None and hasattr(func, "functional_call"):
        return func.functional_call
    from torch.nn.utils import stateless
    return stateless.functional_call


def _module_state(module):
    """A module's parameters and buffers, each once (a tied weight, such as
    GPT-2's language-model head sharing the token embedding, under its
    first name), and a name for every attribute that holds each. A
    submodule registered under several names (Marian's token embedding is
    the model's, the encoder's and the decoder's) is one attribute: named
    once, since the functional call swaps names in turn and restores them
    in turn, and a second name of the attribute would save the first's
    stand-in as the original, leaving a fake tensor in the user's model."""
    state, aliases, index, attributes = [], {}, {}, set()
    for prefix, sub in module.named_modules(remove_duplicate=False):
        for kind in (sub._parameters, sub._buffers):
            for name, t in kind.items():
                if t is None or (id(sub), name) in attributes:
                    continue
                attributes.add((id(sub), name))
                full = prefix + "." + name if prefix else name
                if id(t) not in index:
                    index[id(t)] = len(state)
                    state.append((full, t))
                aliases[full] = index[id(t)]
    return state, aliases


def _trace_module_state_as_inputs(module, inputs):
    """Traces `module` with fake tensors for its inputs and for its
    parameters and buffers, passed as inputs after the user's (make_fx
    turns only the arguments into fake tensors, and a module's own real
    parameters stop a fake trace). Capturing then costs what the graph
    costs, not what running the model at its real size costs."""
    state, aliases = _module_state(module)
    call = _functional_call()
    # Every attribute is named, tied ones with one value: torch 2.x's
    # tying would name a submodule's attribute again under each of its
    # names (see _module_state).
    untied = ({"tie_weights": False}
              if "tie_weights" in inspect.signature(call).parameters else {})

    def functional(*args):
        weights = args[len(inputs):]
        return call(module, {name: weights[i] for name, i in aliases.items()},
                    args[:len(inputs)], **untied)

    gm = _trace(functional, tuple(inputs) + tuple(t for _, t in state), "fake")
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    if len(placeholders) != len(inputs) + len(state):
        raise RuntimeError("the fake trace lost an input")
    bindings = [("input", i) for i in range(len(inputs))]
    weights = {}
    for node, (name, tensor) in zip(placeholders[len(inputs):], state):
        weights[name] = tensor.detach()
        bindings.append(("weight", name))
    return gm, bindings, weights


def _capture_make_fx(fn, inputs) -> Program:
    # Fake tensors give every value's shape and dtype without computing
    # anything (fast on large inputs, and fine for ops the CPU lacks, like
    # half-precision matmul); real tracing plus shape propagation is the
    # fallback. What the real trace raises is the user's error.
    if isinstance(fn, torch.nn.Module):
        try:
            gm, bindings, weights = _trace_module_state_as_inputs(fn, inputs)
            if not any(n.op == "get_attr" for n in gm.graph.nodes):
                return Program(gm, bindings, weights,
                               innermost_first=_torch_major() < 2)
        except Exception:
            pass
    try:
        gm, fake = _trace(fn, inputs, "fake"), True
    except Exception:
        try:
            gm, fake = _trace(fn, inputs, "real"), False
        except Exception as e:
            raise _capture_error(e) from e
    # Parameters appear as get_attr nodes; turn them into placeholders.
    named = {}
    if isinstance(fn, torch.nn.Module):
        for name, t in list(fn.named_parameters()) + list(fn.named_buffers()):
            named[id(t)] = name
    weights = {}
    bindings = [("input", i) for i in range(len(inputs))]
    graph = gm.graph
    # Weights go after the inputs (at the top of a program without any).
    inputs_placed = [n for n in graph.nodes if n.op == "placeholder"]
    last_placeholder = inputs_placed[-1] if inputs_placed else None
    placeholders = {}  # id(tensor) -> its placeholder (tied weights: one)
    for node in list(graph.nodes):
        if node.op != "get_attr":
            continue
        tensor = getattr(gm, node.target)
        if id(tensor) in placeholders:
            node.replace_all_uses_with(placeholders[id(tensor)])
            graph.erase_node(node)
            continue
        name = named.get(id(tensor), node.target)
        where = (graph.inserting_after(last_placeholder) if last_placeholder
                 else graph.inserting_before(next(iter(graph.nodes))))
        with where:
            ph = graph.placeholder("w_" + name.replace(".", "_"))
        ph.meta = dict(node.meta)
        ph.meta["val"] = tensor
        node.replace_all_uses_with(ph)
        graph.erase_node(node)
        placeholders[id(tensor)] = ph
        last_placeholder = ph
        weights[name] = tensor.detach()
        bindings.append(("weight", name))
    gm.recompile()
    if not fake:
        args = list(inputs) + [weights[b[1]] for b in bindings if b[0] == "weight"]
        try:
            ShapeProp(gm).propagate(*args)
        except Exception as e:
            raise _capture_error(e) from e
    return Program(gm, bindings, weights, innermost_first=_torch_major() < 2)


def _capture_export(module, inputs) -> Program:
    with WithoutFastPaths(), _tracing_context():
        ep = torch.export.export(module, inputs)
        ep = ep.run_decompositions(decomposition_table())
    gm = ep.graph_module
    _drop_runtime_asserts(gm.graph)
    sig = ep.graph_signature
    state = dict(ep.state_dict)
    state.update(getattr(ep, "constants", {}) or {})
    param_names = dict(sig.inputs_to_parameters)
    param_names.update(sig.inputs_to_buffers)
    param_names.update(getattr(sig, "inputs_to_lifted_tensor_constants", {}))
    # The user's inputs first, as make_fx gives them (export lifts the
    # weights in front): a program's arguments keep one order on every
    # torch version.
    placeholders = [n for n in gm.graph.nodes if n.op == "placeholder"]
    user = [n for n in placeholders if n.name not in param_names]
    lifted = [n for n in placeholders if n.name in param_names]
    for ph in user if lifted else []:
        lifted[0].prepend(ph)
    gm.recompile()
    bindings = [("input", i) for i in range(len(user))]
    weights = {}
    for ph in lifted:
        name = param_names[ph.name]
        weights[name] = state[name].detach()
        bindings.append(("weight", name))
    # Every node's value is a fake tensor already (meta["val"]): nothing runs.
    return Program(gm, bindings, weights, innermost_first=False,
                   method="export",
                   returns_tuple=not ep.call_spec.out_spec.is_leaf())


def _drop_runtime_asserts(graph):
    """Removes the checks torch.export records (aten._assert_tensor_metadata
    after a .to(), _assert_scalar, ...): they compute nothing a program
    returns, they hold for the traced shapes and dtypes by construction,
    and the reference run in f64 (runner.check) would fail them."""
    for node in list(graph.nodes):
        name = getattr(node.target, "__name__", "")
        if (node.op == "call_function" and not node.users and
                name.startswith(("_assert", "sym_constrain_range"))):
            graph.erase_node(node)


def is_live(node) -> bool:
    """Whether the program's result depends on `node` (a chain of views
    of an unused result is not: the importer skips those as dead)."""
    graph = node.graph
    cached = getattr(graph, "_strata_live", None)
    if cached is None or cached[0] != len(graph.nodes):
        # One pass in reverse program order: users come after their
        # operands, so each node's users are decided before it is.
        live = set()
        for n in reversed(graph.nodes):
            if any(u.op == "output" or u in live for u in n.users):
                live.add(n)
        cached = (len(graph.nodes), live)
        graph._strata_live = cached
    return node in cached[1]


def user_source_line(node, innermost_first=True) -> Optional[Tuple[str, int]]:
    """The (file, line) of user code that produced `node`, outside torch."""
    trace = node.meta.get("stack_trace") or getattr(node, "stack_trace", None)
    if not trace:
        return None
    frames = []
    for line in trace.splitlines():
        line = line.strip()
        if line.startswith('File "'):
            try:
                path = line.split('"')[1]
                number = int(line.split(", line ")[1].split(",")[0])
            except (IndexError, ValueError):
                continue
            frames.append((path, number))
    if not innermost_first:
        frames.reverse()
    user = [f for f in frames
            if not os.path.abspath(f[0]).startswith((TORCH_DIR, STRATA_DIR))
            and not f[0].startswith(_GENERATED_CODE)]
    if user:
        return user[0]
    return frames[0] if frames else None

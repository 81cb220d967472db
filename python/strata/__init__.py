"""Strata: an MLIR-based GPU compiler for machine-learning programs.

The compiler core is the C++ extension `_strata`; this package is its Python
face. Typical use::

    import strata
    m = strata.parse(open("examples/elementwise.mlir").read())
    m.run("strata-lower-to-loop")
    print(m)
"""

import sys

try:
    from _strata import CompilerError, GpuObject, Module, lowering_stages
except ImportError:  # A runtime-only build (a GPU host): no compiler here.
    CompilerError = RuntimeError
    GpuObject = Module = None

    def lowering_stages():
        return []

# The lowering pipelines, by the stage they end in, in lowering order, as
# the compiler registers them (Pipelines.cpp, getLoweringStages); and the
# stages whose result is IR to read (the CLI's --emit between tensor and
# cuda).
_STAGES = lowering_stages()
PIPELINES = {name: pipeline for name, pipeline, _ in _STAGES}
IR_STAGES = tuple(name for name, _, readable in _STAGES if readable)


def parse(text, filename="<string>"):
    """Parses MLIR text into a Module (raises CompilerError)."""
    return Module.parse(text, filename)


def pipeline(stage, options=""):
    """The pipeline string that lowers a tensorir program to `stage`."""
    if stage not in PIPELINES:
        raise ValueError("unknown stage '%s' (expected one of: %s)"
                         % (stage, ", ".join(PIPELINES)))
    name = PIPELINES[stage]
    return "%s{%s}" % (name, options) if options else name


def lower(text, stage, options="", filename="<string>", verify_each=False):
    """Parses a tensorir program and lowers it to `stage`; returns the Module.

    The result is verified; `verify_each` verifies the IR after every pass
    as well (as strata-opt does), to find which pass broke it."""
    module = parse(text, filename)
    module.run(pipeline(stage, options), verify_each=verify_each)
    return module


def compile(fn, example_inputs=None, target="sm_90", options="",
            recompile_limit=8):
    """Compiles a PyTorch callable (for its example inputs, if given, and
    for each new shape it is called with), with schedule `options`; see
    strata.api."""
    from strata.api import compile as compile_
    return compile_(fn, example_inputs, target, options, recompile_limit)


def backend(gm, example_inputs, **kwargs):
    """The torch.compile backend: torch.compile(model, backend=strata.backend)
    (or backend="strata" once strata is imported); see strata.backend."""
    from strata.dynamo import backend as backend_
    return backend_(gm, example_inputs, **kwargs)


if "torch" in sys.modules:  # torch.compile(..., backend="strata")
    from strata.dynamo import register as _register
    _register()


__all__ = ["CompilerError", "GpuObject", "IR_STAGES", "Module", "PIPELINES",
           "backend", "compile", "lower", "lowering_stages", "parse",
           "pipeline"]

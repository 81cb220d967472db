"""Makes the Strata package and its extension importable from a build tree.

STRATA_BUILD_DIR selects the build (default: build/ at the repository root).
"""
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = os.environ.get("STRATA_BUILD_DIR", os.path.join(REPO, "build"))

# The compile cache (strata.cache) of this test session, not the user's:
# a fresh one per run, inherited by the command lines the tests start.
if "STRATA_CACHE_DIR" not in os.environ:
    import atexit
    import shutil
    import tempfile
    os.environ["STRATA_CACHE_DIR"] = tempfile.mkdtemp(prefix="strata-cache-")
    atexit.register(shutil.rmtree, os.environ["STRATA_CACHE_DIR"], True)

# build/python-deps: what tools/dev.sh installs from PyPI (expecttest).
sys.path[:0] = [os.path.join(REPO, "python"), os.path.join(BUILD, "python"),
                os.path.join(REPO, "build", "python-deps")]


def excess_over_one_rounding(out, a, b):
    """How far `out` (a product of halves or f32, batched or not) lies
    beyond one rounding to its dtype of the exact `a @ b` plus an f32
    summation's error: at most 0 everywhere for a kernel that sums in f32
    and rounds once. The exact product is computed in f64 (exact for halves
    at these sizes), so no host BLAS is the reference."""
    import torch
    exact = a.double() @ b.double()
    magnitude = a.double().abs() @ b.double().abs()
    bits = {torch.float16: 11, torch.bfloat16: 8}.get(out.dtype, 24)
    k = a.shape[-1]
    bound = exact.abs() * 2.0 ** -bits + magnitude * k * 2.0 ** -24
    return float(((out.double() - exact).abs() - bound).max())


def tile_ir(fn, inputs, options=""):
    """fn captured for `inputs` and lowered to scheduled Tile IR with
    schedule `options`, as text."""
    import strata
    from strata.frontend import capture, import_program
    module = import_program(capture(fn, inputs))
    module.run(strata.pipeline("tile", options))
    return str(module)


def kernel_domains(text):
    """(domain, tile) of every tileir.kernel in `text`, in order."""
    import re
    return re.findall(r"tileir\.kernel .* domain \[([0-9, ]*)\] tile \[([0-9, ]*)\]", text)


def prepare(programs, name):
    """The program `name` of a table name -> (fn, make_inputs) with fresh
    inputs, seeded by the name; a module also gets fresh, nonzero
    statistics and weights."""
    import torch
    torch.manual_seed(sum(map(ord, name)))
    fn, make_inputs = programs[name]
    inputs = make_inputs()
    if isinstance(fn, torch.nn.Module):
        for buffer in fn.buffers():
            if buffer.is_floating_point():
                buffer.copy_(torch.rand_like(buffer) + 0.5)
        with torch.no_grad():
            for p in fn.parameters():
                p.copy_(torch.randn_like(p))
    return fn, inputs


def uninstrumented_env():
    """The environment for tools of other projects (nvcc): without the
    AddressSanitizer runtime that `tools/dev.sh sanitize` preloads into
    Python, which crashes them."""
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    return env

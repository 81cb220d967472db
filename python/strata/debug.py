"""Debugging the way Triton users expect: STRATA_DUMP_DIR=DIR turns on

- a dump of every program strata.compile or torch.compile compiles, at
  every stage, into DIR/<name>-<pid>-<n>/ (0-tensor.mlir, 1-loop.mlir, ...
  5-cpu.mlir), from the pipelines of strata.PIPELINES with the program's
  schedule options;
- reproducers: a pass pipeline that fails writes the module as it got it,
  with the pipeline, into DIR (as MLIR_ENABLE_REPRODUCER does for Triton),
  and its CompilerError names the file and the command that reruns it
  (`strata-opt FILE --run-reproducer`).

Without it neither is written: a user's impossible schedule option stays a
one-line error.
"""
import itertools
import os
import re

import strata

STAGES = ("loop", "tile", "kernel", "gpu", "cpu")
_programs = itertools.count()


def dump_directory():
    return os.environ.get("STRATA_DUMP_DIR") or None


def dump_stages(text, name, options=""):
    """Writes the tensorir program `text` and its lowering to every stage
    into a new folder of STRATA_DUMP_DIR (nothing without it); returns the
    folder. A stage that fails leaves its error in <n>-<stage>.error and
    ends the dump (the error names its reproducer)."""
    root = dump_directory()
    if root is None:
        return None
    safe = re.sub(r"[^A-Za-z0-9_.-]+", "_", name) or "program"
    folder = os.path.join(root, "%s-%d-%d" % (safe, os.getpid(),
                                               next(_programs)))
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "0-tensor.mlir"), "w") as f:
        f.write(text)
    for i, stage in enumerate(STAGES, 1):
        path = os.path.join(folder, "%d-%s" % (i, stage))
        try:
            module = strata.lower(text, stage, options, verify_each=False)
        except strata.CompilerError as e:
            with open(path + ".error", "w") as f:
                f.write(str(e) + "\n")
            break
        with open(path + ".mlir", "w") as f:
            f.write(str(module))
    return folder

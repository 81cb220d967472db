#!/usr/bin/env bash
# On a build machine: compile the GPU check's programs (tools/gpu_programs.py)
# into artifacts for tools/gpu-check.sh. Usage: tools/gpu-artifacts.sh [DIR [SET]]
# (SET: check, the default, sweep, wgmma or llvm_o2; see gpu_programs.SETS).
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-gpu-artifacts}
mkdir -p "$out"
PYTHONPATH="python:build/python:tools${PYTHONPATH:+:$PYTHONPATH}" \
  /usr/bin/python3 - "$out" "${2:-check}" <<'PY'
import os, sys, time
import torch
import gpu_programs
from strata.api import build_artifact
from strata.frontend import capture, import_program

out = sys.argv[1]
for name, make in gpu_programs.SETS[sys.argv[2]].items():
    torch.manual_seed(0)
    fn, inputs, _, _ = make()
    start = time.perf_counter()
    program = capture(fn, inputs)
    module = import_program(program)
    data = build_artifact(str(module), program.argument_names(),
                          gpu_programs.TARGET.get(name, "sm_90"),
                          schedule=gpu_programs.SCHEDULE.get(name, ""))
    with open(os.path.join(out, name + ".strata"), "wb") as f:
        f.write(data)
    print("%-20s %8d bytes  %6.1f s" % (name, len(data), time.perf_counter() - start))
PY

#!/usr/bin/env bash
# On a GPU host with CUDA, CMake and Python (PyTorch, pybind11): build the
# runtime alone (no LLVM/MLIR), then check and time the artifacts that
# tools/gpu-artifacts.sh compiled on a build machine.
# Usage: tools/gpu-check.sh [ARTIFACT_DIR] [--no-torch-compile]
set -euo pipefail
cd "$(dirname "$0")/.."
artifacts=${1:-gpu-artifacts}
shift || true
py=${PYTHON:-python3}
cmake -G Ninja -S . -B build-runtime -DSTRATA_RUNTIME_ONLY=ON \
  -DSTRATA_PYTHON="$(command -v "$py")" \
  -Dpybind11_DIR="$("$py" -m pybind11 --cmakedir)" > build-runtime.log
cmake --build build-runtime >> build-runtime.log
PYTHONPATH="build-runtime/python:python:tools${PYTHONPATH:+:$PYTHONPATH}" \
  "$py" tools/gpu_check.py "$artifacts" "$@"

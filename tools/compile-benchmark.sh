#!/usr/bin/env bash
# Strata's compile time to PTX against ptxas's, on one core (see
# tools/compile_benchmark.py). Needs the build (tools/dev.sh test builds it).
# Usage: tools/compile-benchmark.sh [--reps N] [--only PROGRAM] [--cpu N]
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHONPATH="python:build/python:tools${PYTHONPATH:+:$PYTHONPATH}" \
  exec /usr/bin/python3 tools/compile_benchmark.py "$@"

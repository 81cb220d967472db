#!/usr/bin/env bash
# Strata's set-up script: installs what is missing (Debian packages by name),
# configures and builds in build/ (incrementally), then runs the main job on
# the bundled example (`example`) or every test (`test`).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build ccache
  clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  python3-dev pybind11-dev python3-numpy python3-pytest python3-pytest-xdist
  python3-torch python3-pip python3-venv
)

install_missing() {
  local missing=()
  for p in "${PACKAGES[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return
  echo "== installing: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq \
    --no-install-recommends "${missing[@]}"
}

# Python packages the tests need that Debian lacks, pinned, from PyPI into
# build/python-deps (on the tests' path, conftest.py): `expecttest`, which
# PyTorch's own test data (torch.testing._internal, the conformance suite)
# imports. Installed once per version.
PYTHON_DEPS=(expecttest==0.3.0)

install_python_deps() {
  local target=build/python-deps stamp=build/python-deps/.installed
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${PYTHON_DEPS[*]}" ] && return
  echo "== installing into $target: ${PYTHON_DEPS[*]}"
  rm -rf "$target"
  /usr/bin/python3 -m pip install -q --disable-pip-version-check \
    --root-user-action=ignore --target "$target" "${PYTHON_DEPS[@]}"
  echo "${PYTHON_DEPS[*]}" > "$stamp"
}

# The PyTorch the tests and the command line run on: a pinned torch 2.x from
# PyPI in a virtual environment, build/venv, over Debian's interpreter (the
# one the extension is built for) and its packages (numpy, pytest, and
# torch 1.13, which the venv's torch shadows), with the model libraries the
# tests take models from (transformers, torchvision, timm). `tools/dev.sh
# sanitize` runs the same tests on Debian's torch 1.13 (docs/frontend.md).
# pip keeps the downloads in its cache (~/.cache/pip), so a new venv does
# not fetch them again.
VENV=build/venv
VENV_PACKAGES=(torch==2.9.1 torchvision==0.24.1 transformers==4.57.3
               timm==1.0.22)

install_venv() {
  local stamp=$VENV/.installed
  [ -f "$stamp" ] && [ "$(cat "$stamp")" = "${VENV_PACKAGES[*]}" ] && return
  echo "== installing into $VENV: ${VENV_PACKAGES[*]}"
  rm -rf "$VENV"
  /usr/bin/python3 -m venv --system-site-packages "$VENV"
  "$VENV/bin/python" -m pip install -q --disable-pip-version-check \
    --root-user-action=ignore \
    "${VENV_PACKAGES[@]}"
  echo "${VENV_PACKAGES[*]}" > "$stamp"
}

# The sanitizer runtimes (and libFuzzer's) of clang-22, for `sanitize` and
# tools/fuzz.sh only.
SANITIZER_PACKAGES=(libclang-rt-22-dev)

# build [DIR [CMAKE_FLAGS...]]: configures DIR (default build/) once, then
# builds it.
build() {
  local dir=${1:-build}
  shift || true
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -G Ninja -S . -B "$dir" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DLLVM_USE_LINKER=lld \
      -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit "$@"
  fi
  cmake --build "$dir"
}

# The sanitized build in build-asan/: Strata's code (not LLVM's, not
# Python) with AddressSanitizer and UndefinedBehaviorSanitizer, plus the
# libFuzzer target strata-fuzz.
build_sanitized() {
  PACKAGES+=("${SANITIZER_PACKAGES[@]}")
  install_missing
  build build-asan -DCMAKE_BUILD_TYPE=RelWithDebInfo \
    "-DSTRATA_SANITIZERS=address;undefined" -DSTRATA_ENABLE_FUZZER=ON
}

# The Python suite runs on every core (pytest-xdist; its tests are
# single-threaded and independent, each worker with its own compile cache),
# at most one worker per 4 GiB of available memory. STRATA_TEST_WORKERS
# overrides the count.
pytest_workers() {
  local cores memory
  cores=$(nproc)
  memory=$(awk '/^MemAvailable:/ { print int($2 / 4194304) }' /proc/meminfo)
  [ "$memory" -lt 1 ] && memory=1
  echo "${STRATA_TEST_WORKERS:-$((cores < memory ? cores : memory))}"
}

# Each step's start, with the seconds since the command began, so a CI log
# shows where its time went (and pytest's 15 slowest tests, which).
step() {
  echo "== [${SECONDS}s] $*"
}

case "${1:-}" in
  example)
    install_missing
    build
    build/bin/strata stages examples/elementwise.mlir --run
    ;;
  test)
    install_missing
    step build
    build
    install_python_deps
    step "install $VENV"
    install_venv
    step lit
    /usr/lib/llvm-22/bin/lit -sv build/test
    workers=$(pytest_workers)
    step "pytest on $workers workers"
    "$VENV/bin/python" -m pytest -q -n "$workers" --durations=15 test/python
    step done
    ;;
  sanitize)
    # Every test against the sanitized build (docs/reliability.md). Python
    # is not instrumented: the ASan runtime is preloaded into it. Nor is
    # libMLIR: LLVM's allocators poison memory only in instrumented code, so
    # user poisoning would give false reports (allow_user_poisoning=0).
    step "sanitized build"
    build_sanitized
    install_python_deps
    export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0:abort_on_error=1}
    export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
    step "sanitized lit"
    /usr/lib/llvm-22/bin/lit -sv build-asan/test
    workers=$(pytest_workers)
    step "sanitized pytest on $workers workers"
    LD_PRELOAD=$(clang++-22 -print-file-name=libclang_rt.asan-x86_64.so) \
      STRATA_BUILD_DIR=build-asan /usr/bin/python3 -m pytest -q \
      -n "$workers" --durations=15 test/python
    step done
    ;;
  build-sanitized)
    build_sanitized
    ;;
  *)
    echo "usage: tools/dev.sh example|test|sanitize" >&2
    exit 2
    ;;
esac

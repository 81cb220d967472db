#!/usr/bin/env bash
# Strata's set-up script: installs what is missing (Debian packages by name),
# configures and builds in build/ (incrementally), then runs the main job on
# the bundled example (`example`) or every test (`test`).
set -euo pipefail
cd "$(dirname "$0")/.."

PACKAGES=(
  cmake ninja-build ccache
  clang-22 lld-22 llvm-22-dev llvm-22-tools libmlir-22-dev mlir-22-tools
  python3-dev pybind11-dev python3-numpy python3-pytest python3-torch
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

build() {
  if [ ! -f build/build.ninja ]; then
    cmake -G Ninja -S . -B build \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
      -DLLVM_USE_LINKER=lld \
      -DCMAKE_C_COMPILER_LAUNCHER=ccache -DCMAKE_CXX_COMPILER_LAUNCHER=ccache \
      -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
      -DLLVM_EXTERNAL_LIT=/usr/lib/llvm-22/bin/lit
  fi
  cmake --build build
}

case "${1:-}" in
  example)
    install_missing
    build
    build/bin/strata stages examples/elementwise.mlir --run
    ;;
  test)
    install_missing
    build
    /usr/lib/llvm-22/bin/lit -sv build/test
    /usr/bin/python3 -m pytest -q test/python
    ;;
  *)
    echo "usage: tools/dev.sh example|test" >&2
    exit 2
    ;;
esac

#!/usr/bin/env bash
# tools/fuzz.sh [SECONDS]: builds the sanitized build (build-asan/, with the
# libFuzzer target strata-fuzz) and fuzzes Strata's pipelines for SECONDS
# (default 600), seeded from the lit tests. The corpus grows in
# build-asan/fuzz/corpus across runs; a crash, sanitizer report or
# pipeline bug (see tools/strata-fuzz) lands in build-asan/fuzz/crashes/
# and ends the run with its reproducer's path. FUZZ_JOBS=N runs N workers.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-600}
tools/dev.sh build-sanitized
dir=build-asan/fuzz
mkdir -p "$dir/corpus" "$dir/crashes"
/usr/bin/python3 tools/fuzz_seeds.py test "$dir/seeds" "$dir/mlir.dict"
# Strata is instrumented, libMLIR is not: LLVM's allocators poison and
# unpoison memory only in instrumented code, so ASan's user poisoning gives
# false reports across the boundary (allow_user_poisoning=0).
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=0:allow_user_poisoning=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1}
jobs=()
[ "${FUZZ_JOBS:-1}" -gt 1 ] && jobs=(-fork="$FUZZ_JOBS" -ignore_crashes=0)
exec build-asan/bin/strata-fuzz "$dir/corpus" "$dir/seeds" \
  -max_total_time="$seconds" -timeout=60 -rss_limit_mb=6144 -max_len=16384 \
  -dict="$dir/mlir.dict" -print_final_stats=1 -artifact_prefix="$dir/crashes/" \
  "${jobs[@]}"

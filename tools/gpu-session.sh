#!/usr/bin/env bash
# What one short GPU lease runs (device time is minutes): the GPU check of
# every program without torch.compile, compute-sanitizer's memcheck and
# racecheck on the ragged programs (out-of-bounds accesses and shared-memory
# races the CPU emulation might not show), then the large programs again
# next to torch.compile. Each step has its own time limit and writes its
# log to LOG_DIR, so a step that runs long loses only itself.
# With SET wgmma (artifacts of tools/gpu-artifacts.sh DIR wgmma): the check
# and the sanitizers of the warpgroup-mma set instead; with SET llvm_o2,
# the check (numbers and times) of the programs compiled with LLVM at O2,
# to compare with the check set's times at O3.
# Usage: tools/gpu-session.sh ARTIFACT_DIR LOG_DIR [SET]
set -uo pipefail
cd "$(dirname "$0")/.."
artifacts=$1
logs=$2
set_name=${3:-check}
py=${PYTHON:-python3}
export PYTHONUNBUFFERED=1 PATH="$PATH:/usr/local/cuda/bin"
mkdir -p "$logs"
check="$py tools/gpu_check.py $artifacts"
export PYTHONPATH="build-runtime/python:python:tools${PYTHONPATH:+:$PYTHONPATH}"

step() {  # step NAME SECONDS COMMAND...
  local name=$1 seconds=$2
  shift 2
  echo "== $name"
  local start=$SECONDS
  timeout "$seconds" "$@" > "$logs/$name.log" 2>&1
  local rc=$?
  tail -n 40 "$logs/$name.log"
  echo "== $name: exit $rc after $((SECONDS - start)) s"
}

nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
  --format=csv,noheader
step build 120 bash tools/gpu-check.sh "$artifacts" --dry-run --set "$set_name"
if [ "$set_name" = wgmma ]; then
  ragged=wgmma_f16_issue,wgmma_f16_ragged,wgmma_bf16_ragged,wgmma_bmm_large_tiles
  ragged+=,wgmma_tma_f16_ragged,wgmma_tma_f16_ragged_matmul,wgmma_tma_f16_out_proj_ragged
  ragged+=,wgmma_tma_f16_ragged_tma_store
  step check 200 $check --set wgmma --no-torch-compile
  step memcheck 120 compute-sanitizer --tool memcheck --print-limit 10 \
    $check --set wgmma --no-timing --only "$ragged"
  step racecheck 60 compute-sanitizer --tool racecheck --print-limit 10 \
    $check --set wgmma --no-timing --only wgmma_f16_issue,wgmma_f16_ragged,wgmma_tma_f16_ragged,wgmma_tma_f16_ragged_matmul
  exit 0
fi
if [ "$set_name" = llvm_o2 ]; then
  step check 150 $check --set llvm_o2 --no-torch-compile
  exit 0
fi
ragged=matmul_f16_issue,matmul_f16_ragged,matmul_bf16_ragged,matmul_f32_ragged
ragged+=,matmul_tf32_ragged,matmul_split_k,softmax_warp_rows,softmax_ragged
ragged+=,rmsnorm_ragged,layer_norm_ragged,bmm_f16_large_tiles,matmul_split_k_prime
ragged+=,attention_prefill_ragged,attention_prefill_f16_causal_ragged
step check 120 $check --no-torch-compile
step memcheck 100 compute-sanitizer --tool memcheck --print-limit 10 \
  $check --no-timing --only "$ragged"
# The flash prefills stage keys and values in shared memory between barriers.
step racecheck 60 compute-sanitizer --tool racecheck --print-limit 10 \
  $check --no-timing --only matmul_f16_issue,matmul_tf32_ragged,softmax_ragged,softmax_warp_rows,attention_prefill_ragged,attention_prefill_f16_causal_ragged
large=elementwise_chain,rmsnorm_4096,softmax_4096,layer_norm_4096,swiglu_4096
large+=,matmul_f32_4096,matmul_f16_4096,matmul_tf32_4096,decoder_block
large+=,attention_prefill_gpt2,attention_prefill_gpt2_f16_causal
large+=,attention_prefill_llama_bf16_causal
step torch_compile 150 $check --only "$large"

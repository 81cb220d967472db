// RUN: strata-opt %s -split-input-file -verify-diagnostics --kernelir-check-target=chip=sm_90
// RUN: strata-opt %s -split-input-file --kernelir-check-target=chip=sm_90a | FileCheck %s --check-prefix=SM90A
// RUN: not strata-opt %s -split-input-file --kernelir-check-target=chip=sm_75 2>&1 | FileCheck %s --check-prefix=SM75
// RUN: not strata-opt %s --kernelir-check-target=chip=gfx90a 2>&1 | FileCheck %s --check-prefix=FORM
// RUN: not strata-opt %s --kernelir-check-target=chip=sm_70 2>&1 | FileCheck %s --check-prefix=OLD

// The chip has what the kernels use, or the op that needs more is a
// diagnostic: LLVM would stop the process on an instruction it cannot
// select ("Cannot select: intrinsic %llvm.nvvm.wgmma...").
// SM90A-LABEL: kernelir.func @warpgroup
// SM90A-LABEL: kernelir.func @async_copies
// SM90A-LABEL: kernelir.func @large_shared
// SM90A-LABEL: kernelir.func @mbarriers
// SM90A-LABEL: kernelir.func @register_split
// SM75: 'kernelir.wgmma' op exists on sm_90a alone; the target is sm_75
// SM75: 'kernelir.async_copy' op needs sm_80 or newer; the target is sm_75
// SM75: 'kernelir.func' op takes 102400 bytes of shared memory; sm_75 gives a block at most 65536
// SM75: 'kernelir.mbarrier_init' op needs sm_80 or newer; the target is sm_75
// FORM: error: chip 'gfx90a' is not a target of the form sm_<N> (sm_80, sm_90, sm_90a, ...)
// OLD: error: chip sm_70 is older than sm_75, the oldest target of CUDA 13's ptxas
kernelir.func @warpgroup() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %a = kernelir.shared : memref<2x64x8xbf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<2x8x8xbf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  %acc = arith.constant dense<0.0> : vector<1x2x2xf32>
  // expected-error @+1 {{'kernelir.wgmma' op exists on sm_90a alone; the target is sm_90}}
  %d = kernelir.wgmma %a[%c0, %c0, %c0], %b[%c0, %c0, %c0], %acc k 16 : memref<2x64x8xbf16, #gpu.address_space<workgroup>>, memref<2x8x8xbf16, #gpu.address_space<workgroup>>, vector<1x2x2xf32>
  kernelir.return
}

// -----

kernelir.func @async_copies(%h: memref<64xf16>) attributes {block = array<i64: 8, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %sh = kernelir.shared : memref<16xf16, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  kernelir.async_copy %h[%c0], %sh[%c0] elements 8 : memref<64xf16>, memref<16xf16, #gpu.address_space<workgroup>>
  kernelir.async_commit
  kernelir.async_wait pending 0
  kernelir.return
}

// -----

kernelir.func @large_shared() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %s = kernelir.shared : memref<25600xf32, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

// mbarriers exist from sm_80; waits on a phase's parity, transaction
// bytes, bulk copies, TMA and bulk groups from sm_90.
kernelir.func @mbarriers(%h: memref<64xf16>, %map: memref<64xf16> {kernelir.tensor_map}, %p: i1) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %sh = kernelir.shared : memref<64xf16, #gpu.address_space<workgroup>>
  %b = kernelir.shared : memref<1xi64, #gpu.address_space<workgroup>>
  %c0 = arith.constant 0 : index
  kernelir.mbarrier_init %b[%c0] arrivals 32 : memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.mbarrier_arrive %b[%c0] expect_tx 128 : memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.bulk_copy %h[%c0], %sh[%c0] elements 64 arrives %b[%c0] : memref<64xf16>, memref<64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.tma_load %map[%c0], %sh[%c0] arrives %b[%c0] : memref<64xf16>, memref<64xf16, #gpu.address_space<workgroup>>, memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.tma_store %sh[%c0], %map[%c0] : memref<64xf16, #gpu.address_space<workgroup>>, memref<64xf16>
  kernelir.bulk_commit
  kernelir.bulk_wait pending 0 read
  kernelir.mbarrier_wait %b[%c0] parity %p : memref<1xi64, #gpu.address_space<workgroup>>
  kernelir.return
}

// -----

kernelir.func @register_split() attributes {block = array<i64: 128, 1, 1>, grid = array<i64: 1, 1, 1>} {
  // expected-error @+1 {{'kernelir.set_max_registers' op exists on sm_90a alone; the target is sm_90}}
  kernelir.set_max_registers decrease 40
  kernelir.return
}

// A tensor-core kernel whose shared memory lets exactly two blocks share
// an SM (128 x 128 tiles of halves, 64 k a step in three stages: 108 KiB)
// asks for two (kernelir min_blocks_per_sm, PTX .minnctapersm), so ptxas
// keeps to 128 registers a thread instead of choosing one block per SM.
// The 64 x 64 tiles of a smaller product leave it to ptxas.
// RUN: strata-opt %s --strata-lower-to-kernel | FileCheck %s --check-prefix=KERNEL
// RUN: strata-opt %s --strata-lower-to-nvvm | FileCheck %s

// KERNEL: kernelir.func @large_kernel({{.*}}) attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 256, 1, 1>, min_blocks_per_sm = 2 : i64}
// KERNEL: kernelir.func @small_kernel({{.*}}) attributes {block = array<i64: 256, 1, 1>, grid = array<i64: 16, 1, 1>} {

// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: .entry large_kernel
// CHECK-SAME: .maxntid 256, 1, 1\0A.minnctapersm 2\0A
// CHECK-SAME: .entry small_kernel
// CHECK-SAME: .maxntid 256, 1, 1\0A{

func.func @large(%a: tensor<2048x1024xf16>, %b: tensor<1024x2048xf16>) -> tensor<2048x2048xf16> {
  %r = tensorir.matmul %a, %b : (tensor<2048x1024xf16>, tensor<1024x2048xf16>) -> tensor<2048x2048xf16>
  return %r : tensor<2048x2048xf16>
}

func.func @small(%a: tensor<200x96xf16>, %b: tensor<96x240xf16>) -> tensor<200x240xf16> {
  %r = tensorir.matmul %a, %b : (tensor<200x96xf16>, tensor<96x240xf16>) -> tensor<200x240xf16>
  return %r : tensor<200x240xf16>
}

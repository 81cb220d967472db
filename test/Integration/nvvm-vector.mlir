// Contiguous rows become 128-bit global accesses: 4 x f32 per thread, read
// and written with ld.global.v4 / st.global.v4 (333 ragged rows of 20, so
// one guard covers each vector). f16 rows get 8 x f16 per thread, 128 bits
// too (the elementwise tile gives each thread 128 bits of its widest type).
// Rows of 37 elements cannot start every vector at a multiple of its size,
// so they stay scalar. Every kernel argument is noalias (each result buffer
// is the launch's own), so the loads of inputs, which the kernels only
// read, take the read-only data path (ld.global.nc).
// RUN: strata-opt %s --strata-lower-to-nvvm | FileCheck %s

// CHECK: gpu.binary @strata_kernels
// CHECK-SAME: .entry f32_rows_kernel
// CHECK-NOT: .entry
// CHECK-COUNT-2: ld.global.nc.v4.b32
// CHECK-NOT: .entry
// CHECK: st.global.v4.b32
// CHECK-SAME: .entry f16_rows_kernel
// CHECK-NOT: .entry
// CHECK: ld.global.nc.v4.b32
// CHECK-NOT: .entry
// CHECK: st.global.v4.b32
// CHECK-SAME: .entry odd_rows_kernel
// CHECK-NOT: .v4.
// CHECK-NOT: .v2.
// CHECK: ld.global.nc.b32
// CHECK: st.global.b32

func.func @f32_rows(%a: tensor<333x20xf32>, %b: tensor<20xf32>) -> tensor<333x20xf32> {
  %e = tensorir.exp %a : tensor<333x20xf32>
  %bb = tensorir.broadcast %b dims [1] : tensor<20xf32> -> tensor<333x20xf32>
  %r = tensorir.mul %e, %bb : tensor<333x20xf32>
  return %r : tensor<333x20xf32>
}

func.func @f16_rows(%a: tensor<64x64xf16>) -> tensor<64x64xf16> {
  %r = tensorir.add %a, %a : tensor<64x64xf16>
  return %r : tensor<64x64xf16>
}

func.func @odd_rows(%a: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  %r = tensorir.exp %a : tensor<1000x37xf32>
  return %r : tensor<1000x37xf32>
}

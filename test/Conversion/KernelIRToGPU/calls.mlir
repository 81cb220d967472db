// RUN: strata-opt %s --convert-kernelir-to-gpu | FileCheck %s

// Functions a kernel calls (and those they call) are device functions on
// the GPU: copied into the gpu.module beside the kernels. (A call once
// left the gpu.module referring to a function outside it.)
// CHECK: func.func @host_helper
// CHECK: gpu.module @strata_kernels
// CHECK-DAG: gpu.func @k
// CHECK-DAG: func.func @scale
// CHECK-DAG: func.func @twice
func.func @twice(%x: f32) -> f32 {
  %y = arith.addf %x, %x : f32
  return %y : f32
}
func.func @scale(%x: f32) -> f32 {
  %y = func.call @twice(%x) : (f32) -> f32
  return %y : f32
}
func.func @host_helper() {
  return
}
kernelir.func @k(%out: memref<32xf32>) attributes {block = array<i64: 32, 1, 1>, grid = array<i64: 1, 1, 1>} {
  %t = kernelir.thread_id x
  %ti = arith.index_cast %t : index to i32
  %x = arith.sitofp %ti : i32 to f32
  %y = func.call @scale(%x) : (f32) -> f32
  kernelir.store %y, %out[%t] : memref<32xf32>
  kernelir.return
}

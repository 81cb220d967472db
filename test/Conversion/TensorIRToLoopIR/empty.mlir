// RUN: strata-opt %s -split-input-file --convert-tensorir-to-loopir | FileCheck %s

// Tensors without elements build no kernel: an op whose results are empty
// is an empty constant of the host program.
// CHECK-LABEL: func.func @empty_result
// CHECK-NOT: loopir.kernel
// CHECK: %[[E:.*]] = arith.constant dense<> : tensor<3x0xf32>
// CHECK: return %[[E]] : tensor<3x0xf32>
func.func @empty_result(%x: tensor<3x0xf32>) -> tensor<3x0xf32> {
  %0 = tensorir.exp %x : tensor<3x0xf32>
  return %0 : tensor<3x0xf32>
}

// -----

// A reduction over an empty axis is its combiner's identity: a fill kernel.
// CHECK-LABEL: func.func @empty_sum
// CHECK: loopir.kernel -> tensor<3xf32>
// CHECK: loopir.parallel (%[[I:.*]]) in [3] {
// CHECK-NEXT: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: loopir.store %[[Z]]
// CHECK-LABEL: func.func @empty_prod
// CHECK: arith.constant 1.000000e+00 : f32
// CHECK-LABEL: func.func @empty_max
// CHECK: arith.constant 0xFF800000 : f32
// CHECK-LABEL: func.func @empty_min_i64
// CHECK: arith.constant 9223372036854775807 : i64
func.func @empty_sum(%x: tensor<3x0xf32>) -> tensor<3xf32> {
  %0 = tensorir.reduce sum %x axes [1] : tensor<3x0xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @empty_prod(%x: tensor<3x0xf32>) -> tensor<3xf32> {
  %0 = tensorir.reduce prod %x axes [1] : tensor<3x0xf32> -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
func.func @empty_max(%x: tensor<0x2xf32>) -> tensor<1x2xf32> {
  %0 = tensorir.reduce max %x axes [0] keepdim : tensor<0x2xf32> -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}
func.func @empty_min_i64(%x: tensor<4x0xi64>) -> tensor<4xi64> {
  %0 = tensorir.reduce min %x axes [1] : tensor<4x0xi64> -> tensor<4xi64>
  return %0 : tensor<4xi64>
}

// -----

// A concatenation takes only its inputs with elements.
// CHECK-LABEL: func.func @concat_empty_input
// CHECK: loopir.kernel ins(%{{.*}} : tensor<3x2xf32>) -> tensor<3x2xf32>
// CHECK-COUNT-1: loopir.parallel
// CHECK-NOT: loopir.parallel
func.func @concat_empty_input(%a: tensor<3x0xf32>, %b: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %0 = tensorir.concat %a, %b axis 1 : (tensor<3x0xf32>, tensor<3x2xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

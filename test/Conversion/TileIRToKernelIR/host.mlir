// RUN: strata-opt %s --convert-tileir-to-kernelir | FileCheck %s

// The host program is bufferized around the kernels.

// Constant tensors become private read-only globals, each with a name of its
// own (a second constant once redefined the first's name; see
// @two_constants).
// CHECK-DAG: memref.global "private" constant @[[A:strata_constant_[0-9]+]] : memref<2xf32> = dense<[4.000000e+00, 5.000000e+00]>
// CHECK-DAG: memref.global "private" constant @[[B:strata_constant_[0-9]+]] : memref<0xf32> = dense<>
// CHECK: memref.global "private" constant @strata_constant : memref<3xf32> = dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> {alignment = 64 : i64}
// CHECK-LABEL: func.func @weights
// CHECK-SAME: () -> memref<3xf32>
// CHECK: %[[W:.*]] = memref.get_global @strata_constant : memref<3xf32>
// CHECK: return %[[W]] : memref<3xf32>
func.func @weights() -> tensor<3xf32> {
  %w = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  return %w : tensor<3xf32>
}

// CHECK-LABEL: func.func @two_constants
// CHECK-DAG: memref.get_global @[[A]] : memref<2xf32>
// CHECK-DAG: memref.get_global @[[B]] : memref<0xf32>
func.func @two_constants() -> (tensor<2xf32>, tensor<0xf32>) {
  %a = arith.constant dense<[4.0, 5.0]> : tensor<2xf32>
  %b = arith.constant dense<> : tensor<0xf32>
  return %a, %b : tensor<2xf32>, tensor<0xf32>
}

// Calls, casts from and to buffers, and element reads follow.
// CHECK-LABEL: func.func @caller
// CHECK-SAME: (%[[M:.*]]: memref<3xf32>) -> f32
// CHECK: %[[R:.*]] = call @weights() : () -> memref<3xf32>
// CHECK: %[[X:.*]] = memref.load %[[R]][%{{.*}}] : memref<3xf32>
// CHECK: %[[Y:.*]] = memref.load %[[M]][%{{.*}}] : memref<3xf32>
func.func @caller(%m: memref<3xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %r = call @weights() : () -> tensor<3xf32>
  %x = tensor.extract %r[%c0] : tensor<3xf32>
  %t = bufferization.to_tensor %m restrict : memref<3xf32> to tensor<3xf32>
  %b = bufferization.to_buffer %t : tensor<3xf32> to memref<3xf32>
  %y = memref.load %b[%c0] : memref<3xf32>
  %s = arith.addf %x, %y : f32
  return %s : f32
}

// RUN: strata-opt %s --convert-tensorir-to-loopir | FileCheck %s

// A pad is a copy whose load reads through the shift, guarded by the
// padded dimensions' bounds (an unpadded dimension is not tested).
// CHECK-DAG: #[[SHIFT:.*]] = affine_map<(d0, d1) -> (d0 - 1, d1)>
// CHECK-DAG: #[[INSIDE:.*]] = affine_set<(d0, d1) : (d0 - 1 >= 0, -d0 + 8 >= 0)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2) -> (d0, d1 * 2 + d2 * 3)>
// CHECK-LABEL: func.func @pad
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [11, 6]
// CHECK-NEXT: loopir.load %{{.*}}[%[[I]], %[[J]]] map #[[SHIFT]] if #[[INSIDE]] else -1.500000e+00 : f32 : memref<8x6xf32>
func.func @pad(%x: tensor<8x6xf32>) -> tensor<11x6xf32> {
  %p = tensorir.pad %x low [1, 0] high [2, 0] value -1.5 : f32 : tensor<8x6xf32> -> tensor<11x6xf32>
  return %p : tensor<11x6xf32>
}

// A window reads element o * stride + k * dilation of its dimension.
// CHECK-LABEL: func.func @window
// CHECK: loopir.parallel (%[[N:.*]], %[[O:.*]], %[[K:.*]]) in [3, 4, 3]
// CHECK-NEXT: loopir.load %{{.*}}[%[[N]], %[[O]], %[[K]]] map #[[WIN]] : memref<3x13xf32>
func.func @window(%x: tensor<3x13xf32>) -> tensor<3x4x3xf32> {
  %w = tensorir.window %x sizes [3] strides [2] dilations [3] : tensor<3x13xf32> -> tensor<3x4x3xf32>
  return %w : tensor<3x4x3xf32>
}

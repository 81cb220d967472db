// RUN: strata-opt %s --convert-tensorir-to-loopir | FileCheck %s

// A broadcast is a copy whose load reads through the broadcast's index map.
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-DAG: #[[COL:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[NEW:.*]] = affine_map<(d0, d1, d2) -> (d0, d2)>

// CHECK-LABEL: func.func @row
func.func @row(%b: tensor<37xf32>) -> tensor<1000x37xf32> {
  // CHECK: loopir.kernel ins(%{{.*}} : tensor<37xf32>) -> tensor<1000x37xf32>
  // CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [1000, 37]
  // CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[J]]] map #[[ROW]] : memref<37xf32>
  // CHECK-NEXT: loopir.store %[[X]], %{{.*}}[%[[I]], %[[J]]] : memref<1000x37xf32>
  %r = tensorir.broadcast %b dims [1] : tensor<37xf32> -> tensor<1000x37xf32>
  return %r : tensor<1000x37xf32>
}

// A dimension of size 1 is repeated: its index is the constant 0.
// CHECK-LABEL: func.func @column
func.func @column(%c: tensor<1000x1xf32>) -> tensor<1000x37xf32> {
  // CHECK: loopir.load %{{.*}} map #[[COL]] : memref<1000x1xf32>
  %r = tensorir.broadcast %c dims [0, 1] : tensor<1000x1xf32> -> tensor<1000x37xf32>
  return %r : tensor<1000x37xf32>
}

// A new middle dimension.
// CHECK-LABEL: func.func @middle
func.func @middle(%x: tensor<4x6xf32>) -> tensor<4x5x6xf32> {
  // CHECK: loopir.parallel (%{{.*}}, %{{.*}}, %{{.*}}) in [4, 5, 6]
  // CHECK: loopir.load %{{.*}} map #[[NEW]] : memref<4x6xf32>
  %r = tensorir.broadcast %x dims [0, 2] : tensor<4x6xf32> -> tensor<4x5x6xf32>
  return %r : tensor<4x5x6xf32>
}

// RUN: strata-opt %s | FileCheck %s
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @kernels
func.func @kernels(%a: tensor<1000x37xf32>, %b: tensor<37xf32>) -> (tensor<1000x37xf32>, tensor<f32>) {
  // CHECK: loopir.kernel ins(%{{.*}}, %{{.*}} : tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32> {
  // CHECK-NEXT: ^bb0(%[[A:.*]]: memref<1000x37xf32>, %[[B:.*]]: memref<37xf32>, %[[OUT:.*]]: memref<1000x37xf32>):
  // CHECK-NEXT: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [1000, 37] {
  // CHECK-NEXT: %[[X:.*]] = loopir.load %[[A]][%[[I]], %[[J]]] : memref<1000x37xf32>
  // CHECK-NEXT: %[[Y:.*]] = loopir.load %[[B]][%[[I]], %[[J]]] map #[[ROW]] : memref<37xf32>
  // CHECK-NEXT: %[[S:.*]] = arith.addf %[[X]], %[[Y]] : f32
  // CHECK-NEXT: loopir.store %[[S]], %[[OUT]][%[[I]], %[[J]]] : memref<1000x37xf32>
  // CHECK-NEXT: }
  // CHECK-NEXT: }
  %r = loopir.kernel ins(%a, %b : tensor<1000x37xf32>, tensor<37xf32>) -> tensor<1000x37xf32> {
  ^bb0(%in: memref<1000x37xf32>, %row: memref<37xf32>, %out: memref<1000x37xf32>):
    loopir.parallel (%i, %j) in [1000, 37] {
      %x = loopir.load %in[%i, %j] : memref<1000x37xf32>
      %y = loopir.load %row[%i, %j] map affine_map<(d0, d1) -> (d1)> : memref<37xf32>
      %s = arith.addf %x, %y : f32
      loopir.store %s, %out[%i, %j] : memref<1000x37xf32>
    }
  }
  // A kernel without inputs, over a 0-d result.
  // CHECK: loopir.kernel -> tensor<f32> {
  // CHECK: loopir.parallel () in [] {
  %z = loopir.kernel -> tensor<f32> {
  ^bb0(%out: memref<f32>):
    loopir.parallel () in [] {
      %c = arith.constant 2.0 : f32
      loopir.store %c, %out[] : memref<f32>
    }
  }
  return %r, %z : tensor<1000x37xf32>, tensor<f32>
}

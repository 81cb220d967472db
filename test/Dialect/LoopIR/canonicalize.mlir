// RUN: strata-opt %s -split-input-file --canonicalize | FileCheck %s

// A reduction over one point is that point's contribution (an
// arg-reduction's position is 0): no box without bounds, or with bounds of
// 1, is left to schedule.
// CHECK-LABEL: func.func @zero_d
// CHECK: loopir.parallel () in [] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[] : memref<f32>
// CHECK-NEXT: loopir.store %[[X]], %{{.*}}[] : memref<f32>
// CHECK-NOT: loopir.reduce
func.func @zero_d(%a: tensor<f32>) -> tensor<f32> {
  %0 = loopir.kernel ins(%a : tensor<f32>) -> tensor<f32> {
  ^bb0(%in: memref<f32>, %out: memref<f32>):
    loopir.parallel () in [] {
      %1 = loopir.load %in[] : memref<f32>
      %2 = loopir.reduce add () in [] : f32 {
        loopir.yield %1 : f32
      }
      loopir.store %2, %out[] : memref<f32>
    }
  }
  return %0 : tensor<f32>
}

// -----

// (The box's indices become 0, which the load's map then holds.)
// CHECK-DAG: #[[FIRST:.*]] = affine_map<(d0) -> (d0, 0, 0)>
// CHECK-LABEL: func.func @unit_box
// CHECK-DAG: %[[POS:.*]] = arith.constant 0 : i64
// CHECK: loopir.parallel (%[[I:.*]]) in [4] {
// CHECK: %[[X:.*]] = loopir.load %{{.*}}[%[[I]]] map #[[FIRST]] : memref<4x1x1xf32>
// CHECK: loopir.store %[[X]], %{{.*}}[%[[I]]] : memref<4xf32>
// CHECK: loopir.store %[[POS]], %{{.*}}[%[[I]]] : memref<4xi64>
// CHECK-NOT: loopir.reduce
func.func @unit_box(%a: tensor<4x1x1xf32>) -> (tensor<4xf32>, tensor<4xi64>) {
  %0:2 = loopir.kernel ins(%a : tensor<4x1x1xf32>) -> tensor<4xf32>, tensor<4xi64> {
  ^bb0(%in: memref<4x1x1xf32>, %v: memref<4xf32>, %p: memref<4xi64>):
    loopir.parallel (%i) in [4] {
      %m, %k = loopir.reduce argmax (%j, %l) in [1, 1] : f32, i64 {
        %x = loopir.load %in[%i, %j, %l] : memref<4x1x1xf32>
        loopir.yield %x : f32
      }
      loopir.store %m, %v[%i] : memref<4xf32>
      loopir.store %k, %p[%i] : memref<4xi64>
    }
  }
  return %0#0, %0#1 : tensor<4xf32>, tensor<4xi64>
}

// -----

// Two points or more stay a reduction.
// CHECK-LABEL: func.func @two_points
// CHECK: loopir.reduce add (%{{.*}}) in [2]
func.func @two_points(%a: tensor<2xf32>) -> tensor<f32> {
  %0 = loopir.kernel ins(%a : tensor<2xf32>) -> tensor<f32> {
  ^bb0(%in: memref<2xf32>, %out: memref<f32>):
    loopir.parallel () in [] {
      %s = loopir.reduce add (%k) in [2] : f32 {
        %x = loopir.load %in[%k] : memref<2xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[] : memref<f32>
    }
  }
  return %0 : tensor<f32>
}

// -----

// Constant indices move into the access maps, so the indices of loads and
// stores are loop indices (what fusion and the schedules compose).
// CHECK-DAG: #[[LOAD:.*]] = affine_map<(d0) -> (d0 + 1, 2)>
// CHECK-DAG: #[[STORE:.*]] = affine_map<(d0) -> (3, d0)>
// CHECK-LABEL: func.func @constant_indices
// CHECK: loopir.parallel (%[[I:.*]]) in [4] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]]] map #[[LOAD]] : memref<5x3xf32>
// CHECK-NEXT: loopir.store %[[X]], %{{.*}}[%[[I]]] map #[[STORE]] : memref<4x4xf32>
func.func @constant_indices(%a: tensor<5x3xf32>) -> tensor<4x4xf32> {
  %0 = loopir.kernel ins(%a : tensor<5x3xf32>) -> tensor<4x4xf32> {
  ^bb0(%in: memref<5x3xf32>, %out: memref<4x4xf32>):
    %c2 = arith.constant 2 : index
    %c3 = arith.constant 3 : index
    loopir.parallel (%i) in [4] {
      %x = loopir.load %in[%i, %c2] map affine_map<(d0, d1) -> (d0 + 1, d1)> : memref<5x3xf32>
      loopir.store %x, %out[%c3, %i] : memref<4x4xf32>
    }
  }
  return %0 : tensor<4x4xf32>
}

// -----

// A nest inside another over one point is its body (found by fuzzing:
// the row schedule made it a tileir.distribute over no dimension, whose
// vector runs asked for an innermost index it lacks). A kernel's own nests
// stay.
// CHECK-LABEL: func.func @nested_one_point
// CHECK: loopir.parallel (%[[I:.*]]) in [3] {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]]] : memref<3xf32>
// CHECK-NEXT: loopir.store %[[X]], %{{.*}}[%[[I]]] : memref<3xf32>
// CHECK-NEXT: }
// CHECK: loopir.parallel () in [] {
func.func @nested_one_point(%a: tensor<3xf32>) -> (tensor<3xf32>, tensor<f32>) {
  %0:2 = loopir.kernel ins(%a : tensor<3xf32>) -> tensor<3xf32>, tensor<f32> {
  ^bb0(%in: memref<3xf32>, %out: memref<3xf32>, %s: memref<f32>):
    loopir.parallel (%i) in [3] {
      loopir.parallel (%j) in [1] {
        %x = loopir.load %in[%i] : memref<3xf32>
        loopir.store %x, %out[%i] : memref<3xf32>
      }
    }
    loopir.parallel () in [] {
      %y = arith.constant 1.0 : f32
      loopir.store %y, %s[] : memref<f32>
    }
  }
  return %0#0, %0#1 : tensor<3xf32>, tensor<f32>
}

// -----

// A tensor passed twice (fusion brings one buffer per fused producer) is
// read through one buffer.
// CHECK-LABEL: func.func @duplicate_inputs
// CHECK: loopir.kernel ins(%{{.*}}, %{{.*}} : tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> {
// CHECK-NEXT: ^bb0(%[[A:.*]]: memref<3xf32>, %[[B:.*]]: memref<3xf32>, %[[OUT:.*]]: memref<3xf32>):
// CHECK: loopir.load %[[A]]
// CHECK: loopir.load %[[B]]
// CHECK: loopir.load %[[A]]
func.func @duplicate_inputs(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<3xf32> {
  %0 = loopir.kernel ins(%a, %b, %a : tensor<3xf32>, tensor<3xf32>, tensor<3xf32>) -> tensor<3xf32> {
  ^bb0(%x: memref<3xf32>, %y: memref<3xf32>, %z: memref<3xf32>, %out: memref<3xf32>):
    loopir.parallel (%i) in [3] {
      %u = loopir.load %x[%i] : memref<3xf32>
      %v = loopir.load %y[%i] : memref<3xf32>
      %w = loopir.load %z[%i] : memref<3xf32>
      %s = arith.addf %u, %v : f32
      %t = arith.mulf %s, %w : f32
      loopir.store %t, %out[%i] : memref<3xf32>
    }
  }
  return %0 : tensor<3xf32>
}

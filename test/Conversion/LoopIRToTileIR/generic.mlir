// RUN: strata-opt %s -split-input-file --convert-loopir-to-tileir --strata-schedule-tile | FileCheck %s

// A column reduction gets the generic schedule: one point (column) per
// thread, so neighbouring threads read neighbouring addresses; the Loop IR
// body runs unchanged inside tileir.for_each_point.
// CHECK-LABEL: func.func @column_sum
// CHECK: tileir.kernel ins(%{{.*}} : tensor<70x1100xf32>) -> tensor<1100xf32> domain [1100] tile [128] threads 128 {
// CHECK: %[[O:.*]] = tileir.tile_offset 0
// CHECK: tileir.for_each_point [%[[O]]] (%[[J:.*]]) {
// CHECK-NEXT: %[[S:.*]] = loopir.reduce add (%[[K:.*]]) in [70] : f32 {
// CHECK-NEXT: loopir.load %{{.*}}[%[[K]], %[[J]]] : memref<70x1100xf32>
// CHECK: loopir.store %[[S]], %{{.*}}[%[[J]]] : memref<1100xf32>
func.func @column_sum(%a: tensor<70x1100xf32>) -> tensor<1100xf32> {
  %r = loopir.kernel ins(%a : tensor<70x1100xf32>) -> tensor<1100xf32> {
  ^bb0(%in: memref<70x1100xf32>, %out: memref<1100xf32>):
    loopir.parallel (%j) in [1100] {
      %s = loopir.reduce add (%k) in [70] : f32 {
        %x = loopir.load %in[%k, %j] : memref<70x1100xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%j] : memref<1100xf32>
    }
  }
  return %r : tensor<1100xf32>
}

// -----

// With fewer columns than kMaxRowsForStridedRowSchedule (1024) a thread per
// column would leave the GPU idle: a block per column folds it, reading
// down the column.
// CHECK-LABEL: func.func @few_columns
// CHECK: tileir.kernel ins(%{{.*}} : tensor<70x33xf32>) -> tensor<33xf32> domain [33] tile [1] threads 32 {
// CHECK: %[[J:.*]] = tileir.point 0
// CHECK-NEXT: tileir.fold add(0.000000e+00 : f32) (%[[K:.*]]) in [70] {
// CHECK-NEXT: loopir.load %{{.*}}[%[[K]], %[[J]]] : memref<70x33xf32>
func.func @few_columns(%a: tensor<70x33xf32>) -> tensor<33xf32> {
  %r = loopir.kernel ins(%a : tensor<70x33xf32>) -> tensor<33xf32> {
  ^bb0(%in: memref<70x33xf32>, %out: memref<33xf32>):
    loopir.parallel (%j) in [33] {
      %s = loopir.reduce add (%k) in [70] : f32 {
        %x = loopir.load %in[%k, %j] : memref<70x33xf32>
        loopir.yield %x : f32
      }
      loopir.store %s, %out[%j] : memref<33xf32>
    }
  }
  return %r : tensor<33xf32>
}

// -----

// Several nests of one rank share a domain covering all of them; a point
// outside a nest's box skips it.
// CHECK-LABEL: func.func @concat
// CHECK: domain [4, 5]
// CHECK: tileir.for_each_point [%{{.*}}, %{{.*}}] (%[[I:.*]], %[[J:.*]]) {
// CHECK: %[[IN:.*]] = arith.cmpi ult, %[[J]], %{{.*}} : index
// CHECK-NEXT: scf.if %[[IN]] {
// CHECK: loopir.store
// CHECK: }
// CHECK-NOT: scf.if
// CHECK: loopir.store %{{.*}} map
func.func @concat(%a: tensor<4x3xf32>, %b: tensor<4x5xf32>) -> tensor<4x8xf32> {
  %r = loopir.kernel ins(%a, %b : tensor<4x3xf32>, tensor<4x5xf32>) -> tensor<4x8xf32> {
  ^bb0(%x: memref<4x3xf32>, %y: memref<4x5xf32>, %out: memref<4x8xf32>):
    loopir.parallel (%i, %j) in [4, 3] {
      %v = loopir.load %x[%i, %j] : memref<4x3xf32>
      loopir.store %v, %out[%i, %j] : memref<4x8xf32>
    }
    loopir.parallel (%i, %j) in [4, 5] {
      %v = loopir.load %y[%i, %j] : memref<4x5xf32>
      loopir.store %v, %out[%i, %j] map affine_map<(d0, d1) -> (d0, d1 + 3)> : memref<4x8xf32>
    }
  }
  return %r : tensor<4x8xf32>
}

// -----

// A reduction over a box of one point (unless canonicalized away first) is
// no row: it gets the generic schedule, and the whole program is one point.
// CHECK-LABEL: func.func @zero_d_reduction
// CHECK: tileir.kernel ins(%{{.*}} : tensor<f32>) -> tensor<f32> domain [1] tile [1]
// CHECK: tileir.for_each_point
// CHECK: loopir.reduce add () in [] : f32
func.func @zero_d_reduction(%a: tensor<f32>) -> tensor<f32> {
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

// Nests of different ranks: the lower-rank one takes the domain's trailing
// dimensions and runs where the leading ones are 0.
// CHECK-LABEL: func.func @ranks_differ
// CHECK: domain [4, 20]
// CHECK-DAG: %[[C1:.*]] = arith.constant 1 : index
// CHECK-DAG: %[[C5:.*]] = arith.constant 5 : index
// CHECK: tileir.for_each_point [%{{.*}}, %{{.*}}] (%[[I:.*]], %[[J:.*]]) {
// CHECK: %[[INJ:.*]] = arith.cmpi ult, %[[J]], %[[C5]] : index
// CHECK: scf.if %[[INJ]] {
// CHECK: loopir.load %{{.*}}[%[[I]], %[[J]]] : memref<4x5xf32>
// CHECK: %[[FIRST:.*]] = arith.cmpi ult, %[[I]], %[[C1]] : index
// CHECK: scf.if %[[FIRST]] {
// CHECK: loopir.load %{{.*}}[%[[J]]] : memref<20xf32>
func.func @ranks_differ(%a: tensor<4x5xf32>, %b: tensor<20xf32>) -> (tensor<4x5xf32>) {
  %r = loopir.kernel ins(%a, %b : tensor<4x5xf32>, tensor<20xf32>) -> tensor<4x5xf32> {
  ^bb0(%x: memref<4x5xf32>, %y: memref<20xf32>, %out: memref<4x5xf32>):
    loopir.parallel (%i, %j) in [4, 5] {
      %v = loopir.load %x[%i, %j] : memref<4x5xf32>
      loopir.store %v, %out[%i, %j] : memref<4x5xf32>
    }
    loopir.parallel (%k) in [20] {
      %v = loopir.load %y[%k] : memref<20xf32>
      loopir.store %v, %out[%k] map affine_map<(d0) -> (d0 floordiv 5, d0 mod 5)> : memref<4x5xf32>
    }
  }
  return %r : tensor<4x5xf32>
}

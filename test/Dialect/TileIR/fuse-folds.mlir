// RUN: strata-opt %s -split-input-file --tileir-fuse-folds | FileCheck %s

// Softmax's max, then the sum of exp(x - max) of the same x (scaled on
// the way: x * 0.5), read the row twice; as online softmax's (max, sum)
// they read it once. The write-back uses both results.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[F:.*]]:2 = tileir.composite_fold (%[[K:.*]]) in [70] identity(0xFF800000 : f32, 0.000000e+00 : f32) {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%{{.*}}, %[[K]]] : memref<33x70xf32>
// CHECK-NEXT: %[[H:.*]] = arith.mulf %[[X]], %{{.*}} : f32
// CHECK: tileir.yield %[[H]], %{{.*}} : f32, f32
// CHECK-NEXT: } combine {
// CHECK-NEXT: ^bb0(%[[M1:.*]]: f32, %[[S1:.*]]: f32, %[[M2:.*]]: f32, %[[S2:.*]]: f32):
// CHECK-NEXT: %[[M:.*]] = arith.maximumf %[[M1]], %[[M2]] : f32
// CHECK: arith.cmpf oeq, %[[M1]], %[[M]] : f32
// CHECK: math.exp
// CHECK: arith.select
// CHECK: tileir.yield %[[M]], %{{.*}} : f32, f32
// CHECK-NOT: tileir.fold
// CHECK: arith.subf %{{.*}}, %[[F]]#0 : f32
// CHECK: arith.divf %{{.*}}, %[[F]]#1 : f32
func.func @softmax(%a: tensor<33x70xf32>) -> tensor<33x70xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33x70xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33x70xf32>):
    %row = tileir.point 0
    %half = arith.constant 0.5 : f32
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      tileir.yield %h : f32
    }
    %s = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      %d = arith.subf %h, %m : f32
      %e = math.exp %d : f32
      tileir.yield %e : f32
    }
    tileir.distribute (%j) in [70] {
      %x = loopir.load %in[%row, %j] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      %d = arith.subf %h, %m : f32
      %e = math.exp %d : f32
      %y = arith.divf %e, %s : f32
      loopir.store %y, %out[%row, %j] : memref<33x70xf32>
    }
  }
  return %r : tensor<33x70xf32>
}

// -----

// A sum of exp(y - max(x)) with y not x stays two folds.
// CHECK-LABEL: func.func @another_value
// CHECK: tileir.fold max
// CHECK: tileir.fold add
// CHECK-NOT: tileir.composite_fold
func.func @another_value(%a: tensor<33x70xf32>) -> tensor<33xf32> {
  %r = tileir.kernel ins(%a : tensor<33x70xf32>) -> tensor<33xf32> domain [33] tile [1] threads 64 {
  ^bb0(%in: memref<33x70xf32>, %out: memref<33xf32>):
    %row = tileir.point 0
    %half = arith.constant 0.5 : f32
    %m = tileir.fold max(0xFF800000 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      tileir.yield %x : f32
    }
    %s = tileir.fold add(0.0 : f32) (%k) in [70] {
      %x = loopir.load %in[%row, %k] : memref<33x70xf32>
      %h = arith.mulf %x, %half : f32
      %d = arith.subf %h, %m : f32
      %e = math.exp %d : f32
      tileir.yield %e : f32
    }
    loopir.store %s, %out[%row] : memref<33xf32>
  }
  return %r : tensor<33xf32>
}

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

// CHECK-LABEL: func.func @reductions
func.func @reductions(%a: tensor<32x2048xf32>) -> (tensor<32xf32>, tensor<32xf32>, tensor<32xi64>) {
  // CHECK: loopir.reduce add (%{{.*}}) in [2048] : f32 {
  // CHECK: loopir.yield %{{.*}} : f32
  // CHECK: loopir.reduce argmax (%{{.*}}, %{{.*}}) in [4, 512] : f32, i64 {
  %s, %v, %i = loopir.kernel ins(%a : tensor<32x2048xf32>) -> tensor<32xf32>, tensor<32xf32>, tensor<32xi64> {
  ^bb0(%in: memref<32x2048xf32>, %sum: memref<32xf32>, %max: memref<32xf32>, %pos: memref<32xi64>):
    loopir.parallel (%i) in [32] {
      %r = loopir.reduce add (%k) in [2048] : f32 {
        %x = loopir.load %in[%i, %k] : memref<32x2048xf32>
        loopir.yield %x : f32
      }
      loopir.store %r, %sum[%i] : memref<32xf32>
      %m, %p = loopir.reduce argmax (%k0, %k1) in [4, 512] : f32, i64 {
        %x = loopir.load %in[%i, %k0, %k1] map affine_map<(d0, d1, d2) -> (d0, d1 * 512 + d2)> : memref<32x2048xf32>
        loopir.yield %x : f32
      }
      loopir.store %m, %max[%i] : memref<32xf32>
      loopir.store %p, %pos[%i] : memref<32xi64>
    }
  }
  return %s, %v, %i : tensor<32xf32>, tensor<32xf32>, tensor<32xi64>
}

// A guarded load: row 0 of the padded view reads the padding.
// CHECK-LABEL: func.func @guarded
// CHECK: loopir.load %{{.*}}[%{{.*}}, %{{.*}}] map #{{.*}} if #{{.*}} else 0.000000e+00 : f32 : memref<1000x37xf32>
func.func @guarded(%a: tensor<1000x37xf32>) -> tensor<1001x37xf32> {
  %r = loopir.kernel ins(%a : tensor<1000x37xf32>) -> tensor<1001x37xf32> {
  ^bb0(%in: memref<1000x37xf32>, %out: memref<1001x37xf32>):
    loopir.parallel (%i, %j) in [1001, 37] {
      %x = loopir.load %in[%i, %j] map affine_map<(d0, d1) -> (d0 - 1, d1)>
          if affine_set<(d0, d1) : (d0 - 1 >= 0)> else 0.0 : f32
          : memref<1000x37xf32>
      loopir.store %x, %out[%i, %j] : memref<1001x37xf32>
    }
  }
  return %r : tensor<1001x37xf32>
}

// RUN: strata-opt %s -split-input-file --loopir-canonicalize-contractions | FileCheck %s

// A product stored as [b, t, h, e] (attention's p @ v before the heads
// merge): t only the lhs reads, e only the rhs: the nest becomes (b, h)
// batch, t rows, e columns, and the store permutes its indices.
// CHECK-LABEL: func.func @transposed_product
// CHECK: loopir.parallel (%[[B:.*]], %[[H:.*]], %[[T:.*]], %[[E:.*]]) in [2, 4, 96, 72] {
// CHECK: loopir.reduce add
// CHECK: loopir.store %{{.*}}, %{{.*}}[%[[B]], %[[T]], %[[H]], %[[E]]] : memref<2x96x4x72xf32>
func.func @transposed_product(%arg0: tensor<2x4x96x80xf32>, %arg1: tensor<2x4x80x72xf32>) -> tensor<2x96x4x72xf32> {
  %0 = loopir.kernel ins(%arg0, %arg1 : tensor<2x4x96x80xf32>, tensor<2x4x80x72xf32>) -> tensor<2x96x4x72xf32> {
  ^bb0(%a: memref<2x4x96x80xf32>, %b: memref<2x4x80x72xf32>, %out: memref<2x96x4x72xf32>):
    loopir.parallel (%i, %t, %h, %e) in [2, 96, 4, 72] {
      %1 = loopir.reduce add (%k) in [80] : f32 {
        %2 = loopir.load %a[%i, %h, %t, %k] : memref<2x4x96x80xf32>
        %3 = loopir.load %b[%i, %h, %k, %e] : memref<2x4x80x72xf32>
        %4 = arith.mulf %2, %3 : f32
        loopir.yield %4 : f32
      }
      loopir.store %1, %out[%i, %t, %h, %e] : memref<2x96x4x72xf32>
    }
  }
  return %0 : tensor<2x96x4x72xf32>
}

// -----

// A convolution written to NCHW: the weight reads only the output channel
// (the rows), the input batch and pixels (collapsed into the columns, in
// the order the store lays them out); the bias in the epilogue reads the
// row. The delinearized column composes into every map.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1) -> (d1 floordiv 99, d0 floordiv 9, (d1 floordiv 11) mod 9 + (d0 floordiv 3) mod 3 - 1, d0 + d1 mod 11 - (d0 floordiv 3) * 3 - 1)>
// CHECK-DAG: #[[Y:.*]] = affine_map<(d0, d1) -> (d0 floordiv 99, d1, (d0 floordiv 11) mod 9, d0 mod 11)>
// CHECK-LABEL: func.func @conv_nchw
// CHECK: loopir.parallel (%[[OC:.*]], %[[M:.*]]) in [16, 198] {
// CHECK: loopir.reduce add (%[[K:.*]]) in [27]
// CHECK: loopir.load %{{.*}}[%[[K]], %[[M]]] map #[[IN]] if
// CHECK: loopir.load %{{.*}}[%[[OC]]] : memref<16xf32>
// CHECK: loopir.store %{{.*}}, %{{.*}}[%[[M]], %[[OC]]] map #[[Y]] : memref<2x16x9x11xf32>
func.func @conv_nchw(%bias: tensor<16xf32>, %w: tensor<16x3x3x3xf32>, %x: tensor<2x3x9x11xf32>) -> tensor<2x16x9x11xf32> {
  %0 = loopir.kernel ins(%bias, %w, %x : tensor<16xf32>, tensor<16x3x3x3xf32>, tensor<2x3x9x11xf32>) -> tensor<2x16x9x11xf32> {
  ^bb0(%b: memref<16xf32>, %wt: memref<16x3x3x3xf32>, %in: memref<2x3x9x11xf32>, %out: memref<2x16x9x11xf32>):
    loopir.parallel (%n, %oc, %oh, %ow) in [2, 16, 9, 11] {
      %1 = loopir.reduce add (%k) in [27] : f32 {
        %4 = loopir.load %in[%n, %oh, %ow, %k] map affine_map<(d0, d1, d2, d3) -> (d0, d3 floordiv 9, d1 + (d3 floordiv 3) mod 3 - 1, d2 + d3 mod 3 - 1)> if affine_set<(d0, d1, d2, d3) : (d1 + (d3 floordiv 3) mod 3 - 1 >= 0, -(d1 + (d3 floordiv 3) mod 3) + 9 >= 0, d2 + d3 mod 3 - 1 >= 0, -(d2 + d3 mod 3) + 11 >= 0)> else 0.0 : f32 : memref<2x3x9x11xf32>
        %5 = loopir.load %wt[%oc, %k] map affine_map<(d0, d1) -> (d0, d1 floordiv 9, (d1 floordiv 3) mod 3, d1 mod 3)> : memref<16x3x3x3xf32>
        %6 = arith.mulf %4, %5 : f32
        loopir.yield %6 : f32
      }
      %2 = loopir.load %b[%oc] : memref<16xf32>
      %3 = arith.addf %1, %2 : f32
      loopir.store %3, %out[%n, %oc, %oh, %ow] : memref<2x16x9x11xf32>
    }
  }
  return %0 : tensor<2x16x9x11xf32>
}

// -----

// Already a batched GEMM (rows, then columns, the columns innermost in the
// output), or too few columns to be one: left alone.
// CHECK-LABEL: func.func @left_alone
// CHECK: loopir.parallel (%{{.*}}, %{{.*}}) in [64, 72] {
// CHECK: loopir.parallel (%{{.*}}, %{{.*}}) in [64, 4] {
func.func @left_alone(%a: tensor<64x80xf32>, %b: tensor<80x72xf32>, %c: tensor<80x4xf32>) -> (tensor<64x72xf32>, tensor<4x64xf32>) {
  %0 = loopir.kernel ins(%a, %b : tensor<64x80xf32>, tensor<80x72xf32>) -> tensor<64x72xf32> {
  ^bb0(%x: memref<64x80xf32>, %y: memref<80x72xf32>, %out: memref<64x72xf32>):
    loopir.parallel (%i, %j) in [64, 72] {
      %1 = loopir.reduce add (%k) in [80] : f32 {
        %2 = loopir.load %x[%i, %k] : memref<64x80xf32>
        %3 = loopir.load %y[%k, %j] : memref<80x72xf32>
        %4 = arith.mulf %2, %3 : f32
        loopir.yield %4 : f32
      }
      loopir.store %1, %out[%i, %j] : memref<64x72xf32>
    }
  }
  %5 = loopir.kernel ins(%a, %c : tensor<64x80xf32>, tensor<80x4xf32>) -> tensor<4x64xf32> {
  ^bb0(%x: memref<64x80xf32>, %y: memref<80x4xf32>, %out: memref<4x64xf32>):
    loopir.parallel (%i, %j) in [64, 4] {
      %1 = loopir.reduce add (%k) in [80] : f32 {
        %2 = loopir.load %x[%i, %k] : memref<64x80xf32>
        %3 = loopir.load %y[%k, %j] : memref<80x4xf32>
        %4 = arith.mulf %2, %3 : f32
        loopir.yield %4 : f32
      }
      loopir.store %1, %out[%j, %i] : memref<4x64xf32>
    }
  }
  return %0, %5 : tensor<64x72xf32>, tensor<4x64xf32>
}

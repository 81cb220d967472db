// Four spellings of one matmul reach the same loop nest after
// strata-lower-to-loop: x @ w, linear(x, w^T), einsum, and
// broadcast-multiply-sum. Every function must show exactly this body.
// RUN: strata-opt %s --strata-lower-to-loop | FileCheck %s

// CHECK-DAG: #[[T:.*]] = affine_map<(d0, d1) -> (d1, d0)>

// CHECK-LABEL: func.func @matmul
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [16, 9] {
// CHECK-NEXT: %[[R:.*]] = loopir.reduce add (%[[K:.*]]) in [65] : f32 {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<16x65xf32>
// CHECK-NEXT: %[[W:.*]] = loopir.load %{{.*}}[%[[J]], %[[K]]] map #[[T]] : memref<65x9xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
// CHECK-NEXT: loopir.yield %[[P]] : f32
func.func @matmul(%x: tensor<16x65xf32>, %w: tensor<65x9xf32>) -> tensor<16x9xf32> {
  %0 = tensorir.matmul %x, %w : (tensor<16x65xf32>, tensor<65x9xf32>) -> tensor<16x9xf32>
  return %0 : tensor<16x9xf32>
}

// CHECK-LABEL: func.func @linear
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [16, 9] {
// CHECK-NEXT: %[[R:.*]] = loopir.reduce add (%[[K:.*]]) in [65] : f32 {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<16x65xf32>
// CHECK-NEXT: %[[W:.*]] = loopir.load %{{.*}}[%[[J]], %[[K]]] map #[[T]] : memref<65x9xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
func.func @linear(%x: tensor<16x65xf32>, %w: tensor<65x9xf32>) -> tensor<16x9xf32> {
  %wt = tensorir.transpose %w perm [1, 0] : tensor<65x9xf32> -> tensor<9x65xf32>
  %0 = tensorir.linear %x, %wt : (tensor<16x65xf32>, tensor<9x65xf32>) -> tensor<16x9xf32>
  return %0 : tensor<16x9xf32>
}

// CHECK-LABEL: func.func @einsum
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [16, 9] {
// CHECK-NEXT: %[[R:.*]] = loopir.reduce add (%[[K:.*]]) in [65] : f32 {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<16x65xf32>
// CHECK-NEXT: %[[W:.*]] = loopir.load %{{.*}}[%[[J]], %[[K]]] map #[[T]] : memref<65x9xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
func.func @einsum(%x: tensor<16x65xf32>, %w: tensor<65x9xf32>) -> tensor<16x9xf32> {
  %0 = tensorir.einsum "ij,jk->ik" %x, %w : (tensor<16x65xf32>, tensor<65x9xf32>) -> tensor<16x9xf32>
  return %0 : tensor<16x9xf32>
}

// (x.unsqueeze(2) * w.unsqueeze(0)).sum(1)
// CHECK-LABEL: func.func @broadcast_multiply_sum
// CHECK: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [16, 9] {
// CHECK-NEXT: %[[R:.*]] = loopir.reduce add (%[[K:.*]]) in [65] : f32 {
// CHECK-NEXT: %[[X:.*]] = loopir.load %{{.*}}[%[[I]], %[[K]]] : memref<16x65xf32>
// CHECK-NEXT: %[[W:.*]] = loopir.load %{{.*}}[%[[J]], %[[K]]] map #[[T]] : memref<65x9xf32>
// CHECK-NEXT: %[[P:.*]] = arith.mulf %[[X]], %[[W]] : f32
func.func @broadcast_multiply_sum(%x: tensor<16x65xf32>, %w: tensor<65x9xf32>) -> tensor<16x9xf32> {
  %x3 = tensorir.reshape %x : tensor<16x65xf32> -> tensor<16x65x1xf32>
  %w3 = tensorir.reshape %w : tensor<65x9xf32> -> tensor<1x65x9xf32>
  %xb = tensorir.broadcast %x3 dims [0, 1, 2] : tensor<16x65x1xf32> -> tensor<16x65x9xf32>
  %wb = tensorir.broadcast %w3 dims [0, 1, 2] : tensor<1x65x9xf32> -> tensor<16x65x9xf32>
  %p = tensorir.mul %xb, %wb : tensor<16x65x9xf32>
  %0 = tensorir.reduce sum %p axes [1] : tensor<16x65x9xf32> -> tensor<16x9xf32>
  return %0 : tensor<16x9xf32>
}

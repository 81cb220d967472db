// RUN: strata-opt %s | FileCheck %s
// Round trip: the printed form parses back to the same IR.
// RUN: strata-opt %s | strata-opt | FileCheck %s

// CHECK-LABEL: func.func @elementwise
func.func @elementwise(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %i: tensor<4xi32>) -> tensor<8x16xf32> {
  // CHECK: tensorir.add %{{.*}}, %{{.*}} : tensor<8x16xf32>
  %0 = tensorir.add %a, %b : tensor<8x16xf32>
  // CHECK: tensorir.sub
  %1 = tensorir.sub %0, %b : tensor<8x16xf32>
  // CHECK: tensorir.mul
  %2 = tensorir.mul %1, %b : tensor<8x16xf32>
  // CHECK: tensorir.div
  %3 = tensorir.div %2, %b : tensor<8x16xf32>
  // CHECK: tensorir.max
  %4 = tensorir.max %3, %b : tensor<8x16xf32>
  // CHECK: tensorir.min
  %5 = tensorir.min %4, %b : tensor<8x16xf32>
  // CHECK: tensorir.neg %{{.*}} : tensor<8x16xf32>
  %6 = tensorir.neg %5 : tensor<8x16xf32>
  // CHECK: tensorir.abs
  %7 = tensorir.abs %6 : tensor<8x16xf32>
  // CHECK: tensorir.exp
  %8 = tensorir.exp %7 : tensor<8x16xf32>
  // CHECK: tensorir.log
  %9 = tensorir.log %8 : tensor<8x16xf32>
  // CHECK: tensorir.sqrt
  %10 = tensorir.sqrt %9 : tensor<8x16xf32>
  // CHECK: tensorir.rsqrt
  %11 = tensorir.rsqrt %10 : tensor<8x16xf32>
  // CHECK: tensorir.tanh
  %12 = tensorir.tanh %11 : tensor<8x16xf32>
  // CHECK: tensorir.erf
  %13 = tensorir.erf %12 : tensor<8x16xf32>
  // Integer arithmetic.
  // CHECK: tensorir.add %{{.*}}, %{{.*}} : tensor<4xi32>
  %14 = tensorir.add %i, %i : tensor<4xi32>
  // CHECK: tensorir.abs %{{.*}} : tensor<4xi32>
  %15 = tensorir.abs %14 : tensor<4xi32>
  return %13 : tensor<8x16xf32>
}

// CHECK-LABEL: func.func @constants_and_broadcast
func.func @constants_and_broadcast(%row: tensor<16xf32>, %col: tensor<8x1xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  // CHECK: tensorir.constant dense<1.000000e+00> : tensor<8x16xf32>
  %one = tensorir.constant dense<1.0> : tensor<8x16xf32>
  // CHECK: tensorir.constant dense<[1, 2, 3]> : tensor<3xi64>
  %v = tensorir.constant dense<[1, 2, 3]> : tensor<3xi64>
  // CHECK: tensorir.broadcast %{{.*}} dims [1] : tensor<16xf32> -> tensor<8x16xf32>
  %r = tensorir.broadcast %row dims [1] : tensor<16xf32> -> tensor<8x16xf32>
  // CHECK: tensorir.broadcast %{{.*}} dims [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
  %c = tensorir.broadcast %col dims [0, 1] : tensor<8x1xf32> -> tensor<8x16xf32>
  %s = tensorir.add %r, %one : tensor<8x16xf32>
  return %s, %c : tensor<8x16xf32>, tensor<8x16xf32>
}

// RUN: strata-opt %s --convert-tensorir-to-loopir | FileCheck %s

// A splat constant feeding an elementwise op becomes a scalar in its kernel,
// and no kernel of its own.
// CHECK-LABEL: func.func @inlined_splat
func.func @inlined_splat(%a: tensor<513xf32>) -> tensor<513xf32> {
  // CHECK-NOT: loopir.kernel -> tensor<513xf32>
  // CHECK: loopir.kernel ins(%{{.*}} : tensor<513xf32>) -> tensor<513xf32>
  // CHECK: %[[X:.*]] = loopir.load
  // CHECK-NEXT: %[[C:.*]] = arith.constant 1.000000e+00 : f32
  // CHECK-NEXT: arith.addf %[[X]], %[[C]] : f32
  // CHECK-NOT: loopir.kernel
  %one = tensorir.constant dense<1.0> : tensor<513xf32>
  %r = tensorir.add %a, %one : tensor<513xf32>
  return %r : tensor<513xf32>
}

// A splat constant used directly gets a fill kernel.
// CHECK-LABEL: func.func @returned_splat
func.func @returned_splat() -> tensor<3x5xf32> {
  // CHECK: %[[F:.*]] = loopir.kernel -> tensor<3x5xf32> {
  // CHECK: %[[C:.*]] = arith.constant 2.500000e+00 : f32
  // CHECK-NEXT: loopir.store %[[C]]
  // CHECK: return %[[F]]
  %c = tensorir.constant dense<2.5> : tensor<3x5xf32>
  return %c : tensor<3x5xf32>
}

// Other constants stay host tensors that kernels read like weights.
// CHECK-LABEL: func.func @dense
func.func @dense(%a: tensor<3xf32>) -> tensor<3xf32> {
  // CHECK: %[[W:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00]> : tensor<3xf32>
  // CHECK: loopir.kernel ins(%{{.*}}, %[[W]] : tensor<3xf32>, tensor<3xf32>)
  %w = tensorir.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %r = tensorir.mul %a, %w : tensor<3xf32>
  return %r : tensor<3xf32>
}

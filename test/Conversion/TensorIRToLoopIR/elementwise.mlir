// RUN: strata-opt %s --convert-tensorir-to-loopir | FileCheck %s

// Each elementwise op becomes one kernel: a parallel nest over the result
// that loads one element per operand, computes, and stores.
// CHECK-LABEL: func.func @chain
// CHECK-SAME: (%[[A:.*]]: tensor<1000x37xf32>, %[[B:.*]]: tensor<1000x37xf32>)
func.func @chain(%a: tensor<1000x37xf32>, %b: tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  // CHECK: %[[E:.*]] = loopir.kernel ins(%[[A]] : tensor<1000x37xf32>) -> tensor<1000x37xf32> {
  // CHECK-NEXT: ^bb0(%[[IN:.*]]: memref<1000x37xf32>, %[[OUT:.*]]: memref<1000x37xf32>):
  // CHECK-NEXT: loopir.parallel (%[[I:.*]], %[[J:.*]]) in [1000, 37] {
  // CHECK-NEXT: %[[X:.*]] = loopir.load %[[IN]][%[[I]], %[[J]]] : memref<1000x37xf32>
  // CHECK-NEXT: %[[Y:.*]] = math.exp %[[X]] : f32
  // CHECK-NEXT: loopir.store %[[Y]], %[[OUT]][%[[I]], %[[J]]] : memref<1000x37xf32>
  %e = tensorir.exp %a : tensor<1000x37xf32>
  // CHECK: %[[M:.*]] = loopir.kernel ins(%[[E]], %[[B]] : tensor<1000x37xf32>, tensor<1000x37xf32>)
  // CHECK: arith.mulf
  %m = tensorir.mul %e, %b : tensor<1000x37xf32>
  // CHECK: loopir.kernel ins(%[[M]] : tensor<1000x37xf32>)
  // CHECK: math.rsqrt
  %r = tensorir.rsqrt %m : tensor<1000x37xf32>
  return %r : tensor<1000x37xf32>
}

// Integer ops pick integer arithmetic.
// CHECK-LABEL: func.func @integers
func.func @integers(%a: tensor<513xi32>, %b: tensor<513xi32>) -> tensor<513xi32> {
  // CHECK: arith.addi
  %0 = tensorir.add %a, %b : tensor<513xi32>
  // CHECK: arith.divsi
  %1 = tensorir.div %0, %b : tensor<513xi32>
  // CHECK: arith.maxsi
  %2 = tensorir.max %1, %a : tensor<513xi32>
  // CHECK: %[[Z:.*]] = arith.constant 0 : i32
  // CHECK-NEXT: arith.subi %[[Z]]
  %3 = tensorir.neg %2 : tensor<513xi32>
  // CHECK: math.absi
  %4 = tensorir.abs %3 : tensor<513xi32>
  return %4 : tensor<513xi32>
}

// Float max and min propagate NaN, like torch.maximum.
// CHECK-LABEL: func.func @float_max_min
func.func @float_max_min(%a: tensor<8xf32>, %b: tensor<8xf32>) -> tensor<8xf32> {
  // CHECK: arith.maximumf
  %0 = tensorir.max %a, %b : tensor<8xf32>
  // CHECK: arith.minimumf
  %1 = tensorir.min %0, %b : tensor<8xf32>
  return %1 : tensor<8xf32>
}

// RUN: strata-opt %s -split-input-file --canonicalize | FileCheck %s

// CHECK-LABEL: func.func @transpose_of_transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[T:.*]] = tensorir.transpose %[[X]] perm [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
// CHECK-NEXT: return %[[T]]
func.func @transpose_of_transpose(%x: tensor<2x3x4xf32>) -> tensor<4x2x3xf32> {
  %0 = tensorir.transpose %x perm [1, 2, 0] : tensor<2x3x4xf32> -> tensor<3x4x2xf32>
  %1 = tensorir.transpose %0 perm [2, 0, 1] : tensor<3x4x2xf32> -> tensor<2x3x4xf32>
  %2 = tensorir.transpose %1 perm [2, 0, 1] : tensor<2x3x4xf32> -> tensor<4x2x3xf32>
  return %2 : tensor<4x2x3xf32>
}

// -----

// Transposing twice back is the identity.
// CHECK-LABEL: func.func @transpose_round_trip
// CHECK-SAME: (%[[X:.*]]: tensor<5x7xf32>)
// CHECK-NEXT: return %[[X]]
func.func @transpose_round_trip(%x: tensor<5x7xf32>) -> tensor<5x7xf32> {
  %0 = tensorir.transpose %x perm [1, 0] : tensor<5x7xf32> -> tensor<7x5xf32>
  %1 = tensorir.transpose %0 perm [1, 0] : tensor<7x5xf32> -> tensor<5x7xf32>
  return %1 : tensor<5x7xf32>
}

// -----

// CHECK-LABEL: func.func @reshape_of_reshape
// CHECK-SAME: (%[[X:.*]]: tensor<2x3x4xf32>)
// CHECK-NEXT: %[[R:.*]] = tensorir.reshape %[[X]] : tensor<2x3x4xf32> -> tensor<24xf32>
// CHECK-NEXT: return %[[R]]
func.func @reshape_of_reshape(%x: tensor<2x3x4xf32>) -> tensor<24xf32> {
  %0 = tensorir.reshape %x : tensor<2x3x4xf32> -> tensor<6x4xf32>
  %1 = tensorir.reshape %0 : tensor<6x4xf32> -> tensor<24xf32>
  return %1 : tensor<24xf32>
}

// -----

// Broadcasting a scalar constant gives the larger constant directly.
// CHECK-LABEL: func.func @broadcast_of_splat
// CHECK-NEXT: %[[C:.*]] = tensorir.constant dense<1.500000e+00> : tensor<8x16xf32>
// CHECK-NEXT: return %[[C]]
func.func @broadcast_of_splat() -> tensor<8x16xf32> {
  %c = tensorir.constant dense<1.5> : tensor<16xf32>
  %b = tensorir.broadcast %c dims [1] : tensor<16xf32> -> tensor<8x16xf32>
  return %b : tensor<8x16xf32>
}

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

// CHECK-LABEL: func.func @more_elementwise
func.func @more_elementwise(%a: tensor<8xf32>, %b: tensor<8xf32>, %i: tensor<8xi64>) -> tensor<8xf32> {
  // CHECK: tensorir.pow %{{.*}}, %{{.*}} : tensor<8xf32>
  %0 = tensorir.pow %a, %b : tensor<8xf32>
  // CHECK: tensorir.reciprocal
  %1 = tensorir.reciprocal %0 : tensor<8xf32>
  // CHECK: tensorir.sigmoid
  %2 = tensorir.sigmoid %1 : tensor<8xf32>
  // CHECK: %[[M:.*]] = tensorir.cmp lt, %{{.*}}, %{{.*}} : tensor<8xf32>
  %m = tensorir.cmp lt, %a, %b : tensor<8xf32>
  // CHECK: tensorir.select %[[M]], %{{.*}}, %{{.*}} : tensor<8xf32>
  %3 = tensorir.select %m, %2, %b : tensor<8xf32>
  // CHECK: tensorir.cast %{{.*}} : tensor<8xf32> to tensor<8xbf16>
  %4 = tensorir.cast %3 : tensor<8xf32> to tensor<8xbf16>
  // CHECK: tensorir.cast %{{.*}} : tensor<8xi1> to tensor<8xi64>
  %5 = tensorir.cast %m : tensor<8xi1> to tensor<8xi64>
  // CHECK: tensorir.cmp ge, %{{.*}}, %{{.*}} : tensor<8xi64>
  %6 = tensorir.cmp ge, %5, %i : tensor<8xi64>
  // CHECK: tensorir.iota dim 1 : tensor<4x8xi64>
  %7 = tensorir.iota dim 1 : tensor<4x8xi64>
  return %3 : tensor<8xf32>
}

// CHECK-LABEL: func.func @layout
func.func @layout(%x: tensor<2x32x64xf32>, %y: tensor<4x5xf32>, %t: tensor<1000x64xf32>, %ids: tensor<4x7xi64>) {
  // CHECK: tensorir.transpose %{{.*}} perm [0, 2, 1] : tensor<2x32x64xf32> -> tensor<2x64x32xf32>
  %0 = tensorir.transpose %x perm [0, 2, 1] : tensor<2x32x64xf32> -> tensor<2x64x32xf32>
  // CHECK: tensorir.reshape %{{.*}} : tensor<2x32x64xf32> -> tensor<64x64xf32>
  %1 = tensorir.reshape %x : tensor<2x32x64xf32> -> tensor<64x64xf32>
  // CHECK: tensorir.slice %{{.*}} offsets [1, 0] strides [2, 1] : tensor<4x5xf32> -> tensor<2x5xf32>
  %2 = tensorir.slice %y offsets [1, 0] strides [2, 1] : tensor<4x5xf32> -> tensor<2x5xf32>
  // CHECK: tensorir.concat %{{.*}}, %{{.*}} axis 0 : (tensor<4x5xf32>, tensor<2x5xf32>) -> tensor<6x5xf32>
  %3 = tensorir.concat %y, %2 axis 0 : (tensor<4x5xf32>, tensor<2x5xf32>) -> tensor<6x5xf32>
  // CHECK: tensorir.gather %{{.*}}[%{{.*}}] axis 0 : (tensor<1000x64xf32>, tensor<4x7xi64>) -> tensor<4x7x64xf32>
  %4 = tensorir.gather %t[%ids] axis 0 : (tensor<1000x64xf32>, tensor<4x7xi64>) -> tensor<4x7x64xf32>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%x: tensor<32x2048xf32>) {
  // CHECK: tensorir.reduce sum %{{.*}} axes [1] keepdim : tensor<32x2048xf32> -> tensor<32x1xf32>
  %0 = tensorir.reduce sum %x axes [1] keepdim : tensor<32x2048xf32> -> tensor<32x1xf32>
  // CHECK: tensorir.reduce max %{{.*}} axes [0, 1] : tensor<32x2048xf32> -> tensor<f32>
  %1 = tensorir.reduce max %x axes [0, 1] : tensor<32x2048xf32> -> tensor<f32>
  // CHECK: tensorir.arg_reduce max %{{.*}} axis 1 : tensor<32x2048xf32> -> tensor<32xf32>, tensor<32xi64>
  %2, %3 = tensorir.arg_reduce max %x axis 1 : tensor<32x2048xf32> -> tensor<32xf32>, tensor<32xi64>
  return
}

// CHECK-LABEL: func.func @composites
func.func @composites(%x: tensor<8x512xf32>, %w: tensor<512xf32>, %a: tensor<2x16x64xf32>, %b: tensor<2x64x16xf32>, %lw: tensor<32x512xf32>) {
  // CHECK: tensorir.matmul %{{.*}}, %{{.*}} : (tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x16x16xf32>
  %0 = tensorir.matmul %a, %b : (tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x16x16xf32>
  // CHECK: tensorir.einsum "bij,bjk->bik" %{{.*}}, %{{.*}} : (tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x16x16xf32>
  %1 = tensorir.einsum "bij,bjk->bik" %a, %b : (tensor<2x16x64xf32>, tensor<2x64x16xf32>) -> tensor<2x16x16xf32>
  // CHECK: tensorir.linear %{{.*}}, %{{.*}} : (tensor<8x512xf32>, tensor<32x512xf32>) -> tensor<8x32xf32>
  %2 = tensorir.linear %x, %lw : (tensor<8x512xf32>, tensor<32x512xf32>) -> tensor<8x32xf32>
  // CHECK: tensorir.softmax %{{.*}} axis 1 : tensor<8x512xf32>
  %3 = tensorir.softmax %x axis 1 : tensor<8x512xf32>
  // CHECK: tensorir.log_softmax %{{.*}} axis 0 : tensor<8x512xf32>
  %4 = tensorir.log_softmax %x axis 0 : tensor<8x512xf32>
  // CHECK: tensorir.layer_norm %{{.*}} weight(%{{.*}} : tensor<512xf32>) bias(%{{.*}} : tensor<512xf32>) normalized_rank 1 eps 1.000000e-05 : tensor<8x512xf32>
  %5 = tensorir.layer_norm %x weight(%w : tensor<512xf32>) bias(%w : tensor<512xf32>) normalized_rank 1 eps 1.0e-05 : tensor<8x512xf32>
  // A shift without a scale prints as one and reads back as one.
  // CHECK: tensorir.layer_norm %{{.*}} bias(%{{.*}} : tensor<512xf32>) normalized_rank 1
  %shifted = tensorir.layer_norm %x bias(%w : tensor<512xf32>) normalized_rank 1 eps 1.0e-05 : tensor<8x512xf32>
  // CHECK: tensorir.layer_norm %{{.*}} normalized_rank 2 eps 9.99{{[0-9]*}}E-7 : tensor<8x512xf32>
  %6 = tensorir.layer_norm %x normalized_rank 2 eps 1.0e-06 : tensor<8x512xf32>
  // CHECK: tensorir.gelu %{{.*}} : tensor<8x512xf32>
  %7 = tensorir.gelu %x : tensor<8x512xf32>
  // CHECK: tensorir.gelu %{{.*}} tanh : tensor<8x512xf32>
  %8 = tensorir.gelu %x tanh : tensor<8x512xf32>
  // CHECK: tensorir.relu
  %9 = tensorir.relu %x : tensor<8x512xf32>
  // CHECK: tensorir.silu
  %10 = tensorir.silu %x : tensor<8x512xf32>
  // CHECK: tensorir.clamp %{{.*}} min 0.000000e+00 max 6.000000e+00 : tensor<8x512xf32>
  %11 = tensorir.clamp %x min 0.0 max 6.0 : tensor<8x512xf32>
  // CHECK: tensorir.mean %{{.*}} axes [1] keepdim : tensor<8x512xf32> -> tensor<8x1xf32>
  %12 = tensorir.mean %x axes [1] keepdim : tensor<8x512xf32> -> tensor<8x1xf32>
  // CHECK: tensorir.var %{{.*}} axes [1] correction 1 : tensor<8x512xf32> -> tensor<8xf32>
  %13 = tensorir.var %x axes [1] correction 1 : tensor<8x512xf32> -> tensor<8xf32>
  return
}

// CHECK-LABEL: func.func @windows
func.func @windows(%x: tensor<2x3x8x8xf32>, %w: tensor<16x3x3x3xf32>, %b: tensor<16xf32>, %tw: tensor<3x8x2x2xf32>) {
  // CHECK: tensorir.pad %{{.*}} low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.000000e+00 : f32 : tensor<2x3x8x8xf32> -> tensor<2x3x10x10xf32>
  %p = tensorir.pad %x low [0, 0, 1, 1] high [0, 0, 1, 1] value 0.0 : f32 : tensor<2x3x8x8xf32> -> tensor<2x3x10x10xf32>
  // CHECK: tensorir.window %{{.*}} sizes [3, 3] strides [1, 2] dilations [1, 1] : tensor<2x3x10x10xf32> -> tensor<2x3x8x4x3x3xf32>
  %win = tensorir.window %p sizes [3, 3] strides [1, 2] dilations [1, 1] : tensor<2x3x10x10xf32> -> tensor<2x3x8x4x3x3xf32>
  // CHECK: tensorir.conv %{{.*}}, %{{.*}}, %{{.*}} strides [1, 1] padding [1, 1] dilations [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<2x16x8x8xf32>
  %c = tensorir.conv %x, %w, %b strides [1, 1] padding [1, 1] dilations [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<16x3x3x3xf32>, tensor<16xf32>) -> tensor<2x16x8x8xf32>
  // CHECK: tensorir.conv_transpose %{{.*}}, %{{.*}} strides [2, 2] padding [0, 0] output_padding [1, 0] dilations [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<3x8x2x2xf32>) -> tensor<2x8x17x16xf32>
  %u = tensorir.conv_transpose %x, %tw strides [2, 2] padding [0, 0] output_padding [1, 0] dilations [1, 1] groups 1 : (tensor<2x3x8x8xf32>, tensor<3x8x2x2xf32>) -> tensor<2x8x17x16xf32>
  return
}
